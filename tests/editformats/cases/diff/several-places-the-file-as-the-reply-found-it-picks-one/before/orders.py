def report(orders):
    total = 0
    for order in orders:
        total += order.price * order.quantity
    print(f"total: {total}")


def invoice(orders):
    print("invoice")
