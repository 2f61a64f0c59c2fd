"""How alike a run of the file's lines is to an edit's text, scored with diff-match-patch."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import cache

from diff_match_patch import diff_match_patch


@dataclass(frozen=True)
class Window:
    """Lines [start, end) of the file and their similarity (0..1) to the text looked for."""

    start: int
    end: int
    score: float


@cache
def _engine() -> diff_match_patch:
    engine = diff_match_patch()
    engine.Diff_Timeout = 0.5
    return engine


def ratio(a: str, b: str) -> float:
    """1 minus the character edit distance over the longer length: 1.0 for equal texts."""
    if a == b:
        return 1.0
    longest = max(len(a), len(b))
    engine = _engine()
    diffs = engine.diff_main(a, b, False)
    return 1.0 - engine.diff_levenshtein(diffs) / longest


def merge(window: list[str], original: list[str], updated: list[str]) -> list[str] | None:
    """The window with the change from original to updated made in it, keeping the window's
    own version of the lines the change does not touch; None if a part does not fit."""
    engine = _engine()
    patches = engine.patch_make("\n".join(original) + "\n", "\n".join(updated) + "\n")
    merged, fitted = engine.patch_apply(patches, "\n".join(window) + "\n")
    if not all(fitted):
        return None
    return merged[:-1].split("\n") if merged.endswith("\n") else merged.split("\n")


def best_windows(
    lines: list[str], wanted: list[str], limit: int = 3, loose: bool = False
) -> list[Window]:
    """The windows of lines most like wanted, best first, not overlapping each other.

    Windows sharing few lines with wanted are not scored at all, which keeps this fast on
    large files. With loose, when no window shares lines, windows are picked by a quick
    character comparison instead (for showing the closest lines, never for applying).
    """
    size = len(wanted)
    if not size or not lines:
        return []
    targets = {line.strip() for line in wanted if line.strip()}
    hits = [1 if line.strip() in targets else 0 for line in lines]
    need = max(1, len(targets) // 2)
    prefix = [0]
    for hit in hits:
        prefix.append(prefix[-1] + hit)
    last = max(1, len(lines) - size + 1)
    counts = [(prefix[min(s + size, len(lines))] - prefix[s], s) for s in range(last)]
    picked: list[int] = []
    for count, start in sorted(counts, key=lambda c: (-c[0], c[1])):
        if count < need or len(picked) >= limit * 4:
            break
        if all(abs(start - p) >= size for p in picked):
            picked.append(start)
    if not picked and loose:
        picked = _quick_picks(lines, wanted, limit)
    text = _shape(wanted)
    windows = []
    for start in picked:
        for width in {size, size - 1, size + 1} - {0}:
            end = min(len(lines), start + width)
            windows.append(Window(start, end, ratio(_shape(lines[start:end]), text)))
    windows.sort(key=lambda w: -w.score)
    best: list[Window] = []
    for w in windows:
        if all(w.end <= b.start or w.start >= b.end for b in best):
            best.append(w)
    return best[:limit]


def _quick_picks(lines: list[str], wanted: list[str], limit: int) -> list[int]:
    """Window starts ranked by difflib's quick ratio, sampled on large files."""
    size, text = len(wanted), _shape(wanted)
    step = max(1, len(lines) // 4000)
    scored = []
    for start in range(0, max(1, len(lines) - size + 1), step):
        matcher = difflib.SequenceMatcher(None, _shape(lines[start : start + size]), text)
        scored.append((matcher.quick_ratio(), start))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [start for _, start in scored[: limit * 4]]


def _shape(lines: list[str]) -> str:
    """The text with indentation and trailing space removed, so only content is compared."""
    return "\n".join(line.strip() for line in lines)
