"""Reading search/replace blocks (ORIGINAL/UPDATED or SEARCH/REPLACE markers) out of a reply.

A block is a head line (<<<<<<< SEARCH), the text to find, a divider (=======), the
replacement, and a tail (>>>>>>> REPLACE). A second divider also ends the replacement; when
both are missing, the closing fence does. A block that runs into the next one is an error, and
one that runs to the end of the reply was cut off. One pass over the lines, in order.
"""

from __future__ import annotations

import re

from editformats import fences
from editformats.edit import Edit, check_count
from editformats.errors import ReplyError, truncated

HEAD = re.compile(r"^\s*<{5,9}\s*(SEARCH|ORIGINAL|HEAD|FIND|OLD)?\b[^<>=]*$", re.IGNORECASE)
DIVIDER = re.compile(r"^\s*={5,9}\s*(?:REPLACE|UPDATED)?\s*$", re.IGNORECASE)
TAIL = re.compile(r"^\s*>{5,9}\s*(REPLACE|UPDATED|NEW)?\b[^<>=]*$", re.IGNORECASE)


def parse_blocks(text: str) -> list[Edit]:
    """Every search/replace block of the reply, with the file name each one belongs to.

    TruncatedReply when the reply ends inside a block, or inside a fence that holds no block
    yet (it was cut off right before one).
    """
    lines = fences.prepare(text).split("\n")
    edits: list[Edit] = []
    last_path, prose_from, i = "", 0, 0
    fence, fence_line = "", 0
    while i < len(lines):
        line = lines[i]
        if not _is_head(line):
            if fence and fences.is_closer(line, fence):
                fence = ""
            elif not fence and (found := fences.opener(line)):
                fence, fence_line = found[0], i
            i += 1
            continue
        path = fences.filename_before(lines, i) or last_path
        mentions = () if path else fences.mentions("\n".join(lines[prose_from:i]))
        number = len(edits) + 1
        check_count(number)
        divider = _divider(lines, i, number)
        stop, end = _end(lines, divider + 1, number)
        edits.append(
            Edit(
                path=path,
                original=_text(lines[i + 1 : divider]),
                updated=_text(lines[divider + 1 : stop]),
                index=number,
                line=i + 1,
                mentions=mentions,
            )
        )
        if fence and fences.is_closer(lines[end], fence):
            fence = ""
        last_path = path
        prose_from = i = end + 1
    if fence and not _holds_block(fence_line, edits):
        raise truncated(f"the fence opened at line {fence_line + 1}")
    return edits


def _holds_block(fence_line: int, edits: list[Edit]) -> bool:
    """True when a block started after the fence opened (its closing fence may be left out)."""
    return bool(edits) and edits[-1].line > fence_line


def _is_head(line: str) -> bool:
    return "<<<<<" in line and HEAD.match(line) is not None


def _is_tail(line: str) -> bool:
    return ">>>>>" in line and TAIL.match(line) is not None


def _is_divider(line: str) -> bool:
    return "=====" in line and DIVIDER.match(line) is not None


def _divider(lines: list[str], head: int, number: int) -> int:
    """The index of the divider of the block starting at head."""
    for j in range(head + 1, len(lines)):
        if _is_divider(lines[j]):
            return j
        if _is_head(lines[j]) or _is_tail(lines[j]):
            raise ReplyError(
                f"Block {number}, starting at line {head + 1} of your reply, has no ======= line"
                f" dividing the text to find from its replacement:\n{_excerpt(lines, head)}"
            )
    raise truncated(f"block {number} (line {head + 1}), before its ======= line")


def _end(lines: list[str], start: int, number: int) -> tuple[int, int]:
    """Where the replacement starting at start stops, and the line that closes its block.

    A second divider stops the replacement as a tail would (as other tools read it); the
    block then closes at its tail, when one follows before the next block.
    """
    fence = None
    for j in range(start, len(lines)):
        line = lines[j]
        if _is_tail(line):
            return j, j
        if _is_divider(line):
            return j, _tail_after(lines, j + 1)
        if _is_head(line):
            if fence is not None:
                return fence, fence
            raise ReplyError(
                f"Block {number} has no >>>>>>> REPLACE line: the next block starts at line"
                f" {j + 1} of your reply before it ended. End every block with >>>>>>> REPLACE."
            )
        if fence is None and fences.is_fence_line(line):
            fence = j
    if fence is not None:
        return fence, fence
    raise truncated(f"block {number}, before its >>>>>>> REPLACE line")


def _tail_after(lines: list[str], start: int) -> int:
    """The tail closing a block whose replacement a second divider stopped, or the divider."""
    for j in range(start, len(lines)):
        if _is_tail(lines[j]):
            return j
        if _is_head(lines[j]) or fences.is_fence_line(lines[j]):
            break
    return start - 1


def _text(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def _excerpt(lines: list[str], start: int, count: int = 3) -> str:
    shown = [line[:200] for line in lines[start : start + count]]
    return "\n".join(shown)
