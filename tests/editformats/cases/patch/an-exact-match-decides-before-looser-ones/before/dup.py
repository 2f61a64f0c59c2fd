  value = 1
value = 1
