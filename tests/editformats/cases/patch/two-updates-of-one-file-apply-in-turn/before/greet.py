def hello():
    return 'hi'
