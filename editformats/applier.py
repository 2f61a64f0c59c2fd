"""Applying parsed edits to the chat files in memory, shared by every edit format.

The work is bounded: a reply may hold at most MAX_EDITS edits, near-miss (fuzzy) matching is
tried for at most MAX_FUZZY of them, and the closest lines are looked up for the first
MAX_EXPLAINED failures only (the ones a failure message shows).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field

from editformats import lazy, matching, paths, similarity
from editformats.document import Document, split_lines
from editformats.edit import Applied, ApplyResult, Edit, Failure
from editformats.errors import ReplyError

FUZZY_THRESHOLD = 0.9
"""How alike (0..1) a near-miss must be to the text an edit looked for to be applied anyway."""
MAX_EDITS = 1000
"""Edits one reply may hold; a reply with more is refused whole."""
MAX_FUZZY = 50
"""Edits per reply for which a near-miss is looked for."""
MAX_EXPLAINED = 5
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
    cursor: dict[str, int] = field(default_factory=dict)
    """Per file, the line after the last edit applied to it: the next block goes after it."""
    notes: dict[str, str] = field(default_factory=dict)
    fuzzy_left: int = MAX_FUZZY
    explained: int = 0

    def hay(self, path: str) -> matching.Lines:
        """The document's lines, with their per-tier joined text cached until they change."""
        if path not in self.hays:
            self.hays[path] = matching.Lines(self.docs[path].lines)
        return self.hays[path]

    def changed(self, path: str) -> None:
        self.hays.pop(path, None)


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
    if len(edits) > MAX_EDITS:
        raise ReplyError(
            f"Your reply holds {len(edits):,} edits; at most {MAX_EDITS:,} are applied from one"
            " reply. Send fewer, larger edits."
        )
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
    """The file of an edit that names none: the one chat file holding its text, else the chat
    file its prose mentions first, else the only chat file when the prose names none."""
    if edit.original.strip():
        holders = _holders(edit, state, set(state.chat))
        if len(holders) == 1:
            return holders[0]
    named = [paths.resolve(m, state.chat, state.tree) for m in edit.mentions]
    path = next((p for p in named if p in state.chat), "")
    if not path and not edit.mentions and len(state.chat) == 1:
        path = next(iter(state.chat))
    if not path:
        raise _Miss(
            Failure(
                edit,
                f"Block {edit.index} does not say which file it edits: put the file's path alone"
                " on the line above the block's fence.",
            )
        )
    return path


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
        return _create_or_append(path, doc, updated)
    _refuse_placeholders(edit, path, updated, original)
    pieces = lazy.split_elisions(original)
    if len(pieces) > 1:
        return _apply_elided(edit, path, state, pieces, lazy.split_elisions(updated))
    try:
        found = _find(edit, path, state, doc.lines, original, updated, 0)
    except _Miss:
        if state.split and _apply_split(edit, path, state, original, updated):
            return "split", 0.99
        raise
    doc.lines[found.start : found.end] = found.updated
    state.cursor[path] = found.start + len(found.updated)
    if found.places > 1:
        state.notes[path] = (
            f"its text is in {found.places} places; the first after the previous block's change"
            f" (line {found.start + 1}) was edited"
        )
    return found.how, found.score


def _apply_split(edit: Edit, path: str, state: _State, original, updated) -> bool:
    """Apply each change of the edit on its own, with less context each try; True if all did."""
    doc = state.docs[path]
    for context in (3, 2, 1):
        matcher = difflib.SequenceMatcher(None, original, updated, autojunk=False)
        lines, offset = list(doc.lines), 0
        try:
            for group in matcher.get_grouped_opcodes(context):
                a0, a1, b0, b1 = group[0][1], group[-1][2], group[0][3], group[-1][4]
                found = _find(edit, path, state, lines, original[a0:a1], updated[b0:b1], offset)
                lines[found.start : found.end] = found.updated
                offset = found.start + len(found.updated)
        except _Miss:
            continue
        doc.lines[:] = lines
        state.cursor[path] = offset
        return True
    return False


def _create_or_append(path: str, doc: Document, updated: list[str]) -> tuple[str, float]:
    if not doc.exists or not any(line.strip() for line in doc.lines):
        created = not doc.exists
        doc.lines[:] = updated
        doc.exists = True
        return ("created" if created else "whole"), 1.0
    if updated and isinstance(matching.locate(doc.lines, updated, updated), matching.Found):
        return "already-present", 1.0
    doc.lines.extend(updated)
    return "appended", 1.0


def _apply_elided(edit: Edit, path: str, state: _State, pieces, updated_pieces):
    """An ORIGINAL that skips lines with '...': each run between them is replaced in turn."""
    if len(updated_pieces) != len(pieces):
        raise _Miss(
            Failure(
                edit,
                f"Block {edit.index} skips lines with '...' in ORIGINAL but not at the same places"
                " in UPDATED. Write out every line of ORIGINAL exactly as in the file.",
                path=path,
            )
        )
    doc = state.docs[path]
    lines, offset, hows = list(doc.lines), 0, set()
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
        found = _find(edit, path, state, lines, original, updated, offset)
        lines[found.start : found.end] = found.updated
        offset = found.start + len(found.updated)
        hows.add(found.how)
    doc.lines[:] = lines
    state.cursor[path] = offset
    return "elision", 1.0 if hows <= {"exact"} else 0.99


def _find(edit, path, state: _State, lines, original, updated, offset) -> matching.Found:
    """The one place original stands in lines (from line offset on), or a _Miss explaining why."""
    whole_doc = lines is state.docs[path].lines and offset == 0
    hay = state.hay(path) if whole_doc else matching.Lines(lines[offset:])
    after = state.cursor.get(path) if offset == 0 else 0
    found = matching.locate(hay, original, updated, after)
    if found is None and _changes(original, updated):
        again = matching.locate(hay, updated, updated)
        if isinstance(again, matching.Found):
            return matching.Found(
                offset + again.start,
                offset + again.end,
                "already-present",
                hay.lines[again.start : again.end],
            )
    if found is None and state.fuzzy_left > 0 and similarity.scorable(original):
        state.fuzzy_left -= 1
        found = matching.fuzzy(hay.lines, original, updated, FUZZY_THRESHOLD)
    if isinstance(found, matching.Found):
        return matching.Found(
            offset + found.start, offset + found.end, found.how, found.updated, found.score
        )
    if isinstance(found, matching.Ambiguous):
        shown = ", ".join(str(offset + s + 1) for s in found.starts[:6])
        count = f"{len(found.starts)}" if len(found.starts) < matching.MAX_PLACES else "many"
        raise _Miss(
            Failure(
                edit,
                f"The ORIGINAL text of block {edit.index} matches {count} places in"
                f" {path} (lines {shown}). Include more lines around the change so that it"
                " matches exactly one place.",
                path=path,
            )
        )
    raise _Miss(_not_found(edit, path, state, hay.lines, original))


def _changes(original: list[str], updated: list[str]) -> bool:
    """True when updated adds a line that original does not have (so finding updated in the
    file means the change is already made, not that the text is merely common)."""
    before = {line.strip() for line in original}
    return any(line.strip() and line.strip() not in before for line in updated)


def _not_found(edit: Edit, path: str, state: _State, lines, original) -> Failure:
    reason = f"The ORIGINAL text of block {edit.index} was not found in {path}."
    if state.explained >= MAX_EXPLAINED:
        return Failure(edit, reason, "", path)
    state.explained += 1
    others = _holders(edit, state, set(state.docs) - {path})
    if len(others) == 1:
        reason += (
            f" It is in {others[0]}, but a block only changes the file it names:"
            f" put {others[0]} above the block if that file is meant."
        )
    windows = similarity.best_windows(lines, original, limit=1, loose=True)
    closest = ""
    if windows and windows[0].score >= 0.5:
        closest = "\n".join(lines[windows[0].start : windows[0].end])
    return Failure(edit, reason, closest, path)


def _holders(edit: Edit, state: _State, among: set[str]) -> list[str]:
    """The files among those given in which the edit's ORIGINAL text stands once."""
    original = split_lines(edit.original)
    found = []
    for path in sorted(among):
        doc = state.docs.get(path)
        if doc is None or not doc.exists:
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
