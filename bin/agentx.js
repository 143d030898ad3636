#!/usr/bin/env node
import '../dist/agentx.js';
