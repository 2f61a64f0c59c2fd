import math


def area(r):
    return math.pi * r * r


def double(x):
    """Twice x."""
    return x * 2
