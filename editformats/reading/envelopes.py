"""Where a reply's V4A patches stand: the envelopes (*** Begin Patch to *** End Patch) it holds,
bare, in a fence, in a heredoc or with prose around them, and the patch's markers, recognised
after trimming. Every line is looked at a bounded number of times."""

from __future__ import annotations

import bisect

from editformats.edit import check_count
from editformats.errors import ReplyError, truncated
from editformats.reading import fences

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File:"
DELETE = "*** Delete File:"
UPDATE = "*** Update File:"
MOVE = "*** Move to:"
END_OF_FILE = "*** End of File"
OPERATIONS = (ADD, DELETE, UPDATE)
_NAMED = (*OPERATIONS, MOVE)


def bodies(text: str) -> list[tuple[int, list[str]]]:
    """The lines inside each envelope of text, with the line number (from 1) of the first of
    them; an envelope written out twice counts once.

    An envelope never closed means the text was cut off (TruncatedReply); a patch marker
    outside every envelope is a ReplyError naming its line.
    """
    lines = fences.prepare(text).split("\n")
    found = envelopes(lines)
    _check_outside(lines, found)
    seen: set[tuple[str, ...]] = set()
    result = []
    for begin, end in found:
        body = _dedented(lines, begin, end)
        if tuple(body) not in seen:  # the same patch written out twice is one patch
            seen.add(tuple(body))
            result.append((begin + 2, body))
    return result


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
        if "***" in line and line[:1] in ("*", " ", "\t") and marker(line) is not None:
            raise ReplyError(
                f"Line {i + 1} of your reply, {shown(line)}, stands outside any patch: every"
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


def marker(line: str) -> str | None:
    """The patch marker a line holds after trimming, or None."""
    text = line.strip()
    if not text.startswith("***"):
        return None
    if text in (BEGIN, END, END_OF_FILE):
        return text
    return next((m for m in _NAMED if text.startswith(m)), None)


def shown(line: str) -> str:
    """A line of the reply as a message quotes it."""
    return repr(line if len(line) <= 120 else line[:117] + "...")
