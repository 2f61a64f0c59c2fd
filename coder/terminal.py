"""The one place that writes to the terminal: plain text, errors, and colored diffs."""

from __future__ import annotations

import sys
from typing import TextIO


class Terminal:
    """Output for the user; colors only on a terminal and when NO_COLOR is not set."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None, color: bool = False):
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.color = color

    def say(self, text: str) -> None:
        """A line of normal output."""
        print(text, file=self.out, flush=True)

    def error(self, text: str) -> None:
        """A problem the user must know about."""
        print(self._paint(text, "31"), file=self.err, flush=True)

    def diff(self, text: str) -> None:
        """A unified diff, colored when the output is a terminal."""
        if not self.color:
            self.out.write(text)
            return
        for line in text.splitlines():
            code = {"+": "32", "-": "31", "@": "36"}.get(line[:1], "")
            if line.startswith(("+++", "---")):
                code = "1"
            print(self._paint(line, code) if code else line, file=self.out)
        self.out.flush()

    def _paint(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.color else text
