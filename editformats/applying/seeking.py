"""Where a patch's lines stand in a file, at four levels tried in turn: exact, trailing
whitespace ignored, surrounding whitespace ignored, typographic punctuation folded to ASCII.
The first level that finds anything decides.

Each level keys the file's lines once and indexes them by key, so a chunk is looked for only
where its rarest line stands: finding every chunk of a long patch stays about linear. The work
of one reply is metered; past MAX_WORK line comparisons, the search gives up (Exhausted).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, field

LEVELS = ("exact", "whitespace", "indentation", "punctuation")
"""The levels, strictest first (the names Applied.how reports)."""
MAX_LISTED = 100
"""Places of an ambiguous chunk that are told; more are only said to exist."""
MAX_WORK = 30_000_000
"""Line comparisons one reply may make; Exhausted past that."""

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
    return line.translate(_FOLD).strip()


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
    """A file's lines, keyed and indexed per level on first use."""

    lines: list[str]
    meter: list[int] = field(default_factory=lambda: [0])
    """Line comparisons made so far, shared by every file of one reply."""
    _keys: dict[str, list[str]] = field(default_factory=dict, repr=False)
    _index: dict[str, dict[str, list[int]]] = field(default_factory=dict, repr=False)

    def keys(self, level: str) -> list[str]:
        """Every line under the level's key."""
        if level not in self._keys:
            key = _KEYS[level]
            self._spend(len(self.lines))
            self._keys[level] = self.lines if key is None else [key(x) for x in self.lines]
        return self._keys[level]

    def index(self, level: str) -> dict[str, list[int]]:
        """The positions of each key, ascending."""
        if level not in self._index:
            where: dict[str, list[int]] = {}
            for i, key in enumerate(self.keys(level)):
                where.setdefault(key, []).append(i)
            self._index[level] = where
        return self._index[level]

    def find(self, wanted: list[str], start: int, first: bool = False) -> Match | Several | None:
        """Where wanted stands at line start or below: the one place (or, with first, the
        first), several places, or None, at the first level that finds any."""
        for level in LEVELS:
            starts, more = self._places(wanted, start, level, 1 if first else MAX_LISTED)
            if len(starts) == 1 and not more:
                return Match(starts[0], level)
            if starts:
                return Match(starts[0], level) if first else Several(tuple(starts), level, more)
        return None

    def at(self, wanted: list[str], start: int) -> Match | None:
        """The level at which wanted is exactly the lines from start on, or None."""
        end = start + len(wanted)
        if start < 0 or end > len(self.lines):
            return None
        self._spend(len(LEVELS) * len(wanted))
        for level in LEVELS:
            key = _KEYS[level]
            keyed = wanted if key is None else [key(x) for x in wanted]
            if self.keys(level)[start:end] == keyed:
                return Match(start, level)
        return None

    def _places(self, wanted: list[str], start: int, level: str, most: int):
        """The first `most` places of wanted at line start or below under one level's key, and
        whether there are more (not looked for when most is 1); found through the index of
        wanted's rarest line."""
        key = _KEYS[level]
        keyed = wanted if key is None else [key(x) for x in wanted]
        index = self.index(level)
        counts = [len(index.get(k, ())) for k in keyed]
        pivot = min(range(len(keyed)), key=counts.__getitem__)
        if not counts[pivot]:
            return [], False
        keys, size, found = self.keys(level), len(keyed), []
        positions = index[keyed[pivot]]
        for at in positions[bisect.bisect_left(positions, start + pivot) :]:
            begin = at - pivot
            if begin + size > len(keys):
                break
            self._spend(size)
            if keys[begin : begin + size] == keyed:
                if len(found) == most:
                    return found, True
                found.append(begin)
                if most == 1:
                    break
        return found, False

    def _spend(self, work: int) -> None:
        self.meter[0] += work
        if self.meter[0] > MAX_WORK:
            raise Exhausted
