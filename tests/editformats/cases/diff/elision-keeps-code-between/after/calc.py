import math
import functools


def area(r):
    return math.pi * r * r


@functools.cache
def double(x):
    return x * 2
