"""Terminal output, rendered into strings: no mocks."""

from __future__ import annotations

import io
import re

from coder.terminal import Terminal

REPLY = (
    "Here is **the** change.\n\nhello.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n"
    ">>>>>>> REPLACE\n```\n\nDone."
)


def plain(text: str) -> list[str]:
    return [line.rstrip() for line in re.sub(r"\x1b\[[0-9;]*m", "", text).splitlines()]


def test_streamed_markdown_shows_each_line_once() -> None:
    out = io.StringIO()
    terminal = Terminal(out=out, color=True)
    terminal.start_reply()
    for start in range(0, len(REPLY), 3):
        terminal.stream(REPLY[start : start + 3])
    terminal.end_reply()
    lines = [line.strip() for line in plain(out.getvalue()) if line.strip()]
    assert lines == [
        "Here is the change.",
        "hello.py",
        "<<<<<<< SEARCH",
        "x = 1",
        "=======",
        "x = 2",
        ">>>>>>> REPLACE",
        "Done.",
    ]
    assert "**" not in out.getvalue()


def test_plain_streaming_is_the_text_itself() -> None:
    out = io.StringIO()
    terminal = Terminal(out=out)
    terminal.start_reply()
    for piece in ("Hel", "lo\nwor", "ld"):
        terminal.stream(piece)
    terminal.end_reply()
    assert out.getvalue() == "Hello\nworld\n"


def test_questions_take_yes_or_the_default() -> None:
    out = io.StringIO()
    assert Terminal(out=out, yes=True).confirm("Add a.py?") is True
    assert Terminal(out=out).confirm("Add a.py?", default=False) is False
    assert "Add a.py? yes (--yes)" in out.getvalue()


def test_colored_diff() -> None:
    out = io.StringIO()
    Terminal(out=out, color=True).diff("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n")
    assert "\x1b[31m-old\x1b[0m" in out.getvalue() and "\x1b[32m+new\x1b[0m" in out.getvalue()
