"""A file's text as lines that keep their own endings (LF or CRLF, line by line), its missing
final newline and its byte-order mark, so that a patch changes only the lines it means to."""

from __future__ import annotations

from dataclasses import dataclass

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
        lines = [p[:-1] if p.endswith("\r") else p for p in parts]
        ends = ["\r\n" if p.endswith("\r") else "\n" for p in parts]
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
        lines: list[str] = []
        ends: list[str] = []
        at = 0
        for start, end, new_lines, new_ends in changes:
            lines += self.lines[at:start] + new_lines
            ends += self.ends[at:start] + new_ends
            at = end
        lines += self.lines[at:]
        ends += self.ends[at:]
        newline = self.newline()
        for i in range(len(ends) - 1):
            ends[i] = ends[i] or newline
        if ends:
            ends[-1] = (ends[-1] or newline) if self.final_newline() else ""
        return FileText(lines, ends, self.bom)
