a = 1
b = 20
bb = 21
c = 3
