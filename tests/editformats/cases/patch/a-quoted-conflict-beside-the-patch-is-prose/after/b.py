def b():
    return 20
