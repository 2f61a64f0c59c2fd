"""Applying parsed edits to the chat files in memory, shared by every edit format: each edit's
file (targets.py), then the place its text stands (matching.py), then the change.

The work is bounded: a reply may hold at most edit.MAX_EDITS edits, and its searching is
metered as state.py says.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping

from editformats import paths
from editformats.applying import already, lazy, matching, places, similarity
from editformats.applying.document import Document, split_lines
from editformats.applying.state import MAX_EXPLAINED, MAX_SEARCHED, Miss, State
from editformats.applying.targets import holding, target
from editformats.edit import Applied, ApplyResult, Edit, Failure, check_count

FUZZY_THRESHOLD = 0.9
"""How alike (0..1) a near-miss must be to the text an edit looked for to be applied anyway."""
MAX_SPLIT = 10_000
"""The longest hunk (in lines) retried as its separate changes."""


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
    state = State(
        {path: Document.of(text) for path, text in files.items()}, frozenset(files), tree, split
    )
    applied: list[Applied] = []
    failures: list[Failure] = []
    seen: set[tuple[str, str, str]] = set()
    upcoming = _upcoming(edits)
    for edit, following in zip(edits, upcoming, strict=True):
        state.upcoming = following
        try:
            path = target(edit, state)
            if (path, edit.original, edit.updated) in seen and not edit.whole:
                applied.append(Applied(edit, path, "duplicate"))
                continue
            if path not in state.docs:
                state.docs[path] = Document(exists=False)
            state.before_changing(path)
            how, score = _apply_one(edit, path, state)
            state.changed(path)
            applied.append(Applied(edit, path, how, score, state.notes.pop(path, "")))
            seen.add((path, edit.original, edit.updated))
        except Miss as miss:
            failures.append(miss.failure)
    changed = {
        path: doc.text()
        for path, doc in state.docs.items()
        if (path not in files and doc.exists) or (path in files and doc.text() != files[path])
    }
    return ApplyResult(changed, tuple(applied), tuple(failures))


def _upcoming(edits: list[Edit]) -> list[Edit | None]:
    """For each edit, the next edit of the reply that names the same file (None for none)."""
    following: list[Edit | None] = []
    last: dict[str, Edit] = {}
    for edit in reversed(edits):
        following.append(last.get(edit.path) if edit.path else None)
        if edit.path:
            last[edit.path] = edit
    return following[::-1]


def _apply_one(edit: Edit, path: str, state: State) -> tuple[str, float]:
    """Change the document in place for one edit; return how it matched and the score."""
    doc = state.docs[path]
    updated = split_lines(edit.updated)
    if edit.whole:
        if doc.exists:
            # A new file elides nothing: its "rest unchanged" comment is only a comment.
            _refuse_placeholders(edit, path, updated, doc.lines)
        if any(line.strip() for line in doc.lines) and not any(line.strip() for line in updated):
            raise Miss(
                Failure(
                    edit,
                    f"Block {edit.index} for {path} is empty, which would empty the file: write"
                    " out the whole new file.",
                    path=path,
                )
            )
        how = "whole" if doc.exists else "created"
        doc.lines[:] = updated
        doc.exists = True
        state.rewrote(path)
        return how, 1.0
    original = split_lines(edit.original)
    if not any(line.strip() for line in original):
        return _insert(edit, path, state, updated)
    _refuse_placeholders(edit, path, updated, original)
    pieces = lazy.split_elisions(original)
    if len(pieces) > 1:
        spots = _elided(edit, path, state, pieces, lazy.split_elisions(updated))
        how = "elision"
    else:
        try:
            spots = [_find(edit, path, state, original, updated)]
            how = spots[0].how
        except Miss as miss:
            if miss.failure.kind != "not-found":
                raise
            spots = _split(edit, path, state, original, updated) if state.split else None
            if spots is None:
                raise Miss(_explain(miss, state, original)) from None
            how = "split"
    _replace(path, state, spots)
    score = spots[0].score if len(spots) == 1 else 0.99
    return how, score


def _replace(path: str, state: State, spots: list[matching.Found]) -> None:
    """Make the changes found, from the last up so that earlier positions stay true, and put
    the file's cursor after the last of them."""
    lines = state.docs[path].lines
    for spot in reversed(spots):
        lines[spot.start : spot.end] = spot.updated
        state.moved(path, spot.start, spot.end, len(spot.updated))
    *earlier, last = spots
    moved = sum(len(s.updated) - (s.end - s.start) for s in earlier)
    state.cursor[path] = last.start + moved + len(last.updated)


def _split(edit, path, state: State, original, updated) -> list[matching.Found] | None:
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
            groups = [
                (original[g[0][1] : g[-1][2]], updated[g[0][3] : g[-1][4]])
                for g in matcher.get_grouped_opcodes(context)
            ]
            for k, (before, after) in enumerate(groups):
                following = groups[k + 1] if k + 1 < len(groups) else None
                spot = _find(edit, path, state, before, after, start, following)
                spots.append(spot)
                start = spot.end
        except Miss:
            continue
        if spots:
            return spots
    return None


def _insert(edit: Edit, path: str, state: State, updated: list[str]) -> tuple[str, float]:
    """An edit with nothing to find: it creates the file, or adds its lines to it (at the end,
    or where a diff's hunk header says)."""
    doc = state.docs[path]
    if not doc.exists or not any(line.strip() for line in doc.lines):
        created = not doc.exists
        doc.lines[:] = updated
        doc.exists = True
        state.rewrote(path)
        return ("created" if created else "whole"), 1.0
    if edit.new_file:
        raise Miss(
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
        state.moved(path, len(doc.lines), len(doc.lines), len(updated))
        doc.lines.extend(updated)
        return "appended", 1.0
    if edit.insert_at < 0:
        raise Miss(
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
    state.moved(path, at, at, len(updated))
    return "inserted", 1.0


def _ends_with(lines: list[str], tail: list[str]) -> bool:
    """True when lines end with tail, blank lines at the very end aside (a reply sent twice)."""
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    while tail and not tail[-1].strip():
        tail = tail[:-1]
    return bool(tail) and lines[len(lines) - len(tail) :] == tail


def _elided(edit, path, state: State, pieces, updated_pieces) -> list[matching.Found]:
    """An ORIGINAL that skips lines with '...': each run between them is found in turn."""
    if len(updated_pieces) != len(pieces):
        raise Miss(
            Failure(
                edit,
                f"Block {edit.index} skips lines with '...' in ORIGINAL but not at the same places"
                " in UPDATED. Write out every line of ORIGINAL exactly as in the file.",
                path=path,
            )
        )
    spots: list[matching.Found] = []
    start = 0
    runs = list(zip(pieces, updated_pieces, strict=True))
    following = _following(runs)
    for k, (original, updated) in enumerate(runs):
        if not any(line.strip() for line in original):
            if any(line.strip() for line in updated):
                raise Miss(
                    Failure(
                        edit,
                        f"Block {edit.index} adds lines next to a '...' in ORIGINAL, so where they"
                        " go is unclear. Write out the lines around them instead of '...'.",
                        path=path,
                    )
                )
            continue
        try:
            spot = _find(edit, path, state, original, updated, start, following[k])
        except Miss as miss:
            raise Miss(_explain(miss, state, original)) from None
        spots.append(spot)
        start = spot.end
    if not spots:
        raise Miss(Failure(edit, f"Block {edit.index} has nothing but '...' to find.", path=path))
    return spots


def _following(runs: list[tuple[list[str], list[str]]]) -> list[tuple | None]:
    """For each run of an elided block, the next run that has lines to find (None for none)."""
    found: list[tuple | None] = [None] * len(runs)
    for k in range(len(runs) - 2, -1, -1):
        later = runs[k + 1]
        found[k] = later if any(line.strip() for line in later[0]) else found[k + 1]
    return found


def _find(
    edit, path, state: State, original, updated, start: int = 0, following=None
) -> matching.Found:
    """The place original stands in the file, at line start or later (of several, the one
    places.Choice settles, following being the next part of the same edit); a bare Miss when
    nowhere."""
    hay = state.hay(path)
    if state.spent() > MAX_SEARCHED:
        raise Miss(
            Failure(
                edit,
                f"Block {edit.index} was not tried: the blocks before it took all the searching"
                " one reply may do. Send fewer edits in one reply.",
                path=path,
                kind="budget",
            )
        )
    after = state.cursor.get(path) if start == 0 else start
    choice = places.Choice(state, path, original, updated, after, following)
    found = matching.locate(hay, original, updated, after, start, choice)
    made = already.judge(hay, original, updated, start) if found is None else None
    if isinstance(made, matching.Found):
        return made
    if found is None and _taken_by_an_earlier_block(path, state, original, updated):
        raise Miss(
            Failure(
                edit,
                f"The ORIGINAL text of block {edit.index} is no longer in {path}: an earlier block"
                " of this reply changed those lines. Write one block per place, with the change"
                " as you want it in the end.",
                path=path,
            )
        )
    if found is None and state.fuzzy_left > 0 and similarity.scorable(original):
        state.fuzzy_left -= 1
        found = matching.fuzzy(hay, original, updated, FUZZY_THRESHOLD)
        if isinstance(found, matching.Found) and found.start < start:
            found = None
    if isinstance(found, matching.Found):
        if found.places > 1:
            state.notes[path] = choice.note(found)
        return found
    if isinstance(found, matching.Ambiguous):
        raise Miss(_ambiguous(edit, path, found))
    reason = f"The ORIGINAL text of block {edit.index} was not found in {path}."
    if isinstance(made, already.Elsewhere):
        reason += already.elsewhere(edit.index, path, made)
        raise Miss(Failure(edit, reason, path=path, kind="not-found"), (made.start, made.end))
    raise Miss(Failure(edit, reason, path=path, kind="not-found"))


def _ambiguous(edit: Edit, path: str, found: matching.Ambiguous) -> Failure:
    """The failure of a block whose text stands in several places, every one of them named."""
    shown = ", ".join(str(s + 1) for s in found.starts)
    count = f"{len(found.starts)}" if len(found.starts) < matching.MAX_PLACES else "many"
    return Failure(
        edit,
        f"The ORIGINAL text of block {edit.index} matches {count} places in"
        f" {path} (lines {shown}). Include more lines around the change so that it"
        " matches exactly one place.",
        path=path,
        kind="ambiguous",
    )


def _taken_by_an_earlier_block(path: str, state: State, original, updated) -> bool:
    """Whether original was in the file before this reply's edits, which then changed it: two
    blocks of one reply on the same lines, the second written against the old text."""
    first = state.first.get(path)
    if first is None or first.lines == state.docs[path].lines:
        return False
    return matching.locate(first, original, updated) is not None


def _explain(miss: Miss, state: State, original: list[str]) -> Failure:
    """A not-found failure with the closest lines of its file and the other file that holds
    its text (not the lines the miss says to leave aside), for the first MAX_EXPLAINED of a
    reply; any other failure as it is."""
    failure = miss.failure
    if failure.kind != "not-found" or state.explained >= MAX_EXPLAINED:
        return failure
    state.explained += 1
    edit, path, reason = failure.edit, failure.path, failure.reason
    others = holding(edit, state, set(state.docs) - {path})
    if len(others) == 1:
        reason += (
            f" It is in {others[0]}, but a block only changes the file it names:"
            f" put {others[0]} above the block if that file is meant."
        )
    lines = state.hay(path).lines
    start, end = miss.besides or (0, 0)
    limit = 1 if miss.besides is None else 2
    windows = similarity.best_windows(lines, original, limit=limit, loose=True, floor=0.5)
    near = [w for w in windows if w.score >= 0.5 and not (w.start < end and start < w.end)]
    closest = "\n".join(lines[near[0].start : near[0].end]) if near else ""
    return Failure(edit, reason, closest, path, kind="not-found")


def _refuse_placeholders(edit: Edit, path: str, updated: list[str], before: list[str]) -> None:
    found = lazy.new_placeholders(updated, before)
    if found:
        raise Miss(
            Failure(
                edit,
                f"Block {edit.index} for {path} contains the placeholder {found[0].strip()!r},"
                " which would delete the code it stands for. Write out the complete code"
                " instead of placeholders.",
                path=path,
            )
        )
