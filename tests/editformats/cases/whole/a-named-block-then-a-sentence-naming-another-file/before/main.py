from shapes import area

print(area(2, 3))
