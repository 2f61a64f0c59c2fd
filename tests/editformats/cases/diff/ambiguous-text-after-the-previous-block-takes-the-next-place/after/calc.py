def a1():
    return 1

def b():
    return 0
