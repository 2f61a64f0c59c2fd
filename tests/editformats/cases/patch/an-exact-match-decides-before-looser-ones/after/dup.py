  value = 1
value = 2
