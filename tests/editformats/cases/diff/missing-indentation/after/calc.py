class C:
    def f(self):
        if self:
            return 2
        if not self:
            return 3
        return 0
