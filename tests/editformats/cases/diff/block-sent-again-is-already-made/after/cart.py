class Cart:
    def __init__(self):
        self.items = []

    def add(self, item, quantity=1):
        if quantity < 1:
            raise ValueError("quantity must be at least 1")
        self.items.append((item, quantity))

    def total(self):
        return round(sum(item.price * quantity for item, quantity in self.items), 2)
