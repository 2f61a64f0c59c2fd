"""A file's text as lines that keep their own endings (LF or CRLF, line by line), its missing
final newline and its byte-order mark, so that a patch changes only the lines it means to."""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass
from itertools import chain

BOM = "\ufeff"


@dataclass
class FileText:
    """The lines of a file without their endings, and each line's ending apart."""

    lines: list[str]
    ends: list[str]
    """Each line's ending: "\\n", "\\r\\n", or "" for a last line without one."""
    bom: str = ""

    @classmethod
    def of(cls, text: str) -> FileText:
        """Split text into lines on LF only (a CR before it belongs to the ending)."""
        bom = BOM if text.startswith(BOM) else ""
        parts = text[len(bom) :].split("\n")
        last = parts.pop()
        if "\r" in text:
            lines = [p[:-1] if p.endswith("\r") else p for p in parts]
            ends = ["\r\n" if p.endswith("\r") else "\n" for p in parts]
        else:
            lines, ends = parts, ["\n"] * len(parts)
        if last:
            lines.append(last)
            ends.append("")
        return cls(lines, ends, bom)

    def text(self) -> str:
        """The text, every line with its own ending."""
        return self.bom + "".join(map(str.__add__, self.lines, self.ends))

    def newline(self) -> str:
        """The ending new lines take: the first line's, LF when it has none."""
        return self.ends[0] if self.ends and self.ends[0] else "\n"

    def final_newline(self) -> bool:
        """True when the text ends with a line ending (or is empty)."""
        return not self.ends or bool(self.ends[-1])

    def replaced(self, changes: list[tuple[int, int, list[str], list[str]]]) -> FileText:
        """A new text with each (start, end, lines, ends) change made, the changes given in
        order and not overlapping; the text keeps its final newline, or its lack of one."""
        line_parts: list[list[str]] = []
        end_parts: list[list[str]] = []
        at = 0
        for start, end, new_lines, new_ends in changes:
            line_parts += (self.lines[at:start], new_lines)
            end_parts += (self.ends[at:start], new_ends)
            at = end
        line_parts.append(self.lines[at:])
        end_parts.append(self.ends[at:])
        lines = list(chain.from_iterable(line_parts))
        ends = list(chain.from_iterable(end_parts))
        newline = self.newline()
        if not self.final_newline() and len(ends) > 1:
            # The old last line, which has no ending, may no longer be last.
            with suppress(ValueError):
                ends[ends.index("", 0, len(ends) - 1)] = newline
        if ends:
            ends[-1] = (ends[-1] or newline) if self.final_newline() else ""
        return FileText(lines, ends, self.bom)
