"""A file's text as lines, remembering its line endings and final newline so they survive edits."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Document:
    """Mutable lines of one file while a reply's edits are applied to it in memory."""

    lines: list[str] = field(default_factory=list)
    crlf: bool = False
    final_newline: bool = True
    exists: bool = True

    @classmethod
    def of(cls, text: str, exists: bool = True) -> Document:
        """Split text into lines; CRLF is folded to LF only when every line ending is CRLF."""
        crlf = "\r\n" in text and text.count("\r\n") == text.count("\n")
        if crlf:
            text = text.replace("\r\n", "\n")
        final_newline = text.endswith("\n") or not text
        lines = text.split("\n")
        if final_newline:
            lines.pop()
        return cls(lines, crlf, final_newline, exists)

    def text(self) -> str:
        """The content with the file's own line endings."""
        body = "\n".join(self.lines)
        if self.lines and self.final_newline:
            body += "\n"
        return body.replace("\n", "\r\n") if self.crlf else body


def split_lines(text: str) -> list[str]:
    """Lines of an edit's text, without line endings; a trailing newline adds no empty line."""
    text = text.replace("\r\n", "\n")
    if not text:
        return []
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines
