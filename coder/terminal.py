"""The one place that talks to the terminal: output, streamed replies, diffs and questions."""

from __future__ import annotations

import re
import sys
from typing import TextIO

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Control characters (escape sequences among them) that text from a model or a file could
use to rewrite the user's terminal; tabs and newlines stay."""


def printable(text: str) -> str:
    """text safe to show: control characters removed, and anything the output cannot encode
    (a lone surrogate from a reply's JSON, say) replaced."""
    text = _CONTROL.sub("", text)
    return text.encode("utf-8", "replace").decode("utf-8")


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
        self._markdown: _MarkdownStream | None = None

    def say(self, text: str) -> None:
        """A line of normal output."""
        print(printable(text), file=self.out, flush=True)

    def error(self, text: str) -> None:
        """A problem the user must know about."""
        print(self._paint(printable(text), "31"), file=self.err, flush=True)

    def start_reply(self) -> None:
        """A model's reply begins streaming."""
        self._streaming = True
        self._markdown = _MarkdownStream(self.out) if self.color else None

    def stream(self, text: str) -> None:
        """A piece of a streaming reply. With colors it is shown as markdown one finished
        block at a time, so that nothing printed is ever printed again."""
        text = printable(text)
        if self._markdown is not None:
            self._markdown.feed(text)
            return
        self.out.write(text)
        self.out.flush()

    def end_reply(self) -> None:
        """The reply is complete (or was cut off): show the rest and end its last line."""
        if self._markdown is not None:
            self._markdown.close()
        elif self._streaming:
            self.out.write("\n")
            self.out.flush()
        self._streaming = False
        self._markdown = None

    def diff(self, text: str) -> None:
        """A unified diff, colored when colors are on."""
        text = printable(text)
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

    def table(self, title: str, columns: list[str], rows: list[list[str]]) -> None:
        """A table: drawn by rich with colors, aligned plain text without."""
        if self.color:
            from rich.console import Console
            from rich.table import Table

            table = Table(*columns, title=title, title_justify="left")
            for row in rows:
                table.add_row(*row)
            Console(file=self.out, highlight=False).print(table)
            return
        widths = [max(len(r[i]) for r in [columns, *rows]) for i in range(len(columns))]
        self.say(title)
        for row in [columns, *rows]:
            self.say("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())

    def confirm(self, question: str, default: bool = False) -> bool:
        """Ask a yes/no question; --yes answers yes, and without a terminal the default wins."""
        question = printable(question)
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


class _MarkdownStream:
    """Renders streamed markdown with rich, each block once it can no longer change: a
    paragraph at its blank line, a code block at its closing fence."""

    def __init__(self, out: TextIO):
        from rich.console import Console

        self.console = Console(file=out, highlight=False)
        self.lines: list[str] = []
        self.partial = ""
        self.fence: str | None = None

    def feed(self, text: str) -> None:
        self.partial += text
        while "\n" in self.partial:
            line, self.partial = self.partial.split("\n", 1)
            self.lines.append(line)
            if self._ends_block(line):
                self._render(self.lines)
                self.lines = []

    def close(self) -> None:
        self._render(self.lines + [self.partial])
        self.lines, self.partial = [], ""

    def _ends_block(self, line: str) -> bool:
        stripped = line.strip()
        if self.fence is None:
            if stripped.startswith(("```", "~~~")):
                self.fence = stripped[:3]
                return False
            return not stripped
        if stripped == self.fence or (stripped.startswith(self.fence) and not stripped[3:].strip()):
            self.fence = None
            return True
        return False

    def _render(self, lines: list[str]) -> None:
        from rich.markdown import Markdown

        text = "\n".join(lines).strip("\n")
        if text.strip():
            self.console.print(Markdown(text, code_theme="monokai"))
            self.console.print()
