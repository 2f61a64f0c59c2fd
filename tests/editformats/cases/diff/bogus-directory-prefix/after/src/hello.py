def greet(name):
    print(f"Hello, {name}!")


def main():
    greet("world")
