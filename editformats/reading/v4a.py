"""Reading OpenAI's V4A patches (the input of Codex CLI's apply_patch): the file operations in
the envelopes of a reply (envelopes.py), one Edit per operation, each Update's chunks with
their @@ anchors. Linear in the reply's size."""

from __future__ import annotations

import re

from editformats.edit import Chunk, Edit, check_count
from editformats.errors import ReplyError
from editformats.reading.envelopes import (
    ADD,
    BEGIN,
    DELETE,
    END,
    END_OF_FILE,
    MOVE,
    OPERATIONS,
    UPDATE,
    bodies,
    marker,
    shown,
)

_HUNK_HEADER = re.compile(r"@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@(.*)")
"""A unified diff's hunk header, which some models write instead of a bare @@."""
_ABSOLUTE = re.compile(r"^(?:[/\\~]|[A-Za-z]:[/\\])")


def parse(text: str, call: int = -1, first: int = 1) -> list[Edit]:
    """The file operations of every patch envelope in text, in order, numbered from first.

    An envelope never closed means the text was cut off (TruncatedReply); a file operation
    outside any envelope, or a line no patch can hold, is a ReplyError naming its line.
    """
    edits: list[Edit] = []
    for first_line, body in bodies(text):
        found = _Sections(body, first_line, call, first + len(edits)).read()
        if not found:
            raise ReplyError(
                f"The patch at line {first_line - 1} holds no file operation: put *** Add File:,"
                " *** Delete File: or *** Update File: sections between *** Begin Patch and"
                " *** End Patch."
            )
        edits.extend(found)
    return edits


def _padded_marker(line: str) -> bool:
    """True for a line led by a space that, trimmed, is a marker that ends a chunk (not the
    envelope's own: those stand where envelopes.envelopes found them)."""
    return "***" in line and marker(line) not in (None, BEGIN, END)


def _argument(line: str, found: str) -> str:
    return line.strip()[len(found) :].strip()


def _empty(line: str) -> bool:
    """True for a line that holds nothing a patch line can start with: a separator."""
    return not line.strip() and not line.startswith(" ")


class _Sections:
    """The file operations of one envelope's body: a small state machine over its lines."""

    def __init__(self, body: list[str], first_line: int, call: int, index: int):
        self.body = body
        self.first_line = first_line
        """The reply's line number (from 1) of body[0]."""
        self.call = call
        self.index = index
        self.edits: list[Edit] = []

    def read(self) -> list[Edit]:
        i = 0
        while i < len(self.body):
            line = self.body[i]
            kind = marker(line)
            if not line.strip():
                i += 1
            elif kind == ADD:
                i = self._add(i)
            elif kind == DELETE:
                self._edit(i, "", delete=True)
                i += 1
            elif kind == UPDATE:
                i = self._update(i)
            else:
                raise ReplyError(self._unexpected(i, "is not a file operation"))
        return self.edits

    def _edit(self, i: int, text: str, **fields) -> None:
        path = self._path(i)
        check_count(self.index + len(self.edits))
        number = self.index + len(self.edits)
        line = self.first_line + i
        self.edits.append(Edit(path, "", text, index=number, line=line, call=self.call, **fields))

    def _path(self, i: int, kind: str = "") -> str:
        kind = kind or marker(self.body[i]) or ""
        path = _argument(self.body[i], kind)
        where = f"Line {self.first_line + i} of your reply, {shown(self.body[i])},"
        if not path:
            raise ReplyError(f"{where} names no file: write the path after '{kind}'.")
        if _ABSOLUTE.match(path):
            raise ReplyError(
                f"{where} names an absolute path. Paths in a patch are relative to the"
                " repository's root, as the files in the chat are named."
            )
        return path

    def _add(self, i: int) -> int:
        """An Add File section: the lines after it that start with '+' are the new file's
        (empty lines between them are empty lines of the file)."""
        content: list[str] = []
        j = i + 1
        while j < len(self.body):
            line = self.body[j]
            if line.startswith("+"):
                content.append(line[1:])
                j += 1
                continue
            k = j
            while k < len(self.body) and _empty(self.body[k]):
                k += 1
            if k == j or k == len(self.body) or not self.body[k].startswith("+"):
                break
            content.extend([""] * (k - j))
            j = k
        k = j
        while k < len(self.body) and not self.body[k].strip():
            k += 1
        if k < len(self.body) and marker(self.body[k]) not in OPERATIONS:
            raise ReplyError(
                self._unexpected(k, "is inside *** Add File:, where every line starts with '+'")
            )
        self._edit(i, "".join(c + "\n" for c in content), new_file=True)
        return j

    def _update(self, i: int) -> int:
        """An Update File section: an optional Move to, then chunks, each led by @@ lines."""
        j = i + 1
        while j < len(self.body) and not self.body[j].strip():
            j += 1
        move = ""
        if j < len(self.body) and marker(self.body[j]) == MOVE:
            move = self._path(j, MOVE)
            j += 1
        chunks, j = _Chunks(self, j).read()
        if not chunks and not move:
            raise ReplyError(
                f"*** Update File: at line {self.first_line + i} holds no chunk: write the"
                " lines to change after it, each chunk led by an @@ line."
            )
        self._edit(i, "", chunks=tuple(chunks), move_to=move)
        return j

    def _unexpected(self, i: int, why: str) -> str:
        if marker(self.body[i]) == END:
            last = self.first_line + len(self.body)
            why = f"ends the patch before its last *** End Patch line (line {last})"
        return (
            f"Line {self.first_line + i} of your reply, {shown(self.body[i])}, {why}. A patch"
            " holds *** Add File:, *** Delete File: and *** Update File: sections; in an update,"
            " every line of a chunk starts with ' ' (kept), '-' (removed) or '+' (added)."
        )


class _Chunks:
    """The chunks of one Update File section, from line start of the envelope's body."""

    def __init__(self, sections: _Sections, start: int):
        self.s = sections
        self.j = start
        self.chunks: list[Chunk] = []
        self.lines: list[str] = []
        self.anchors: list[str] = []
        self.opened = -1
        """Where the chunk being read starts (its first @@ or content line); -1: none yet."""
        self.empties = 0
        """Empty lines read since the last content line: context if a content line follows."""

    def read(self) -> tuple[list[Chunk], int]:
        body = self.s.body
        j, lines = self.j, self.lines
        while j < len(body):
            line = body[j]
            first = line[:1]
            if first == "-" or first == "+" or (first == " " and not _padded_marker(line)):
                if self.empties or self.opened < 0:
                    self._open(j)
                lines.append(line)
                j += 1
                continue
            self.j = j
            if first == "@" and line.startswith("@@"):
                self._anchor(line)
            elif _empty(line):
                self.empties += 1 if self.opened >= 0 else 0
            else:
                kind = marker(line)
                if kind in OPERATIONS:
                    break
                if kind == MOVE:
                    raise ReplyError(self.s._unexpected(j, "must come right after Update File"))
                if kind != END_OF_FILE:
                    raise ReplyError(self.s._unexpected(j, "cannot stand in a chunk"))
                self._close(at_end=True)
            j, lines = j + 1, self.lines
        self.j = j
        self._close()
        if self.anchors:
            raise ReplyError(self._no_lines())
        return self.chunks, self.j

    def _open(self, j: int) -> None:
        """A content line at j: the chunk starts here if it has not, and the empty lines
        since the last content line are its own."""
        if self.opened < 0:
            self.opened = j
        self.lines += [" "] * self.empties
        self.empties = 0

    def _anchor(self, line: str) -> None:
        if self.lines:
            self._close()
        if self.opened < 0:
            self.opened = self.j
        self.empties = 0
        text = line[2:]
        header = _HUNK_HEADER.fullmatch(line.rstrip()) if line.startswith("@@ -") else None
        if header:
            text = header.group(1)
        elif text.rstrip().endswith("@@"):
            text = text.rstrip()[:-2]
        text = text[1:] if text.startswith(" ") else text
        if text.strip():
            self.anchors.append(text.rstrip())

    def _close(self, at_end: bool = False) -> None:
        """End the chunk being read; at *** End of File, empty lines before it are its own."""
        if at_end:
            if not self.lines:
                raise ReplyError(self.s._unexpected(self.j, "closes no chunk"))
            self.lines.extend([" "] * self.empties)
        if self.lines:
            start = self.s.first_line + self.opened
            chunk = Chunk(tuple(self.lines), tuple(self.anchors), at_end, start)
            self.chunks.append(chunk)
            self.anchors = []
        self.lines, self.empties = [], 0
        self.opened = -1 if not self.anchors else self.opened

    def _no_lines(self) -> str:
        return (
            f"The @@ line at line {self.s.first_line + self.opened} of your reply has no chunk"
            " below it: after the @@ lines come the chunk's lines, each starting with ' ', '-'"
            " or '+'."
        )
