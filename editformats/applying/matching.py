"""Finding the lines an edit replaces, from an exact match down to tolerant ones.

Each tier either finds exactly one place, finds several (an ambiguity the model must resolve
with more context), or finds none and hands over to the next, more tolerant tier. Every tier
is one substring search in the file's lines joined under that tier's key, so the cost is
linear in the file and the text looked for.
"""

from __future__ import annotations

import bisect
import difflib
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from editformats.applying import similarity

MAX_PLACES = 20
"""An ambiguous text's places beyond this many are not counted."""
_COMMON = 64
"""A first line found more often than this is searched for in the joined text instead."""
BUILD_COST = 6
"""What building a tier's joined text costs, in searches of the same size (Python-level work
per line, against one pass in C for a search)."""


@dataclass(frozen=True)
class Found:
    """The place [start, end) of the file's lines that the edit's text stands for."""

    start: int
    end: int
    how: str
    updated: list[str]
    """The replacement lines, re-indented to the file when the match needed it."""
    score: float = 1.0
    places: int = 1
    """How many places the text matched; with more than one, this is the only one after the
    previous edit (the blocks of a reply go in file order)."""


@dataclass(frozen=True)
class Ambiguous:
    """The text occurs in more than one place."""

    starts: list[int]


Chooser = Callable[[list[tuple[int, int]]], int | None]
"""Given the places [start, end) where a text stands (in order; at most MAX_PLACES, so a list
that long may be cut short), the start of the one meant, or None when none can be told."""


@dataclass
class _Joined:
    """A file's lines under one tier's key, joined by newlines (one before and after each)."""

    text: str
    index: list[int]
    """For a tier that skips blank lines, the file line of each joined line."""
    offsets: list[int]
    """Where each joined line's leading newline stands in text."""


@dataclass
class Lines:
    """A file's lines and, per tier, their joined text, built once until the lines change."""

    lines: list[str]
    meter: list[int] = field(default_factory=lambda: [0], repr=False)
    """The work done so far, in characters gone through (building a joined text counts
    BUILD_COST times its size, a search once); a meter shared by all the files of a reply."""
    _joined: dict[str, _Joined] = field(default_factory=dict, repr=False)
    _stripped: list[str] | None = field(default=None, repr=False)
    _size: int = field(default=-1, repr=False)
    _where: dict[str, list[int]] | None = field(default=None, repr=False)
    _scans: int = field(default=0, repr=False)

    def where(self, line: str, start: int = 0) -> list[int]:
        """The indexes (from start on) of the lines equal to line: a scan of the list, in C,
        for the first few searches of these lines; then an index of every line, built once,
        so that many searches of an unchanged file cost little each."""
        self._scans += 1
        if self._where is None and self._scans > 3:
            self.meter[0] += BUILD_COST * len(self.lines)
            where: dict[str, list[int]] = {}
            for i, text in enumerate(self.lines):
                where.setdefault(text, []).append(i)
            self._where = where
        if self._where is not None:
            return [i for i in self._where.get(line, ()) if i >= start]
        self.meter[0] += len(self.lines)
        found, at = [], start
        while len(found) <= _COMMON:
            try:
                at = self.lines.index(line, at)
            except ValueError:
                break
            found.append(at)
            at += 1
        return found

    def size(self) -> int:
        """The characters of the lines, newlines included."""
        if self._size < 0:
            self._size = sum(map(len, self.lines)) + len(self.lines)
        return self._size

    def stripped(self) -> list[str]:
        """Every line without its surrounding whitespace."""
        if self._stripped is None:
            self._stripped = [line.strip() for line in self.lines]
        return self._stripped

    def joined(self, tier: str) -> _Joined:
        """The lines under the tier's key, joined."""
        if tier not in self._joined:
            self.meter[0] += BUILD_COST * self.size()
            key, skip_blank = _TIERS[tier]
            stripped = self.stripped() if skip_blank else None
            index = [i for i, line in enumerate(stripped) if line] if stripped is not None else []
            kept = [stripped[i] for i in index] if stripped is not None else self.lines
            keyed = kept if key is None or skip_blank else list(map(key, kept))
            text = "\n" + "\n".join(keyed) + "\n" if keyed else "\n"
            offsets = [0, *itertools.accumulate(len(k) + 1 for k in keyed)]
            self._joined[tier] = _Joined(text, index, offsets)
        return self._joined[tier]


def locate(
    lines: list[str] | Lines,
    original: list[str],
    updated: list[str],
    after: int | None = None,
    start: int = 0,
    choose: Chooser | None = None,
) -> Found | Ambiguous | None:
    """Where original stands in lines (at line start or later), trying ever more tolerant
    comparisons; None if nowhere.

    Text found in several places is Ambiguous, unless after is given and only one of them
    starts at or after that line: then that one is taken (Found.places tells how many there
    were in all). choose, when given, decides among several places instead.
    Blank lines at the edges of original match the file's blank lines where it has them;
    as many as it lacks are dropped from the same edge of updated.
    """
    hay = lines if isinstance(lines, Lines) else Lines(lines)
    choose = choose or (lambda spans: _first_after([s for s, _ in spans], after))
    exact = _exact_positions(hay, original, start)
    if exact:
        first = choose([(s, s + len(original)) for s in exact]) if len(exact) > 1 else exact[0]
        if first is None:
            return Ambiguous(exact)
        return Found(first, first + len(original), "exact", updated, places=len(exact))
    lead = _blank_run(original)
    trail = _blank_run(original[::-1]) if lead < len(original) else 0
    core = original[lead : len(original) - trail]
    if not core:
        return None
    for tier in ("whitespace", "indentation", "blank-lines"):
        found = _tolerant(hay, core, updated, tier, choose, start)
        if isinstance(found, Found):
            return _with_blank_edges(hay.lines, found, lead, trail)
        if found is not None:
            return found
    return None


def fuzzy(
    lines: list[str] | Lines, original: list[str], updated: list[str], threshold: float
) -> Found | Ambiguous | None:
    """The one window of lines similar to original above threshold, to be replaced by updated
    (re-indented to the window if needed) when that is faithful (see _faithful)."""
    hay = lines if isinstance(lines, Lines) else Lines(lines)
    lines = hay.lines
    windows = similarity.best_windows(
        lines, original, limit=3, floor=threshold, stripped=hay.stripped()
    )
    good = [w for w in windows if w.score >= threshold]
    if len(good) > 1:
        return Ambiguous([w.start for w in good])
    if not good:
        return None
    best = good[0]
    window = lines[best.start : best.end]
    if not _faithful(window, original, updated):
        return None
    shift = _indent_delta(window, original) or _Shift()
    return Found(best.start, best.end, "fuzzy", _reindent(updated, shift), best.score)


def _faithful(window: list[str], original: list[str], updated: list[str]) -> bool:
    """Whether writing updated over the window loses nothing the edit did not mean to change:
    each line original keeps in updated (its context) stands in the window (up to surrounding
    whitespace), and the window has no line original lacks but blank ones. The lines the edit
    changes may differ from the file's: updated replaces them whole. Never a splice of the
    file's text and the reply's, which can make text neither has (a second change of the same
    line, a miscopied number)."""
    plain = [line.strip() for line in original]
    context: set[int] = set()
    for tag, i1, i2, _, _ in difflib.SequenceMatcher(
        None, plain, [line.strip() for line in updated], autojunk=False
    ).get_opcodes():
        if tag == "equal":
            context.update(range(i1, i2))
    aligned = difflib.SequenceMatcher(
        None, plain, [line.strip() for line in window], autojunk=False
    )
    for tag, i1, i2, j1, j2 in aligned.get_opcodes():
        if tag == "equal":
            continue
        if any(i in context and plain[i] for i in range(i1, i2)):
            return False
        if i1 == i2 and any(line.strip() for line in window[j1:j2]):
            return False
    return True


_TIERS: dict[str, tuple[Callable[[str], str] | None, bool]] = {
    "exact": (None, False),
    "whitespace": (str.rstrip, False),
    "indentation": (str.strip, False),
    "blank-lines": (str.strip, True),
}
"""Each tier's key for comparing lines (None: as they are), and whether it skips blank lines."""


def _exact_positions(hay: Lines, needle: list[str], start: int = 0) -> list[int]:
    """Where needle starts verbatim, at line start or later. Candidates are the lines equal to
    its first line, from the index of the file's lines, unless that line is so common that
    searching the joined text is cheaper."""
    if not needle:
        return []
    candidates = hay.where(needle[0], start)
    if len(candidates) > _COMMON:
        return _positions(hay, needle, "exact", start)
    lines, size = hay.lines, len(needle)
    hay.meter[0] += len(candidates) * size
    found = [i for i in candidates if lines[i : i + size] == needle]
    return found[:MAX_PLACES]


def _positions(hay: Lines, needle: list[str], tier: str, start: int = 0) -> list[int]:
    """The first MAX_PLACES indexes (in the tier's joined lines) where needle starts, from
    file line start on."""
    key, skip_blank = _TIERS[tier]
    kept = [line for line in needle if line.strip()] if skip_blank else needle
    if not kept:
        return []
    joined = hay.joined(tier)
    line = bisect.bisect_left(joined.index, start) if skip_blank else start
    if line >= len(joined.offsets):
        return []
    pin = "\n" + "\n".join(kept if key is None else map(key, kept)) + "\n"
    hay.meter[0] += len(joined.text) - joined.offsets[line]
    counted = joined.offsets[line]
    found: list[int] = []
    at = joined.text.find(pin, counted)
    while at != -1 and len(found) < MAX_PLACES:
        line += joined.text.count("\n", counted, at)
        counted = at
        found.append(line)
        at = joined.text.find(pin, at + 1)
    return found


def _first_after(starts: list[int], after: int | None) -> int | None:
    """The only start, or with after given the only start at or after it (the blocks of a
    reply go in the file's order, so a place before the previous block's change is not
    meant); else None: the reply does not settle which place it means."""
    if len(starts) == 1:
        return starts[0]
    if after is None:
        return None
    later = [s for s in starts if s >= after]
    return later[0] if len(later) == 1 else None


def _tolerant(hay: Lines, core: list[str], updated: list[str], tier: str, choose, begin: int):
    """The place where core matches under the tier (see locate), with updated re-indented."""
    skip_blank = _TIERS[tier][1]
    starts = _positions(hay, core, tier, begin)
    if not starts:
        return None
    index = hay.joined(tier).index
    size = sum(1 for line in core if line.strip()) if skip_blank else len(core)
    places = []
    for start in starts:
        first = index[start] if skip_blank else start
        last = (index[start + size - 1] if skip_blank else start + size - 1) + 1
        delta = _indent_delta(hay.lines[first:last], core)
        if delta is not None:
            places.append((first, last, delta))
    if not places:
        return None
    start = choose([(p[0], p[1]) for p in places]) if len(places) > 1 else places[0][0]
    if start is None:
        return Ambiguous([p[0] for p in places])
    first, last, delta = next(p for p in places if p[0] == start)
    return Found(first, last, tier, _reindent(updated, delta), places=len(places))


def _blank_run(lines: list[str]) -> int:
    """How many blank lines lines starts with."""
    return next((i for i, line in enumerate(lines) if line.strip()), len(lines))


def _with_blank_edges(lines: list[str], found: Found, lead: int, trail: int) -> Found:
    """found widened over the file's blank lines next to it, up to lead above and trail below;
    the blank lines the file lacks are dropped from the same edges of the replacement."""
    above = 0
    while above < lead and found.start - above > 0 and not lines[found.start - above - 1].strip():
        above += 1
    below = 0
    while below < trail and found.end + below < len(lines) and not lines[found.end + below].strip():
        below += 1
    updated = found.updated
    cut_lead = min(lead - above, _blank_run(updated))
    cut_trail = min(trail - below, _blank_run(updated[::-1]))
    updated = updated[cut_lead : len(updated) - cut_trail]
    return Found(
        found.start - above, found.end + below, found.how, updated, found.score, found.places
    )


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


@dataclass(frozen=True)
class _Shift:
    """How the file's indentation differs from the edit's: a prefix added or removed, or, when
    tabs meet spaces, a change of width rewritten in the file's style."""

    added: str = ""
    removed: str = ""
    width: int = 0
    tabs: bool | None = None


def _indent_delta(window: list[str], original: list[str]) -> _Shift | None:
    """The uniform indentation difference between the file's lines and original, if any."""
    file_lines = [line for line in window if line.strip()]
    block_lines = [line for line in original if line.strip()]
    pairs = [(_indent(f), _indent(b)) for f, b in zip(file_lines, block_lines, strict=False)]
    if not pairs:
        return _Shift()
    fi, bi = pairs[0]
    if fi.endswith(bi):
        added = fi[: len(fi) - len(bi)]
        if all(f == added + b for f, b in pairs):
            return _Shift(added=added)
    if bi.endswith(fi):
        removed = bi[: len(bi) - len(fi)]
        if all(b == removed + f for f, b in pairs):
            return _Shift(removed=removed)
    widths = {len(f.expandtabs(4)) - len(b.expandtabs(4)) for f, b in pairs}
    if len(widths) != 1:
        return None
    return _Shift(width=widths.pop(), tabs=any("\t" in f for f, _ in pairs))


def _reindent(updated: list[str], shift: _Shift) -> list[str]:
    """The updated lines moved by the same indentation difference as the matched ones."""
    return [_move(line, shift) if line.strip() else line for line in updated]


def _move(line: str, shift: _Shift) -> str:
    if shift.tabs is not None:
        width = max(0, len(_indent(line).expandtabs(4)) + shift.width)
        lead = "\t" * (width // 4) + " " * (width % 4) if shift.tabs else " " * width
        return lead + line.lstrip()
    if shift.removed:
        if line.startswith(shift.removed):
            return line[len(shift.removed) :]
        return line[min(len(_indent(line)), len(shift.removed)) :]
    return shift.added + line
