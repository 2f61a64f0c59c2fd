from shapes import area, perimeter

print(area(2, 3))
print(perimeter(2, 3))
