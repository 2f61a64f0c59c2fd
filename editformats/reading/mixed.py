"""Edits a reply writes in another format than the one asked for.

A reply sometimes holds, beside its own edits, edits in another format: a V4A patch beside
search/replace blocks, whole files or unified diffs; search/replace blocks or whole files
beside a patch. Reading only the format asked for would drop the others without a word; reading
both could make one change twice (a draft in one format, the final edit in the other) or read
a file shown for reference as a new version of it. So such a reply is refused whole, and the
message names what was read where and how to write it all in the format asked for: the reply's
edits apply all or none.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from editformats.edit import Edit
from editformats.errors import ReplyError
from editformats.reading import editblock, envelopes, fences

MAX_NAMED = 5
"""Files named, and lines given, in a message per kind of edit; more are only counted."""


@dataclass(frozen=True)
class Syntax:
    """How a format's edits are called in a message, and how the model is told to write a
    change in it."""

    format: str
    edit: str
    """What one edit is called, as in "search/replace block"."""
    how: str
    """How to write every change, as in "as a search/replace block"."""


@dataclass(frozen=True)
class Foreign:
    """An edit of another format found in a reply."""

    kind: str
    """"patch", "block" (search/replace) or "file" (a whole file in a named fence)."""
    line: int
    """Where it starts in the reply, from 1."""
    paths: tuple[str, ...] = ()
    """The files it names."""


_KINDS = {"patch": "V4A patch", "block": "search/replace block", "file": "whole file"}
_PLURAL = {"V4A patch": "es", "search/replace block": "s", "whole file": "s"}


def may_hold_patch(text: str) -> bool:
    """False when text cannot hold a V4A patch: a look in C."""
    return envelopes.BEGIN in text


def holds_patch(lines: list[str]) -> bool:
    """True when the lines hold a V4A patch (as patches() finds them)."""
    return bool(patches(lines))


def patches(lines: list[str]) -> list[Foreign]:
    """The V4A patches of a reply's lines (prepared): a *** Begin Patch line at the start of a
    line, a file operation the next line that is not blank. Only the lines holding the marker
    are looked at one by one (found in the joined text, in C)."""
    text = "\n".join(lines)
    found = []
    at, line, counted = text.find(envelopes.BEGIN), 0, 0
    while at != -1:
        line += text.count("\n", counted, at)
        counted = at
        if lines[line].startswith(envelopes.BEGIN) and lines[line].strip() == envelopes.BEGIN:
            following = next((k for k in range(line + 1, len(lines)) if lines[k].strip()), None)
            if following is not None and envelopes.marker(lines[following]) in envelopes.OPERATIONS:
                found.append(Foreign("patch", line + 1, _operated(lines, following)))
        at = text.find(envelopes.BEGIN, at + 1)
    return found


def outside(found: list[Foreign], spans: list[range]) -> list[Foreign]:
    """The edits found that start outside the spans of line indexes (a format's own edits,
    whose text may hold any line; they do not overlap)."""
    ordered = sorted(spans, key=lambda span: span.start)
    starts = [span.start for span in ordered]
    kept = []
    for f in found:
        k = bisect.bisect_right(starts, f.line - 1) - 1
        if k < 0 or f.line - 1 not in ordered[k]:
            kept.append(f)
    return kept


def blocks(lines: list[str]) -> list[range]:
    """The spans of line indexes of the search/replace blocks of a reply's lines (prepared):
    from each head line to its tail (or the next head)."""
    spans = []
    head = -1
    for i, line in enumerate(lines):
        if editblock.is_head(line):
            if head >= 0:
                spans.append(range(head, i))
            head = i
        elif head >= 0 and editblock.is_tail(line):
            spans.append(range(head, i + 1))
            head = -1
    if head >= 0:
        spans.append(range(head, len(lines)))
    return spans


_OPENERS = ("<<<<<", "```", "~~~", "<source>")
"""What a search/replace block or a fenced whole file cannot do without."""


def may_hold_others(text: str) -> bool:
    """False when text cannot hold a search/replace block or a whole file: a look in C, so that
    a long patch alone is not read twice."""
    return any(mark in text for mark in _OPENERS)


def beside_patch(lines: list[str], spans: list[tuple[int, int]]) -> list[Foreign]:
    """The search/replace blocks and whole files of a reply's lines (prepared) outside its
    patches' envelopes, given as (begin, end) line indexes."""
    rest = list(lines)
    for begin, end in spans:
        rest[begin : end + 1] = [""] * (end + 1 - begin)
    text = "\n".join(rest)
    blocks = _blocks(rest) if _OPENERS[0] in text else []
    files = _files(rest) if any(mark in text for mark in _OPENERS[1:]) else []
    return sorted(blocks + files, key=lambda f: f.line)


def refuse(syntax: Syntax, found: list[Foreign], own: list[Edit]) -> None:
    """ReplyError naming the edits of other formats found beside the reply's own, if any."""
    if found:
        raise ReplyError(message(syntax, found, own))


def message(syntax: Syntax, found: list[Foreign], own: list[Edit]) -> str:
    """What the model is told about a reply that mixes formats (see the module's docstring)."""
    kinds = sorted({f.kind for f in found}, key=list(_KINDS).index)
    parts = [_listed(_KINDS[k], [f for f in found if f.kind == k]) for k in kinds]
    read = _join(parts)
    names = _names([edit.path for edit in own if edit.path])
    mine = f"{len(own)} {syntax.edit}{'s' if len(own) != 1 else ''}"
    mine += f" ({names})" if names else ""
    held = f"beside {mine}" if own else f"and no {syntax.edit}"
    return (
        f"Your reply holds {read}, which the {syntax.format} format does not read, {held}."
        " Nothing of the reply was applied, so that no change is made twice or left out."
        f" Write every change {syntax.how}, and send them all again in one reply."
    )


def _listed(kind: str, found: list[Foreign]) -> str:
    """'a V4A patch (line 3, for a.py)' or '2 whole files (lines 5 and 9, for a.py, b.py)'."""
    where = [str(f.line) for f in found[:MAX_NAMED]]
    if len(found) > MAX_NAMED:
        where.append(f"{len(found) - MAX_NAMED} more")
    lines = f"line {where[0]}" if len(where) == 1 else f"lines {_join(where)}"
    names = _names([p for f in found for p in f.paths])
    count = f"a {kind}" if len(found) == 1 else f"{len(found)} {kind}{_PLURAL[kind]}"
    return f"{count} ({lines}{', ' + names if names else ''})"


def _names(paths: list[str]) -> str:
    unique = list(dict.fromkeys(paths))
    if not unique:
        return ""
    shown = ", ".join(unique[:MAX_NAMED])
    more = f" and {len(unique) - MAX_NAMED} more" if len(unique) > MAX_NAMED else ""
    return f"for {shown}{more}"


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" and {items[-1]}"


def _operated(lines: list[str], start: int) -> tuple[str, ...]:
    """The files the operations of the patch whose first operation is at start name."""
    names = []
    for k in range(start, len(lines)):
        kind = envelopes.marker(lines[k])
        if kind in (envelopes.END, envelopes.BEGIN):
            break
        if kind in envelopes.OPERATIONS:
            names.append(lines[k].strip()[len(kind) :].strip())
    return tuple(dict.fromkeys(n for n in names if n))


def _blocks(lines: list[str]) -> list[Foreign]:
    """Search/replace blocks: those that name a file or use an edit format's own words (a
    git conflict quoted in prose does neither)."""
    try:
        blocks = editblock.parse_blocks("\n".join(lines))
    except ReplyError:
        return [Foreign("block", i + 1) for i, line in enumerate(lines) if _edit_head(line)]
    return [
        Foreign("block", b.line, (b.path,) if b.path else ())
        for b in blocks
        if b.path or _edit_head(lines[b.line - 1])
    ]


def _edit_head(line: str) -> bool:
    words = line.strip().lstrip("<").strip().upper()
    return editblock.is_head(line) and words in ("SEARCH", "ORIGINAL")


def _files(lines: list[str]) -> list[Foreign]:
    """Whole files: fenced blocks named by the line above them or their info string, holding
    some text and no search/replace block."""
    found = []
    for fence in fences.find_fences(lines):
        body = lines[fence.start : fence.end]
        if not any(line.strip() for line in body) or any(editblock.is_head(x) for x in body):
            continue
        name = fences.filename_before(lines, fence.opener) or fences.info_filename(fence.info)
        if name:
            found.append(Foreign("file", fence.opener + 1, (name,)))
    return found
