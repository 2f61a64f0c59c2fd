def load(path):
    with open(path, encoding="utf-8") as f:
        return f.read().strip()


def save(path, text):
    with open(path) as f:
        f.write(text)
