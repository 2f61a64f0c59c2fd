def running_total(numbers):
    totals = []
    total = 0
    for number in numbers:
        total += number
        totals.append(total)
    return totals
