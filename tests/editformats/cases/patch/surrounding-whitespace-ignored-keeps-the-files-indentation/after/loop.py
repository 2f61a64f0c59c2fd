for i in range(3):
	if i:
		print(i * 2)
	done(i)
