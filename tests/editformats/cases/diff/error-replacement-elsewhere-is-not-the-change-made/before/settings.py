retries = 3
name = "x"
timeout = 60
