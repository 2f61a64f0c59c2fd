def report(orders):
    total = order_total(orders)
    print(f"total: {total}")


def order_total(orders):
    total = 0
    for order in orders:
        total += order.price * order.quantity
    return total


def invoice(orders):
    print("invoice")
