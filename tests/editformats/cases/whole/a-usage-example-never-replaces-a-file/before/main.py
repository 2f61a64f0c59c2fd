import app


def main():
    app.run()
