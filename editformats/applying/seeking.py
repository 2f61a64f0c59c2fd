"""Where a patch's lines stand in a file, at four levels tried in turn: exact, trailing
whitespace ignored, surrounding whitespace ignored, typographic punctuation folded to ASCII.
The first level that finds anything decides.

Each level keys the file's lines once. The first few searches scan them (in C); after that an
index by key is built, and a chunk is looked for only where its rarest line stands: finding
every chunk of a long patch stays about linear. The work of one reply is metered; past
MAX_WORK line comparisons, the search gives up (Exhausted).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, field

LEVELS = ("exact", "whitespace", "indentation", "punctuation")
"""The levels, strictest first (the names Applied.how reports)."""
MAX_LISTED = 100
"""Places of an ambiguous chunk that are told; more are only said to exist."""
MAX_WORK = 10_000_000
"""Line comparisons one reply may make; Exhausted past that."""
TEXT_COST = 3
"""What taking a file's line through one section costs (split, changed, joined), in line
comparisons."""
BUILD_COST = 20
"""What indexing a line costs, in line comparisons (done in C): a reply of many sections on one
large file is bounded too."""
KEY_COST = 5
"""What keying a line for a loose level costs, in line comparisons."""
MAX_SCANS = 8
"""Searches of a file's lines (per level) done by scanning before its index is built."""
MAX_SCANNED = 64
"""Places of one line a scan collects; a line found in more is looked up in the index."""

_FOLD = str.maketrans(
    {
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d", "-"),
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032\uff07", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\uff02", '"'),
        **dict.fromkeys("\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a", " "),
        **dict.fromkeys("\u202f\u205f\u3000", " "),
        "\u2026": "...",
    }
)
"""Typographic dashes, quotes and spaces, as ASCII: what a model that retypes a line writes."""


def fold(line: str) -> str:
    """The line with typographic punctuation as ASCII and no surrounding whitespace."""
    return (line if line.isascii() else line.translate(_FOLD)).strip()


_KEYS: dict[str, Callable[[str], str] | None] = {
    "exact": None,
    "whitespace": str.rstrip,
    "indentation": str.strip,
    "punctuation": fold,
}


class Exhausted(Exception):
    """The reply's searching is used up."""


@dataclass(frozen=True)
class Match:
    """Where the lines were found, and at which level."""

    start: int
    level: str


@dataclass(frozen=True)
class Several:
    """The lines stand in several places (the first MAX_LISTED of them), at one level."""

    starts: tuple[int, ...]
    level: str
    more: bool = False
    """There are more places than starts lists."""


@dataclass
class Lines:
    """A file's lines, keyed per level on first use; searched by a scan in C for the first few
    searches, then through an index of every line, built once."""

    lines: list[str]
    meter: list[int] = field(default_factory=lambda: [0])
    """Line comparisons made so far, shared by every file of one reply."""
    _keys: dict[str, list[str]] = field(default_factory=dict, repr=False)
    _index: dict[str, dict[str, list[int]]] = field(default_factory=dict, repr=False)
    _scans: dict[str, int] = field(default_factory=dict, repr=False)

    def keys(self, level: str) -> list[str]:
        """Every line under the level's key."""
        if level not in self._keys:
            key = _KEYS[level]
            if key is not None:
                charge(self.meter, KEY_COST * len(self.lines))
            self._keys[level] = self.lines if key is None else [key(x) for x in self.lines]
        return self._keys[level]

    def index(self, level: str) -> dict[str, list[int]]:
        """The positions of each key, ascending."""
        if level not in self._index:
            keys = self.keys(level)
            charge(self.meter, BUILD_COST * len(keys))
            where: dict[str, list[int]] = {}
            for i, key in enumerate(keys):
                where.setdefault(key, []).append(i)
            self._index[level] = where
        return self._index[level]

    def find(self, wanted: list[str], start: int, first: bool = False) -> Match | Several | None:
        """Where wanted stands at line start or below: the one place (or, with first, the
        first), several places, or None, at the first level that finds any."""
        most = 1 if first else MAX_LISTED
        level, (starts, more) = "exact", self._places(wanted, start, "exact", most)
        if not starts:
            # What no level finds, the loosest does not: try it before the two between.
            loosest = self._places(wanted, start, "punctuation", most)
            if not loosest[0]:
                return None
            for level in LEVELS[1:]:
                starts, more = (
                    loosest if level == LEVELS[-1] else self._places(wanted, start, level, most)
                )
                if starts:
                    break
        if len(starts) == 1 and not more:
            return Match(starts[0], level)
        return Match(starts[0], level) if first else Several(tuple(starts), level, more)

    def at(self, wanted: list[str], start: int) -> Match | None:
        """The level at which wanted is exactly the lines from start on, or None."""
        end = start + len(wanted)
        if start < 0 or end > len(self.lines):
            return None
        charge(self.meter, len(LEVELS) * len(wanted))
        for level in LEVELS:
            key = _KEYS[level]
            window = self.lines[start:end]
            if key is None and window == wanted:
                return Match(start, level)
            if key is not None and [key(x) for x in window] == [key(x) for x in wanted]:
                return Match(start, level)
        return None

    def _places(self, wanted: list[str], start: int, level: str, most: int):
        """The first `most` places of wanted at line start or below under one level's key, and
        whether there are more (not looked for when most is 1)."""
        key = _KEYS[level]
        keyed = wanted if key is None else [key(x) for x in wanted]
        found = self._candidates(keyed, level, start)
        if found is None:
            return [], False
        pivot, positions, at = found
        keys, size, places = self.keys(level), len(keyed), []
        left = MAX_WORK - self.meter[0]
        spent, more = 0, False
        for k in range(at, len(positions)):
            begin = positions[k] - pivot
            spent += size
            if begin + size > len(keys) or spent > left:
                break
            if keys[begin : begin + size] == keyed:
                if len(places) == most:
                    more = True
                    break
                places.append(begin)
                if most == 1:
                    break
        charge(self.meter, spent)
        return places, more

    def _candidates(self, keyed: list[str], level: str, start: int):
        """A line of keyed (its position in it), the lines of the file equal to it, and the
        first of those at or below start; None when a line of keyed is nowhere in the file.
        Without an index: the longest line, found by scanning; with one: the rarest."""
        if level not in self._index and self._scans.get(level, 0) < MAX_SCANS:
            self._scans[level] = self._scans.get(level, 0) + 1
            pivot = max(range(len(keyed)), key=lambda i: len(keyed[i]))
            scanned = self._scan(self.keys(level), keyed[pivot], start + pivot)
            if scanned is not None:
                return (pivot, scanned, 0) if scanned else None
        index = self.index(level)
        positions: list[int] = []
        pivot = 0
        for i, k in enumerate(keyed):
            found = index.get(k)
            if found is None:
                return None
            if not positions or len(found) < len(positions):
                positions, pivot = found, i
        return pivot, positions, bisect.bisect_left(positions, start + pivot)

    def _scan(self, keys: list[str], line: str, start: int) -> list[int] | None:
        """The positions of line in keys from start on, by a scan in C; None when it stands
        in more than MAX_SCANNED places (the index is then cheaper)."""
        charge(self.meter, max(0, len(keys) - start))
        found: list[int] = []
        at = start
        while len(found) <= MAX_SCANNED:
            try:
                at = keys.index(line, at)
            except ValueError:
                return found
            found.append(at)
            at += 1
        return None


def charge(meter: list[int], work: int) -> None:
    """Count work on the reply's meter; Exhausted when it is used up."""
    meter[0] += work
    if meter[0] > MAX_WORK:
        raise Exhausted
