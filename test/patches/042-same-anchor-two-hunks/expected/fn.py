def foo():
    a = 10
    b = 2
    c = 3
    d = 4
    e = 50
    return a
