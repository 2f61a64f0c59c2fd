def on_open(event):
    if event is None or event.closed or not event.ok:
        return None
    handle(event)
    return True


def on_close(event):
    if not event.ok:
        raise EventError(event)
    handle(event)
    return True
