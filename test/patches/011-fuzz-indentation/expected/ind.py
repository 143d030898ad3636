def f():
	if ready:
  go(fast=True)
