"""Applying parsed edits to the chat files in memory, shared by every edit format.

The work is bounded: a reply may hold at most edit.MAX_EDITS edits, its searches may visit at most
MAX_SEARCHED characters of files in all, near-miss (fuzzy) matching is tried for at most MAX_FUZZY
of its edits, and the closest lines are looked up for the first MAX_EXPLAINED failures only
(the ones a failure message shows).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field

from editformats import lazy, matching, paths, similarity
from editformats.document import Document, split_lines
from editformats.edit import Applied, ApplyResult, Edit, Failure, check_count

FUZZY_THRESHOLD = 0.9
"""How alike (0..1) a near-miss must be to the text an edit looked for to be applied anyway."""
MAX_SEARCHED = 100_000_000
"""The searching one reply may do, in characters gone through (matching.Lines.spent); the
edits after that fail unsearched. Some 40 failing or loosely matching edits on a 600 KB file:
a few tenths of a second."""
MAX_FUZZY = 10
"""Edits per reply for which a near-miss is looked for."""
MAX_HOLDERS = 100
"""Chat files searched for the text of an edit that names no file, or the wrong one; with more
chat files, such an edit must name its file."""
MAX_SPLIT = 10_000
"""The longest hunk (in lines) retried as its separate changes."""
MAX_EXPLAINED = 3
"""Failures per reply for which the closest lines and the file holding the text are found."""


class _Miss(Exception):
    """An edit that cannot apply; carries the Failure. Never leaves this module."""

    def __init__(self, failure: Failure):
        super().__init__(failure.reason)
        self.failure = failure


@dataclass
class _State:
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

    def hay(self, path: str) -> matching.Lines:
        """The document's lines, with their per-tier joined text cached until they change."""
        if path not in self.hays:
            self.hays[path] = matching.Lines(self.docs[path].lines, self.meter)
        return self.hays[path]

    def changed(self, path: str) -> None:
        self.hays.pop(path, None)

    def spent(self) -> int:
        """The searching done on this reply so far."""
        return self.meter[0]


def apply(
    edits: list[Edit],
    files: Mapping[str, str],
    split: bool = False,
    tree: paths.Tree = paths.NO_TREE,
) -> ApplyResult:
    """Apply edits in order to files (path -> text); a failed edit changes nothing.

    tree holds the repository's files, so that a name means what it says when such a file or
    folder exists. With split, an edit whose text is not found is retried as its separate
    changes, each with a few lines of context: diff hunks carry much context and models often
    miscopy some of it. ReplyError when there are more than MAX_EDITS edits.
    """
    check_count(len(edits))
    state = _State(
        {path: Document.of(text) for path, text in files.items()}, frozenset(files), tree, split
    )
    applied: list[Applied] = []
    failures: list[Failure] = []
    seen: set[tuple[str, str, str]] = set()
    for edit in edits:
        try:
            path = _target(edit, state)
            if (path, edit.original, edit.updated) in seen and not edit.whole:
                applied.append(Applied(edit, path, "duplicate"))
                continue
            if path not in state.docs:
                state.docs[path] = Document(exists=False)
            how, score = _apply_one(edit, path, state)
            state.changed(path)
            applied.append(Applied(edit, path, how, score, state.notes.pop(path, "")))
            seen.add((path, edit.original, edit.updated))
        except _Miss as miss:
            failures.append(miss.failure)
    changed = {
        path: doc.text()
        for path, doc in state.docs.items()
        if (path not in files and doc.exists) or (path in files and doc.text() != files[path])
    }
    return ApplyResult(changed, tuple(applied), tuple(failures))


def _target(edit: Edit, state: _State) -> str:
    """The path an edit changes: its own name resolved, or the file its prose or text points to."""
    creating = edit.whole or not edit.original.strip()
    if edit.path:
        path = paths.resolve(edit.path, state.docs, state.tree, creating)
    else:
        path = _unnamed_target(edit, state)
    refusal = paths.refusal(path)
    if refusal:
        raise _Miss(Failure(edit, f"Block {edit.index} was refused: {refusal}.", path=path))
    if path not in state.docs and not creating and path not in state.tree.files:
        holders = _holders(edit, state, set(state.chat))
        if len(holders) == 1:
            state.notes[holders[0]] = f"it names {path}, which does not exist; its text is here"
            return holders[0]
    if path not in state.docs and (path in state.tree.files or not creating):
        raise _Miss(Failure(edit, _not_in_chat(edit, path, state), path=path, kind="outside-chat"))
    return path


def _unnamed_target(edit: Edit, state: _State) -> str:
    """The file of an edit that names none: the one chat file holding its text, else the one
    chat file its prose mentions (several are too many to guess from), else the only chat
    file when the prose names none."""
    if edit.original.strip():
        holders = _holders(edit, state, set(state.chat))
        if len(holders) == 1:
            return holders[0]
    named = {paths.resolve(m, state.chat, state.tree) for m in edit.mentions} & state.chat
    path = next(iter(named)) if len(named) == 1 else ""
    if not path and not edit.mentions and len(state.chat) == 1:
        path = next(iter(state.chat))
    if not path:
        raise _Miss(Failure(edit, _NO_NAME.format(n=edit.index)))
    if edit.whole and not _fits(edit, path, state.docs[path]):
        raise _Miss(Failure(edit, _NO_NAME.format(n=edit.index), path=path))
    return path


_NO_NAME = (
    "Block {n} does not say which file it edits: put the file's path alone on the line above"
    " the block's fence."
)
KEEP_SHARE = 0.3
"""The share of an existing file's lines that a whole-file block without a name must keep to be
taken for a new version of it (a snippet or an example keeps less)."""
_LANGUAGES = {
    "diff": (".diff", ".patch"),
    "patch": (".diff", ".patch"),
    "json": (".json", ".jsonc", ".json5", ".ipynb"),
}
"""Fence languages that are usually a tool's output rather than a file, and the extensions of
the files a block of that language can be."""


def _fits(edit: Edit, path: str, doc: Document) -> bool:
    """True when a whole-file block without a name can be a new version of the file at path:
    its language fits the file's extension, and it keeps enough of the file's lines."""
    if edit.language in _LANGUAGES and not path.lower().endswith(_LANGUAGES[edit.language]):
        return False
    old = {line.strip() for line in doc.lines if line.strip()} if doc.exists else set()
    if not old:
        return True
    new = {line.strip() for line in split_lines(edit.updated) if line.strip()}
    return len(old & new) >= KEEP_SHARE * len(old)


def _not_in_chat(edit: Edit, path: str, state: _State) -> str:
    exists = path in state.tree.files
    text = f"Block {edit.index} edits {path}, which is not one of the files in the chat"
    text += " (it exists, but you have not seen it)." if exists and edit.whole else "."
    if edit.original.strip() and state.explained < MAX_EXPLAINED:
        others = _holders(edit, state, set(state.docs))
        if len(others) == 1:
            text += f" Its ORIGINAL text is in {others[0]}: name that file above the block."
    return text


def _apply_one(edit: Edit, path: str, state: _State) -> tuple[str, float]:
    """Change the document in place for one edit; return how it matched and the score."""
    doc = state.docs[path]
    updated = split_lines(edit.updated)
    if edit.whole:
        _refuse_placeholders(edit, path, updated, doc.lines)
        how = "whole" if doc.exists else "created"
        doc.lines[:] = updated
        doc.exists = True
        return how, 1.0
    original = split_lines(edit.original)
    if not any(line.strip() for line in original):
        return _insert(edit, path, doc, updated)
    _refuse_placeholders(edit, path, updated, original)
    pieces = lazy.split_elisions(original)
    if len(pieces) > 1:
        spots = _elided(edit, path, state, pieces, lazy.split_elisions(updated))
        how = "elision"
    else:
        try:
            spots = [_find(edit, path, state, original, updated)]
            how = spots[0].how
        except _Miss as miss:
            if miss.failure.kind != "not-found":
                raise
            spots = _split(edit, path, state, original, updated) if state.split else None
            if spots is None:
                raise _Miss(_explain(miss.failure, state, original)) from None
            how = "split"
    _replace(path, state, spots)
    score = spots[0].score if len(spots) == 1 else 0.99
    if spots[0].places > 1 and len(spots) == 1:
        state.notes[path] = (
            f"its text is in {spots[0].places} places; the first after the previous block's"
            f" change (line {spots[0].start + 1}) was edited"
        )
    return how, score


def _replace(path: str, state: _State, spots: list[matching.Found]) -> None:
    """Make the changes found, from the last up so that earlier positions stay true, and put
    the file's cursor after the last of them."""
    lines = state.docs[path].lines
    for spot in reversed(spots):
        lines[spot.start : spot.end] = spot.updated
    *earlier, last = spots
    moved = sum(len(s.updated) - (s.end - s.start) for s in earlier)
    state.cursor[path] = last.start + moved + len(last.updated)


def _split(edit, path, state: _State, original, updated) -> list[matching.Found] | None:
    """The edit's separate changes, each found with less context each try, in order; None
    when some change is not found at any context, or the hunk is too long to split."""
    if max(len(original), len(updated)) > MAX_SPLIT:
        return None
    # Long hunks let difflib ignore their most common lines ('}', blanks): fast, and enough.
    matcher = difflib.SequenceMatcher(None, original, updated, autojunk=len(original) > 200)
    for context in (3, 2, 1):
        spots: list[matching.Found] = []
        start = 0
        try:
            for group in matcher.get_grouped_opcodes(context):
                a0, a1, b0, b1 = group[0][1], group[-1][2], group[0][3], group[-1][4]
                spot = _find(edit, path, state, original[a0:a1], updated[b0:b1], start)
                spots.append(spot)
                start = spot.end
        except _Miss:
            continue
        if spots:
            return spots
    return None


def _insert(edit: Edit, path: str, doc: Document, updated: list[str]) -> tuple[str, float]:
    """An edit with nothing to find: it creates the file, or adds its lines to it (at the end,
    or where a diff's hunk header says)."""
    if not doc.exists or not any(line.strip() for line in doc.lines):
        created = not doc.exists
        doc.lines[:] = updated
        doc.exists = True
        return ("created" if created else "whole"), 1.0
    if edit.new_file:
        raise _Miss(
            Failure(
                edit,
                f"Block {edit.index} creates {path} (--- /dev/null), but that file exists: write"
                " a diff of the changes to it instead.",
                path=path,
            )
        )
    if edit.insert_at is None:
        if updated and _ends_with(doc.lines, updated):
            return "already-present", 1.0
        doc.lines.extend(updated)
        return "appended", 1.0
    if edit.insert_at < 0:
        raise _Miss(
            Failure(
                edit,
                f"Block {edit.index} adds lines to {path} with no unchanged lines around them, so"
                " where they go is unclear: include a few lines of context.",
                path=path,
            )
        )
    at = min(edit.insert_at, len(doc.lines))
    if updated and doc.lines[at : at + len(updated)] == updated:
        return "already-present", 1.0
    doc.lines[at:at] = updated
    return "inserted", 1.0


def _ends_with(lines: list[str], tail: list[str]) -> bool:
    """True when lines end with tail, blank lines at the very end aside (a reply sent twice)."""
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    while tail and not tail[-1].strip():
        tail = tail[:-1]
    return bool(tail) and lines[len(lines) - len(tail) :] == tail


def _elided(edit, path, state: _State, pieces, updated_pieces) -> list[matching.Found]:
    """An ORIGINAL that skips lines with '...': each run between them is found in turn."""
    if len(updated_pieces) != len(pieces):
        raise _Miss(
            Failure(
                edit,
                f"Block {edit.index} skips lines with '...' in ORIGINAL but not at the same places"
                " in UPDATED. Write out every line of ORIGINAL exactly as in the file.",
                path=path,
            )
        )
    spots: list[matching.Found] = []
    start = 0
    for original, updated in zip(pieces, updated_pieces, strict=True):
        if not any(line.strip() for line in original):
            if any(line.strip() for line in updated):
                raise _Miss(
                    Failure(
                        edit,
                        f"Block {edit.index} adds lines next to a '...' in ORIGINAL, so where they"
                        " go is unclear. Write out the lines around them instead of '...'.",
                        path=path,
                    )
                )
            continue
        try:
            spot = _find(edit, path, state, original, updated, start)
        except _Miss as miss:
            raise _Miss(_explain(miss.failure, state, original)) from None
        spots.append(spot)
        start = spot.end
    if not spots:
        raise _Miss(Failure(edit, f"Block {edit.index} has nothing but '...' to find.", path=path))
    return spots


def _find(edit, path, state: _State, original, updated, start: int = 0) -> matching.Found:
    """The place original stands in the file, at line start or later (the first after the
    previous block's change when it stands in several); a bare _Miss when nowhere."""
    hay = state.hay(path)
    if state.spent() > MAX_SEARCHED:
        raise _Miss(
            Failure(
                edit,
                f"Block {edit.index} was not tried: the blocks before it took all the searching"
                " one reply may do. Send fewer edits in one reply.",
                path=path,
                kind="budget",
            )
        )
    after = state.cursor.get(path) if start == 0 else start
    found = matching.locate(hay, original, updated, after, start)
    if found is None and _changes(original, updated):
        again = matching.locate(hay, updated, updated, None, start)
        if isinstance(again, matching.Found):
            kept = hay.lines[again.start : again.end]
            return matching.Found(again.start, again.end, "already-present", kept)
    if found is None and state.fuzzy_left > 0 and similarity.scorable(original):
        state.fuzzy_left -= 1
        found = matching.fuzzy(hay, original, updated, FUZZY_THRESHOLD)
        if isinstance(found, matching.Found) and found.start < start:
            found = None
    if isinstance(found, matching.Found):
        return found
    if isinstance(found, matching.Ambiguous):
        shown = ", ".join(str(s + 1) for s in found.starts[:6])
        count = f"{len(found.starts)}" if len(found.starts) < matching.MAX_PLACES else "many"
        raise _Miss(
            Failure(
                edit,
                f"The ORIGINAL text of block {edit.index} matches {count} places in"
                f" {path} (lines {shown}). Include more lines around the change so that it"
                " matches exactly one place.",
                path=path,
                kind="ambiguous",
            )
        )
    reason = f"The ORIGINAL text of block {edit.index} was not found in {path}."
    raise _Miss(Failure(edit, reason, path=path, kind="not-found"))


def _explain(failure: Failure, state: _State, original: list[str]) -> Failure:
    """A not-found failure with the closest lines of its file and the other file that holds
    its text, for the first MAX_EXPLAINED of a reply; any other failure as it is."""
    if failure.kind != "not-found" or state.explained >= MAX_EXPLAINED:
        return failure
    state.explained += 1
    edit, path, reason = failure.edit, failure.path, failure.reason
    others = _holders(edit, state, set(state.docs) - {path})
    if len(others) == 1:
        reason += (
            f" It is in {others[0]}, but a block only changes the file it names:"
            f" put {others[0]} above the block if that file is meant."
        )
    lines = state.hay(path).lines
    windows = similarity.best_windows(lines, original, limit=1, loose=True, floor=0.5)
    closest = ""
    if windows and windows[0].score >= 0.5:
        closest = "\n".join(lines[windows[0].start : windows[0].end])
    return Failure(edit, reason, closest, path, kind="not-found")


def _changes(original: list[str], updated: list[str]) -> bool:
    """True when updated adds a line that original does not have (so finding updated in the
    file means the change is already made, not that the text is merely common)."""
    before = {line.strip() for line in original}
    return any(line.strip() and line.strip() not in before for line in updated)


def _holders(edit: Edit, state: _State, among: set[str]) -> list[str]:
    """The files among those given in which the edit's ORIGINAL text stands once (none once
    the reply's searching is used up, or among more than MAX_HOLDERS files)."""
    if len(among) > MAX_HOLDERS:
        return []
    original = split_lines(edit.original)
    found = []
    for path in sorted(among):
        doc = state.docs.get(path)
        if doc is None or not doc.exists or state.spent() > MAX_SEARCHED:
            continue
        if isinstance(matching.locate(state.hay(path), original, original), matching.Found):
            found.append(path)
    return found


def _refuse_placeholders(edit: Edit, path: str, updated: list[str], before: list[str]) -> None:
    found = lazy.new_placeholders(updated, before)
    if found:
        raise _Miss(
            Failure(
                edit,
                f"Block {edit.index} for {path} contains the placeholder {found[0].strip()!r},"
                " which would delete the code it stands for. Write out the complete code"
                " instead of placeholders.",
                path=path,
            )
        )
