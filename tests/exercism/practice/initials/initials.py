def initials(name):
    pass
