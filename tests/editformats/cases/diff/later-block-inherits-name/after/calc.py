import math
import sys


def area(r):
    return math.pi * r * r


def double(x):
    return x * 4
