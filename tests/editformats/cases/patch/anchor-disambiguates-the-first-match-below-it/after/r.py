def a():
    return None

def b():
    return 'b'

def c():
    return None
