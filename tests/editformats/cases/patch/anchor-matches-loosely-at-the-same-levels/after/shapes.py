class Square:
    def area(self):
        return self.side * self.side

    def name(self):
        return 'square'


class Circle:
    def area(self):
        return 3.14 * self.r * self.r

    def name(self):
        return 'disc'
