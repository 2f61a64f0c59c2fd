def initials(name):
    words = name.replace("-", " ").split()
    return "".join(word[0].upper() for word in words)
