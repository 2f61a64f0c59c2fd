def area(w, h):
    """The area of a w by h rectangle."""
    return w * h


def perimeter(w, h):
    return 2 * (w + h)
