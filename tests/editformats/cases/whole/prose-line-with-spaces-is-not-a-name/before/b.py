import os

X = 1
Y = 2
