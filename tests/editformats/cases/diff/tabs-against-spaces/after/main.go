func main() {
	if ok {
		run()
		stop()
	}
}
