"""Reading OpenAI's V4A patches (the input of Codex CLI's apply_patch): every envelope a reply
holds, wherever it stands (bare, in a fence, in a heredoc, with prose around it), and the file
operations inside them, one Edit per operation.

Markers are recognised after trimming. A line of the reply is looked at a bounded number of
times, so reading is linear in the reply's size.
"""

from __future__ import annotations

import bisect
import re

from editformats.edit import Chunk, Edit, check_count
from editformats.errors import ReplyError, truncated
from editformats.reading import fences

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File:"
DELETE = "*** Delete File:"
UPDATE = "*** Update File:"
MOVE = "*** Move to:"
END_OF_FILE = "*** End of File"
_OPERATIONS = (ADD, DELETE, UPDATE)
_NAMED = (*_OPERATIONS, MOVE)
_HUNK_HEADER = re.compile(r"@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@(.*)")
"""A unified diff's hunk header, which some models write instead of a bare @@."""
_ABSOLUTE = re.compile(r"^(?:[/\\~]|[A-Za-z]:[/\\])")


def parse(text: str, call: int = -1, first: int = 1) -> list[Edit]:
    """The file operations of every patch envelope in text, in order, numbered from first.

    An envelope never closed means the text was cut off (TruncatedReply); a file operation
    outside any envelope, or a line no patch can hold, is a ReplyError naming its line.
    """
    lines = fences.prepare(text).split("\n")
    found = envelopes(lines)
    _check_outside(lines, found)
    edits: list[Edit] = []
    seen: set[tuple[str, ...]] = set()
    for begin, end in found:
        body = _dedented(lines, begin, end)
        if tuple(body) in seen:
            continue  # the same patch written out twice is one patch
        seen.add(tuple(body))
        before = len(edits)
        edits.extend(_Sections(body, begin + 2, call, first + len(edits)).read())
        if len(edits) == before:
            raise ReplyError(
                f"The patch at line {begin + 1} holds no file operation: put *** Add File:,"
                " *** Delete File: or *** Update File: sections between *** Begin Patch and"
                " *** End Patch."
            )
    return edits


def envelopes(lines: list[str]) -> list[tuple[int, int]]:
    """(begin, end) line indexes of each envelope: from a *** Begin Patch line to the last
    *** End Patch line before the next envelope's (so that a file's own line reading *** End
    Patch, kept as context, does not end it early). A *** Begin Patch line led by a space with
    no *** End Patch above it since the last one is a file's own, kept as context."""
    begins = [i for i, line in enumerate(lines) if "Begin" in line and _is(line, BEGIN)]
    check_count(len(begins))  # every envelope holds an operation at least
    ends = [i for i, line in enumerate(lines) if "End" in line and _is(line, END)]
    found = []
    for n, begin in enumerate(begins):
        if found and begin <= found[-1][1]:
            continue  # a file's own line, inside the envelope before
        following = (begins[k] for k in range(n + 1, len(begins)))
        limit = next((b for b in following if not _inside(lines, b, begin, ends)), len(lines))
        end = _last(ends, begin, limit)
        if end is None:
            raise truncated(f"the patch opened at line {begin + 1} (no *** End Patch follows)")
        found.append((begin, end))
    return found


def _inside(lines: list[str], at: int, begin: int, ends: list[int]) -> bool:
    """True when the *** Begin Patch line at `at` is content of the envelope opened at begin:
    led by a space, with no *** End Patch between them."""
    return lines[at][:1] == " " and _last(ends, begin, at) is None


def _last(ends: list[int], after: int, before: int) -> int | None:
    """The last of ends between after and before (both excluded), or None."""
    k = bisect.bisect_left(ends, before) - 1
    return ends[k] if k >= 0 and ends[k] > after else None


def _is(line: str, marker: str) -> bool:
    return line[:1] in ("*", " ", "\t") and line.strip() == marker


def _check_outside(lines: list[str], found: list[tuple[int, int]]) -> None:
    """ReplyError for a patch marker outside every envelope: a section whose *** Begin Patch
    is missing would otherwise be taken for prose and silently dropped."""
    outside = []
    after = 0
    for begin, end in [*found, (len(lines), len(lines))]:
        outside.append(range(after, begin))
        after = end + 1
    for i in (i for span in outside for i in span):
        line = lines[i]
        if "***" in line and line[:1] in ("*", " ", "\t") and _marker(line) is not None:
            raise ReplyError(
                f"Line {i + 1} of your reply, {_shown(line)}, stands outside any patch: every"
                " file operation goes between a *** Begin Patch line and an *** End Patch line."
            )


def _dedented(lines: list[str], begin: int, end: int) -> list[str]:
    """The lines between the envelope's markers, without the indentation of the whole envelope
    when it is indented as one (in a list item, say)."""
    body = lines[begin + 1 : end]
    indent = lines[begin][: len(lines[begin]) - len(lines[begin].lstrip())]
    if not indent or not lines[end].startswith(indent):
        return body
    head = next((line for line in body if line.strip()), "")
    aligned = head.startswith(indent) and head[len(indent) :].startswith("***")
    if aligned and all(line.startswith(indent) for line in body if line.strip()):
        return [line[len(indent) :] for line in body]
    return body


def _marker(line: str) -> str | None:
    """The patch marker a line holds after trimming, or None."""
    text = line.strip()
    if not text.startswith("***"):
        return None
    if text in (BEGIN, END, END_OF_FILE):
        return text
    return next((m for m in _NAMED if text.startswith(m)), None)


def _padded_marker(line: str) -> bool:
    """True for a line led by a space that, trimmed, is a marker that ends a chunk (not the
    envelope's own: those stand where envelopes() found them)."""
    return "***" in line and _marker(line) not in (None, BEGIN, END)


def _argument(line: str, marker: str) -> str:
    return line.strip()[len(marker) :].strip()


def _empty(line: str) -> bool:
    """True for a line that holds nothing a patch line can start with: a separator."""
    return not line.strip() and not line.startswith(" ")


def _shown(line: str) -> str:
    return repr(line if len(line) <= 120 else line[:117] + "...")


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
            marker = _marker(line)
            if not line.strip():
                i += 1
            elif marker == ADD:
                i = self._add(i)
            elif marker == DELETE:
                self._edit(i, "", delete=True)
                i += 1
            elif marker == UPDATE:
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

    def _path(self, i: int, marker: str = "") -> str:
        marker = marker or _marker(self.body[i]) or ""
        path = _argument(self.body[i], marker)
        where = f"Line {self.first_line + i} of your reply, {_shown(self.body[i])},"
        if not path:
            raise ReplyError(f"{where} names no file: write the path after '{marker}'.")
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
        if k < len(self.body) and _marker(self.body[k]) not in _OPERATIONS:
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
        if j < len(self.body) and _marker(self.body[j]) == MOVE:
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
        return (
            f"Line {self.first_line + i} of your reply, {_shown(self.body[i])}, {why}. A patch"
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
                marker = _marker(line)
                if marker in _OPERATIONS:
                    break
                if marker == MOVE:
                    raise ReplyError(self.s._unexpected(j, "must come right after Update File"))
                if marker != END_OF_FILE:
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
