class Square:
    def area(self):
        return self.side * self.side

    def name(self):
        return 'square'


class Circle:
    def area(self):
        return math.pi * self.r ** 2

    def name(self):
        return 'circle'
