class C:
    def f(self):
        if self:
            return 1
        return 0
