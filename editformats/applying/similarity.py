"""How alike a run of the file's lines is to an edit's text, scored with diff-match-patch.

Scoring is bounded: only texts of at most MAX_LINES lines and MAX_CHARS characters are
compared, each comparison first passes a cheap upper bound, and large files are sampled.
"""

from __future__ import annotations

import bisect
import difflib
from collections import Counter
from dataclasses import dataclass
from functools import cache

from diff_match_patch import diff_match_patch

MAX_LINES = 200
"""Texts longer than this many lines are never scored (no near-miss is looked for)."""
MAX_CHARS = 20_000
"""Nor are texts longer than this many characters."""
_SAMPLES = 400
"""Window starts tried when looking for the closest lines without shared lines."""


@dataclass(frozen=True)
class Window:
    """Lines [start, end) of the file and their similarity (0..1) to the text looked for."""

    start: int
    end: int
    score: float


@cache
def _engine() -> diff_match_patch:
    engine = diff_match_patch()
    # A safety net only: the size caps and the line-order filter keep comparisons below it.
    engine.Diff_Timeout = 0.1
    return engine


def scorable(lines: list[str]) -> bool:
    """True when a text is small enough to be scored."""
    return 0 < len(lines) <= MAX_LINES and sum(len(line) + 1 for line in lines) <= MAX_CHARS


def ratio(a: str, b: str, floor: float = 0.0) -> float:
    """1 minus the character edit distance over the longer length: 1.0 for equal texts.

    Below floor, the result is only an upper bound (a cheap one, when it already says no).
    """
    if a == b:
        return 1.0
    longest = max(len(a), len(b))
    if 1.0 - abs(len(a) - len(b)) / longest < floor:
        return 1.0 - abs(len(a) - len(b)) / longest
    engine = _engine()
    diffs = engine.diff_main(a, b, len(a) > 200 and len(b) > 200)
    return 1.0 - engine.diff_levenshtein(diffs) / longest


def best_windows(
    lines: list[str],
    wanted: list[str],
    limit: int = 3,
    loose: bool = False,
    floor: float = 0.0,
    stripped: list[str] | None = None,
) -> list[Window]:
    """The windows of lines most like wanted, best first, not overlapping each other.

    Windows sharing few lines with wanted are not scored at all, which keeps this fast on
    large files. With loose, when no window shares lines, windows are picked by a quick
    character comparison instead (for showing the closest lines, never for applying).
    Scores under floor are only upper bounds. stripped, when given, holds the lines stripped.
    """
    size = len(wanted)
    if not lines or not scorable(wanted):
        return []
    targets = {line.strip() for line in wanted if line.strip()}
    stripped = stripped if stripped is not None else [line.strip() for line in lines]
    hits = [i for i, line in enumerate(stripped) if line in targets]
    need = max(1, len(targets) // 2)
    last = max(1, len(lines) - size + 1)
    if len(hits) * size <= 4 * len(lines):
        starts = sorted({s for h in hits for s in range(max(0, h - size + 1), min(h + 1, last))})
    else:
        starts = range(last)
    counts = [(bisect.bisect_left(hits, s + size) - bisect.bisect_left(hits, s), s) for s in starts]
    picked: list[int] = []
    for _, start in sorted((c for c in counts if c[0] >= need), key=lambda c: (-c[0], c[1])):
        if len(picked) >= limit * 4:
            break
        if all(abs(start - p) >= size for p in picked):
            picked.append(start)
    widths = sorted({size, size - 1, size + 1} - {0})
    if not picked and loose:
        return _quick_picks(lines, wanted, limit)
    if floor > 0:
        picked = _in_order(stripped, wanted, picked, limit, floor)
    text = _shape(wanted)
    windows = []
    for start in picked:
        for width in widths:
            end = min(len(lines), start + width)
            shaped = _shape(lines[start:end])
            if len(shaped) <= 2 * MAX_CHARS:
                windows.append(Window(start, end, ratio(shaped, text, floor)))
    windows.sort(key=lambda w: (-w.score, w.start, w.end))
    best: list[Window] = []
    for w in windows:
        if all(w.end <= b.start or w.start >= b.end for b in best):
            best.append(w)
    return best[:limit]


def _in_order(
    stripped: list[str], wanted: list[str], picked: list[int], limit: int, floor: float
) -> list[int]:
    """The starts of the few windows whose lines are most like wanted's, in order, leaving out
    those sharing too few: a text that is a reshuffle of the file's lines is no near miss, and
    scoring it character by character would be slow."""
    lines = [line.strip() for line in wanted]
    matcher = difflib.SequenceMatcher(None, b=lines, autojunk=False)
    ranked = []
    for start in picked:
        matcher.set_seq1(stripped[start : start + len(wanted)])
        ratio = matcher.ratio()
        if ratio >= floor - 0.4:
            ranked.append((-ratio, start))
    return [start for _, start in sorted(ranked)[: max(2, limit)]]


def _quick_picks(lines: list[str], wanted: list[str], limit: int) -> list[Window]:
    """Windows ranked by the characters they share with wanted (an upper bound of their
    similarity, as difflib's quick ratio), sampled on large files: only for showing the
    closest lines, never for applying."""
    size, text = len(wanted), _shape(wanted)
    chars = Counter(text)
    step = max(1, len(lines) // _SAMPLES)
    scored = []
    for start in range(0, max(1, len(lines) - size + 1), step):
        window = _shape(lines[start : start + size])
        if len(window) > 2 * MAX_CHARS:
            continue
        shared = sum((Counter(window) & chars).values())
        score = 2 * shared / (len(window) + len(text) or 1)
        scored.append(Window(start, min(len(lines), start + size), score))
    scored.sort(key=lambda w: (-w.score, w.start))
    best: list[Window] = []
    for w in scored:
        if len(best) >= limit:
            break
        if all(w.end <= b.start or w.start >= b.end for b in best):
            best.append(w)
    return best


def _shape(lines: list[str]) -> str:
    """The text with indentation and trailing space removed, so only content is compared."""
    return "\n".join(line.strip() for line in lines)
