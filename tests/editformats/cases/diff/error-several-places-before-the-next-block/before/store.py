def load(path):
    with open(path) as f:
        return f.read()


def save(path, text):
    with open(path) as f:
        f.write(text)
