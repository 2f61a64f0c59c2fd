def start():
    log("starting the jobs")
    setup()
    run()


def stop():
    log("begin")
    teardown()
