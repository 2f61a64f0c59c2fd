"""Which of the places where a block's text stands the reply means, when it stands in several.

The blocks of a reply go in the file's order and were written against the file as the reply
found it. So, of several places, the one meant is told by, in turn:

1. the previous block's change in the file: the only place at or after it;
2. the next block naming the file (or the next part of the same block: the lines after a '...'
   it skips, the next change of a split hunk): the only place between the previous block's
   change (or the file's start) and the one place where that next text stands;
3. the file as the reply found it: the only place the text stood in then, when the reply's
   earlier blocks have written copies of it since (a helper made from a function's lines,
   before those lines are replaced by a call to it).

Anything else stays ambiguous and is refused: applying a block in the wrong place is far worse
than asking for more context. A list of places as long as matching.MAX_PLACES may be cut
short, and settles nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from editformats.applying import lazy, matching
from editformats.applying.document import split_lines
from editformats.applying.state import State


@dataclass
class Choice:
    """The chooser of one search (a matching.Chooser): it applies the rules above and
    remembers which one decided, for the note the user sees."""

    state: State
    path: str
    original: list[str]
    updated: list[str]
    after: int | None
    """The line after the previous block's change in the file, if any."""
    following: tuple[list[str], list[str]] | None = None
    """The text to find and its replacement that come next within the same edit (the next
    run of a block that skips lines with '...', the next change of a split hunk): these
    stand for the next block."""
    why: str = ""

    def __call__(self, spans: list[tuple[int, int]]) -> int | None:
        if len(spans) >= matching.MAX_PLACES:
            return None
        starts = [start for start, _ in spans]
        later = [s for s in starts if self.after is not None and s >= self.after]
        if len(later) == 1:
            self.why = f"the only one after the previous block's change (line {later[0] + 1})"
            return later[0]
        bound = self._next_block()
        if bound is not None:
            between = [s for s, e in spans if s >= (self.after or 0) and e <= bound]
            if len(between) == 1:
                side = "" if self.after is None else " after the previous block's change and"
                nxt = "the next block's lines" if self.following is None else "its next lines"
                self.why = f"the only one{side} before {nxt} (line {bound + 1})"
                return between[0]
        origin = self._origin()
        if origin is not None and origin in starts:
            self.why = (
                f"the only one that was in the file before this reply's earlier blocks"
                f" (line {origin + 1})"
            )
            return origin
        return None

    def note(self, found: matching.Found) -> str:
        """What the user is told about a block applied at one of several places."""
        return f"its text is in {found.places} places; {self.why} was edited"

    def _next_block(self) -> int | None:
        """The first line of the one place where the next block naming the file (or the next
        part of this one) stands, at or after the previous block's change when there are
        several; or None."""
        upcoming = self.state.upcoming
        if self.following is not None:
            original, updated = self.following
        elif upcoming is not None and not upcoming.whole:
            original, updated = split_lines(upcoming.original), split_lines(upcoming.updated)
        else:
            return None
        if not any(line.strip() for line in original) or len(lazy.split_elisions(original)) > 1:
            return None
        found = matching.locate(self.state.hay(self.path), original, updated, self.after)
        return found.start if isinstance(found, matching.Found) else None

    def _origin(self) -> int | None:
        """Where the one place the text stood in the file as the reply found it stands now,
        or None (it stood in several or none, or a change of this reply touched it)."""
        first = self.state.first.get(self.path)
        if first is None:
            return None
        found = matching.locate(first, self.original, self.updated)
        if not isinstance(found, matching.Found):
            return None
        return self.state.now_at(self.path, found.start, found.end)
