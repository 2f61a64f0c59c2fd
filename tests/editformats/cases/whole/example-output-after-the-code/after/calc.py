def double(x):
    return x + x


print(double(21))
