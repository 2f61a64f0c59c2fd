"""Whether a block whose text to find is nowhere in the file was already made: its replacement
stands where that text would stand.

That is honest evidence when the same block is sent twice, or the user made the change by hand.
It is a coincidence when the replacement happens to stand elsewhere (another function's body
already reads so) while the text the block looks for was miscopied or has changed: taking that
for "already made" leaves the place the model meant untouched, in silence. So the replacement
counts as the change made only when it stands in one place, and that place is where the text
looked for would stand: that text is clearly more like the replacement's lines than like any
other lines of the file, and no line the block removes stands anywhere else in the file.
Otherwise the block fails, and its message names where the replacement stands.
"""

from __future__ import annotations

from dataclasses import dataclass

from editformats.applying import matching, similarity

MARGIN = 0.1
"""How much more alike (0..1) the text looked for must be to the replacement's place than to
any other lines of the file, for that place to be where it would stand."""


@dataclass(frozen=True)
class Elsewhere:
    """The replacement stands in one place [start, end), which is not evidence of the change."""

    start: int
    end: int


def judge(
    hay: matching.Lines, original: list[str], updated: list[str], start: int = 0
) -> matching.Found | Elsewhere | None:
    """The replacement's place (how "already-present") when it shows the change was made;
    Elsewhere when it stands in one place that does not; None when it stands nowhere, in
    several places, or adds no line of its own (then finding it says nothing)."""
    if not _adds_a_line(original, updated):
        return None
    found = matching.locate(hay, updated, updated, None, start)
    if not isinstance(found, matching.Found):
        return None
    likeness = _likeness(hay, original, found)
    clear = likeness is not None and likeness[1] <= likeness[0] - MARGIN
    if clear and not _removed_elsewhere(hay, original, updated, found):
        kept = hay.lines[found.start : found.end]
        return matching.Found(found.start, found.end, "already-present", kept)
    return Elsewhere(found.start, found.end)


def elsewhere(index: int, path: str, where: Elsewhere) -> str:
    """The sentence that tells the model where its block's replacement already stands."""
    first, last = where.start + 1, where.end
    lines = f"line {first}" if first == last else f"lines {first}-{last}"
    return (
        f" Its UPDATED text already stands in {path}, at {lines}. If block {index} is meant to"
        " change those lines, the change is made already: leave the block out. If not, copy"
        " the ORIGINAL lines exactly as they stand in the file now."
    )


def _adds_a_line(original: list[str], updated: list[str]) -> bool:
    """True when updated has a line that original lacks (so finding updated in the file means
    the change is made, not that the text is merely common)."""
    before = {line.strip() for line in original}
    return any(line.strip() and line.strip() not in before for line in updated)


def _likeness(
    hay: matching.Lines, original: list[str], found: matching.Found
) -> tuple[float, float] | None:
    """How alike (0..1) original is to the replacement's place (the whole of it, or the run of
    its lines most like original), and to the run of lines most like it above or below that
    place; None for a text too long to score (then the place is never taken for where it
    would stand)."""
    kept = _shape(hay.lines[found.start : found.end])
    if not similarity.scorable(original) or len(kept) > 2 * similarity.MAX_CHARS:
        return None
    here = similarity.ratio(kept, _shape(original))
    here = max(here, _closest(hay, original, found.start, found.end))
    above = _closest(hay, original, 0, found.start)
    return here, max(above, _closest(hay, original, found.end, len(hay.lines)))


def _closest(hay: matching.Lines, original: list[str], low: int, high: int) -> float:
    """How alike (0..1) original is to the run of lines [low, high) most like it. The run is
    picked as similarity.best_windows picks it, loosely where it must, then truly scored."""
    lines = hay.lines[low:high]
    stripped = hay.stripped()[low:high]
    windows = similarity.best_windows(lines, original, 1, loose=True, stripped=stripped)
    wanted = _shape(original)
    return max(
        (similarity.ratio(_shape(lines[w.start : w.end]), wanted) for w in windows), default=0.0
    )


def _removed_elsewhere(
    hay: matching.Lines, original: list[str], updated: list[str], found: matching.Found
) -> bool:
    """Whether a line original has and updated does not (one the change removes) still stands
    in the file away from the replacement: the text looked for may be there. Lines of mere
    punctuation ('}', ')') say nothing of the kind."""
    kept = {line.strip() for line in updated}
    removed = {
        line.strip()
        for line in original
        if line.strip() not in kept and any(c.isalnum() for c in line)
    }
    if not removed:
        return False
    stripped = hay.stripped()
    hay.meter[0] += hay.size()
    return any(
        text in removed for i, text in enumerate(stripped) if not found.start <= i < found.end
    )


def _shape(lines: list[str]) -> str:
    """The lines as similarity.best_windows compares them: without surrounding whitespace."""
    return "\n".join(line.strip() for line in lines)
