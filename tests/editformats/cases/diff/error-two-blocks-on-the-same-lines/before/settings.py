limit = 1
retries = 2
timeout = 3
