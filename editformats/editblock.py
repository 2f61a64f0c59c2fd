"""Reading search/replace blocks (ORIGINAL/UPDATED or SEARCH/REPLACE markers) out of a reply."""

from __future__ import annotations

import re

from editformats import fences
from editformats.edit import Edit
from editformats.errors import ReplyError

HEAD = re.compile(r"^\s*<{5,9}\s*(SEARCH|ORIGINAL|HEAD|FIND|OLD)?\b[^<>=]*$", re.IGNORECASE)
DIVIDER = re.compile(r"^\s*={5,9}\s*(?:REPLACE|UPDATED)?\s*$", re.IGNORECASE)
TAIL = re.compile(r"^\s*>{5,9}\s*(REPLACE|UPDATED|NEW)?\b[^<>=]*$", re.IGNORECASE)


def parse_blocks(text: str) -> list[Edit]:
    """Every search/replace block of the reply, with the file name each one belongs to."""
    lines = fences.prepare(text).split("\n")
    edits: list[Edit] = []
    last_path, prose_from, i = "", 0, 0
    while i < len(lines):
        if not HEAD.match(lines[i]):
            i += 1
            continue
        name = fences.filename_before(lines, i)
        mentions = fences.mentions("\n".join(lines[prose_from:i]))
        path = name or last_path
        original, i_div = _collect(lines, i + 1, DIVIDER, i)
        updated, i_end = _collect_updated(lines, i_div + 1)
        edits.append(
            Edit(
                path=path,
                original=_text(original),
                updated=_text(updated),
                index=len(edits) + 1,
                line=i + 1,
                mentions=mentions,
            )
        )
        last_path = path
        prose_from = i = i_end + 1
    return edits


def _collect(lines: list[str], start: int, stop: re.Pattern, head: int) -> tuple[list[str], int]:
    """The lines from start up to the first line matching stop, and that line's index."""
    for j in range(start, len(lines)):
        if stop.match(lines[j]):
            return lines[start:j], j
        if HEAD.match(lines[j]) or TAIL.match(lines[j]):
            break
    raise ReplyError(
        f"The block starting at line {head + 1} of your reply has no ======= line dividing the"
        f" text to find from its replacement:\n{lines[head]}\n{_excerpt(lines, head + 1)}"
    )


def _collect_updated(lines: list[str], start: int) -> tuple[list[str], int]:
    """The replacement lines and the index of the line that closes them.

    A block normally ends at '>>>>>>> REPLACE'. When that line is missing, a second '=======',
    the closing fence, the next block or the end of the reply ends it instead.
    """
    end = _next_head(lines, start)
    tail = next((j for j in range(start, end) if TAIL.match(lines[j])), None)
    second = next((j for j in range(start, tail or end) if lines[j].strip() == "======="), None)
    if second is not None:
        return lines[start:second], tail if tail is not None else second
    if tail is not None:
        return lines[start:tail], tail
    for j in range(start, end):
        if DIVIDER.match(lines[j]) or _is_fence(lines[j]):
            return lines[start:j], j
    body = lines[start:end]
    while body and not body[-1].strip():
        body.pop()
    return body, start + len(body) - 1


def _next_head(lines: list[str], start: int) -> int:
    """Where the next block begins, its file name and opening fence included."""
    for j in range(start, len(lines)):
        if HEAD.match(lines[j]):
            while j > start and _belongs_to_next(lines[j - 1]):
                j -= 1
            return j
    return len(lines)


def _belongs_to_next(line: str) -> bool:
    stripped = line.strip()
    if not stripped or _is_fence(line):
        return True
    found = fences.opener(line)
    return found is not None or fences.paths.looks_like_path(fences.paths.clean(line))


def _is_fence(line: str) -> bool:
    return fences.is_closer(line, "```") or fences.is_closer(line, "~~~")


def _text(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def _excerpt(lines: list[str], start: int, count: int = 3) -> str:
    return "\n".join(lines[start : start + count])
