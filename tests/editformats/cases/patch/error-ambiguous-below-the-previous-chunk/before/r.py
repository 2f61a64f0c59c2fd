def a():
    return None

def b():
    return None

def c():
    return None

def d():
    return None
