def greet(name):
    print("Hello", name)


def main():
    greet("world")
