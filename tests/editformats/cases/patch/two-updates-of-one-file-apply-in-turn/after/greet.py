def hello():
    return 'hello there'
