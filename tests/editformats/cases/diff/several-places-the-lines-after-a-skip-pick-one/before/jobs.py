def start():
    log("begin")
    setup()
    run()


def stop():
    log("begin")
    teardown()
