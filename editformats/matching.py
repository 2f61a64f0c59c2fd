"""Finding the lines an edit replaces, from an exact match down to tolerant ones.

Each tier either finds exactly one place, finds several (an ambiguity the model must resolve
with more context), or finds none and hands over to the next, more tolerant tier.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from editformats import similarity


@dataclass(frozen=True)
class Found:
    """The place [start, end) of the file's lines that the edit's text stands for."""

    start: int
    end: int
    how: str
    updated: list[str]
    """The replacement lines, re-indented to the file when the match needed it."""
    score: float = 1.0


@dataclass(frozen=True)
class Ambiguous:
    """The text occurs in more than one place."""

    starts: list[int]


def locate(lines: list[str], original: list[str], updated: list[str]) -> Found | Ambiguous | None:
    """Where original stands in lines, trying ever more tolerant comparisons; None if nowhere."""
    exact = _exact_positions(lines, original)
    if len(exact) > 1:
        return Ambiguous(exact)
    if exact:
        return Found(exact[0], exact[0] + len(original), "exact", updated)
    original, updated = _trim_blank_edges(original, updated)
    if not original:
        return None
    for how, key, skip_blank in _TOLERANT:
        found = _tolerant(lines, original, updated, how, key, skip_blank)
        if found is not None:
            return found
    return None


def fuzzy(
    lines: list[str], original: list[str], updated: list[str], threshold: float
) -> Found | Ambiguous | None:
    """The one window of lines similar to original above threshold, re-indented if needed."""
    windows = similarity.best_windows(lines, original, limit=3)
    good = [w for w in windows if w.score >= threshold]
    if len(good) > 1:
        return Ambiguous([w.start for w in good])
    if not good:
        return None
    best = good[0]
    window = lines[best.start : best.end]
    shift = _indent_delta(window, original) or _Shift()
    merged = similarity.merge(window, _reindent(original, shift), _reindent(updated, shift))
    if merged is None:
        return None
    return Found(best.start, best.end, "fuzzy", merged, best.score)


def _rstrip(line: str) -> str:
    return line.rstrip()


def _strip(line: str) -> str:
    return line.strip()


_TOLERANT: tuple[tuple[str, Callable[[str], str], bool], ...] = (
    ("whitespace", _rstrip, False),
    ("indentation", _strip, False),
    ("blank-lines", _strip, True),
)


def _exact_positions(lines: list[str], needle: list[str]) -> list[int]:
    """Every line index where needle starts verbatim; list.index keeps the scan in C."""
    if not needle:
        return []
    found, at, size = [], 0, len(needle)
    while True:
        try:
            at = lines.index(needle[0], at)
        except ValueError:
            return found
        if lines[at : at + size] == needle:
            found.append(at)
        at += 1


def _positions(lines: list[str], needle: list[str], key: Callable[[str], str]) -> list[int]:
    """Every line index where needle starts, compared line by line under key."""
    if not needle:
        return []
    hay = "\n" + "\n".join(map(key, lines)) + "\n"
    pin = "\n" + "\n".join(map(key, needle)) + "\n"
    found, at = [], hay.find(pin)
    while at != -1:
        found.append(hay.count("\n", 0, at))
        at = hay.find(pin, at + 1)
    return found


def _tolerant(lines, original, updated, how, key, skip_blank) -> Found | Ambiguous | None:
    if skip_blank:
        index = [i for i, line in enumerate(lines) if line.strip()]
        kept = [lines[i] for i in index]
        needle = [line for line in original if line.strip()]
    else:
        index, kept, needle = list(range(len(lines))), lines, original
    if not needle:
        return None
    places = []
    for start in _positions(kept, needle, key):
        first, last = index[start], index[start + len(needle) - 1] + 1
        delta = _indent_delta(lines[first:last], original)
        if delta is not None:
            places.append((first, last, delta))
    if len(places) > 1:
        return Ambiguous([p[0] for p in places])
    if not places:
        return None
    first, last, delta = places[0]
    return Found(first, last, how, _reindent(updated, delta))


def _trim_blank_edges(original: list[str], updated: list[str]) -> tuple[list[str], list[str]]:
    """Drop blank lines at both ends of original, and as many at the same ends of updated."""
    lead = next((i for i, line in enumerate(original) if line.strip()), len(original))
    trail = next((i for i, line in enumerate(reversed(original)) if line.strip()), 0)
    original = original[lead : len(original) - trail]
    up_lead = next((i for i, line in enumerate(updated) if line.strip()), len(updated))
    up_trail = next((i for i, line in enumerate(reversed(updated)) if line.strip()), 0)
    cut_lead, cut_trail = min(lead, up_lead), min(trail, up_trail)
    return original, updated[cut_lead : len(updated) - cut_trail]


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
