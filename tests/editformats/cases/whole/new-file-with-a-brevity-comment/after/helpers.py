def clamp(value, low, high):
    # Error handling is left out for brevity: the callers check their input.
    return max(low, min(value, high))
