"""The one place that talks to the terminal: output, streamed replies, diffs and questions."""

from __future__ import annotations

import sys
from typing import TextIO


class Terminal:
    """Output for the user, and yes/no questions.

    Colors only when asked for (a terminal without NO_COLOR). With yes, every question is
    answered yes; without a terminal to ask on, questions take their default.
    """

    def __init__(
        self,
        out: TextIO | None = None,
        err: TextIO | None = None,
        color: bool = False,
        yes: bool = False,
        interactive: bool = False,
    ):
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.color = color
        self.yes = yes
        self.interactive = interactive
        self._streaming = False

    def say(self, text: str) -> None:
        """A line of normal output."""
        print(text, file=self.out, flush=True)

    def error(self, text: str) -> None:
        """A problem the user must know about."""
        print(self._paint(text, "31"), file=self.err, flush=True)

    def start_reply(self) -> None:
        """A model's reply begins streaming."""
        self._streaming = True

    def stream(self, text: str) -> None:
        """A piece of a streaming reply, printed once as it arrives."""
        self.out.write(text)
        self.out.flush()

    def end_reply(self) -> None:
        """The reply is complete (or was cut off): end its last line."""
        if self._streaming:
            self.out.write("\n")
            self.out.flush()
        self._streaming = False

    def diff(self, text: str) -> None:
        """A unified diff, colored when colors are on."""
        if not self.color:
            self.out.write(text)
            self.out.flush()
            return
        for line in text.splitlines():
            code = {"+": "32", "-": "31", "@": "36"}.get(line[:1], "")
            if line.startswith(("+++", "---")):
                code = "1"
            print(self._paint(line, code) if code else line, file=self.out)
        self.out.flush()

    def confirm(self, question: str, default: bool = False) -> bool:
        """Ask a yes/no question; --yes answers yes, and without a terminal the default wins."""
        if self.yes:
            self.say(f"{question} yes (--yes)")
            return True
        if not self.interactive:
            self.say(f"{question} {'yes' if default else 'no'} (not a terminal)")
            return default
        hint = "[Y/n]" if default else "[y/N]"
        try:
            answer = input(f"{question} {hint} ").strip().lower()
        except EOFError:
            return default
        return default if not answer else answer in ("y", "yes")

    def _paint(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.color else text
