def report(items):
    total = 0
    for item in items:
        total += item.price * item.quantity
    print("The total price of all items in the basket is", total)
    return total
