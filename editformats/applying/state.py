"""One reply being applied: the documents it edits, the search budget it has spent, and the
exception that stops one of its edits.

The work is bounded: a reply's searches may visit at most MAX_SEARCHED characters of files in
all, near-miss (fuzzy) matching is tried for at most MAX_FUZZY of its edits, and the closest
lines are looked up for the first MAX_EXPLAINED failures only (the ones a failure message shows).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from editformats import paths
from editformats.applying import matching
from editformats.applying.document import Document
from editformats.edit import Edit, Failure

MAX_SEARCHED = 100_000_000
"""The searching one reply may do, in characters gone through (matching.Lines.spent); the
edits after that fail unsearched. Some 40 failing or loosely matching edits on a 600 KB file:
a few tenths of a second."""
MAX_FUZZY = 10
"""Edits per reply for which a near-miss is looked for."""
MAX_HOLDERS = 100
"""Chat files searched for the text of an edit that names no file, or the wrong one; with more
chat files, such an edit must name its file."""
MAX_EXPLAINED = 3
"""Failures per reply for which the closest lines and the file holding the text are found."""


class Miss(Exception):
    """An edit that cannot apply; carries the Failure. Never leaves editformats.applying."""

    def __init__(self, failure: Failure, besides: tuple[int, int] | None = None):
        super().__init__(failure.reason)
        self.failure = failure
        self.besides = besides
        """Lines [start, end) not to show as the closest to what the edit looked for (its
        replacement, which stands there)."""


@dataclass
class State:
    """The documents being edited and the work spent so far on one reply."""

    docs: dict[str, Document]
    chat: frozenset[str]
    tree: paths.Tree
    split: bool
    hays: dict[str, matching.Lines] = field(default_factory=dict)
    meter: list[int] = field(default_factory=lambda: [0])
    """The searching done on this reply so far (see matching.Lines.meter)."""
    cursor: dict[str, int] = field(default_factory=dict)
    """Per file, the line after the last edit applied to it: the next block goes after it."""
    notes: dict[str, str] = field(default_factory=dict)
    fuzzy_left: int = MAX_FUZZY
    explained: int = 0
    first: dict[str, matching.Lines] = field(default_factory=dict)
    """Per file changed by an edit of this reply, its lines as the reply found them."""
    moves: dict[str, list[tuple[int, int, int]] | None] = field(default_factory=dict)
    """Per file changed by this reply, each change made to its lines, in order: the lines
    [start, end) it replaced (as they stood then) and how many lines took their place; None
    once a file was rewritten whole."""
    upcoming: Edit | None = None
    """The reply's next edit after the one being applied that names the same file, if any."""
    _skeletons: dict[str, str] | None = field(default=None, repr=False)

    def hay(self, path: str) -> matching.Lines:
        """The document's lines, with their per-tier joined text cached until they change."""
        if path not in self.hays:
            self.hays[path] = matching.Lines(self.docs[path].lines, self.meter)
        return self.hays[path]

    def changed(self, path: str) -> None:
        self.hays.pop(path, None)

    def before_changing(self, path: str) -> None:
        """Keep the file's lines as they are now, the first time an edit of this reply is about
        to change them."""
        if path not in self.first and path in self.docs:
            self.first[path] = matching.Lines(list(self.docs[path].lines), self.meter)

    def moved(self, path: str, start: int, end: int, size: int) -> None:
        """Note that lines [start, end) of the file were replaced by size lines."""
        made = self.moves.setdefault(path, [])
        if made is not None:
            made.append((start, end, size))

    def rewrote(self, path: str) -> None:
        """Note that the file was written anew: no line of it is where it was."""
        self.moves[path] = None

    def now_at(self, path: str, start: int, end: int) -> int | None:
        """Where lines [start, end) of the file as the reply found it stand now; None when a
        change of this reply touched them (or rewrote the file)."""
        made = self.moves.get(path, [])
        if made is None:
            return None
        for at, stop, size in made:
            if stop <= start:
                start, end = start + size - (stop - at), end + size - (stop - at)
            elif at < end:
                return None
        return start

    def look_alike(self, path: str) -> str | None:
        """The file (of the chat or the repository) that looks like path without being it:
        the same skeleton (paths.skeleton), another name. Indexed once per reply."""
        if self._skeletons is None:
            self._skeletons = {}
            for name in sorted(set(self.docs) | self.tree.files, reverse=True):
                self._skeletons[paths.skeleton(name)] = name
        twin = self._skeletons.get(paths.skeleton(path))
        return twin if twin is not None and twin != path else None

    def spent(self) -> int:
        """The searching done on this reply so far."""
        return self.meter[0]
