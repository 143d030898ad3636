def f():
	if ready:
		go()
