#!/bin/sh
echo moved
