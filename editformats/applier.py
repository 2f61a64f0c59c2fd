"""Applying parsed edits to the chat files in memory, shared by every edit format."""

from __future__ import annotations

import difflib
from collections.abc import Mapping

from editformats import lazy, matching, paths, similarity
from editformats.document import Document, split_lines
from editformats.edit import Applied, ApplyResult, Edit, Failure

FUZZY_THRESHOLD = 0.9
"""How alike (0..1) a near-miss must be to the text an edit looked for to be applied anyway."""


class _Miss(Exception):
    """An edit that cannot apply; carries the Failure. Never leaves this module."""

    def __init__(self, failure: Failure):
        super().__init__(failure.reason)
        self.failure = failure


def apply(edits: list[Edit], files: Mapping[str, str], split: bool = False) -> ApplyResult:
    """Apply edits in order to files (path -> text); a failed edit changes nothing.

    With split, an edit whose text is not found is retried as its separate changes, each with
    a few lines of context: diff hunks carry much context and models often miscopy some of it.
    """
    docs = {path: Document.of(text) for path, text in files.items()}
    applied: list[Applied] = []
    failures: list[Failure] = []
    seen: set[tuple[str, str, str]] = set()
    for edit in edits:
        try:
            path = _target(edit, docs)
            if (path, edit.original, edit.updated) in seen and not edit.whole:
                applied.append(Applied(edit, path, "duplicate"))
                continue
            doc = docs[path] if path in docs else Document(exists=False)
            how, score = _apply_one(edit, path, doc, docs, split)
            # An edited file ends with a newline, as POSIX tools and most editors expect.
            doc.final_newline = True
            docs[path] = doc
            applied.append(Applied(edit, path, how, score))
            seen.add((path, edit.original, edit.updated))
        except _Miss as miss:
            failures.append(miss.failure)
    changed = {
        path: doc.text()
        for path, doc in docs.items()
        if (path not in files and doc.exists) or (path in files and doc.text() != files[path])
    }
    return ApplyResult(changed, tuple(applied), tuple(failures))


def _target(edit: Edit, docs: Mapping[str, Document]) -> str:
    """The path an edit changes: its own name resolved to a chat file, or one its prose names."""
    known = list(docs)
    if edit.path:
        path = paths.resolve(edit.path, known)
    else:
        named = [paths.resolve(m, known) for m in edit.mentions]
        path = next((p for p in named if p in docs), "")
        if not path and len(known) == 1:
            path = known[0]
        if not path:
            raise _Miss(Failure(edit, f"Block {edit.index} does not say which file it edits."))
    refusal = paths.refusal(path)
    if refusal:
        raise _Miss(Failure(edit, f"Block {edit.index} was refused: {refusal}.", path=path))
    if path not in docs and edit.original.strip() and not edit.whole:
        raise _Miss(Failure(edit, _not_in_chat(edit, path, docs), path=path))
    return path


def _not_in_chat(edit: Edit, path: str, docs: Mapping[str, Document]) -> str:
    text = f"Block {edit.index} edits {path}, which is not one of the files in the chat."
    other = _holder(edit, docs)
    if other:
        text += f" Its ORIGINAL text is in {other}: name that file above the block."
    return text


def _apply_one(edit: Edit, path: str, doc: Document, docs: Mapping[str, Document], split: bool):
    """Change doc in place for one edit; return how it matched and the score."""
    updated = split_lines(edit.updated)
    if edit.whole:
        _refuse_placeholders(edit, path, updated, doc.lines)
        how = "whole" if doc.exists else "created"
        doc.lines[:] = updated
        doc.exists = True
        return how, 1.0
    original = split_lines(edit.original)
    if not any(line.strip() for line in original):
        return _create_or_append(edit, path, doc, updated)
    _refuse_placeholders(edit, path, updated, original)
    if original[-1].strip():
        # A blank line before the closing marker is layout of the reply, not of the file.
        while updated and not updated[-1].strip():
            updated = updated[:-1]
    pieces = lazy.split_elisions(original)
    if len(pieces) > 1:
        return _apply_elided(edit, path, doc, pieces, lazy.split_elisions(updated))
    try:
        found = _find(edit, path, doc, original, updated, 0, docs)
    except _Miss:
        if split and _apply_split(edit, path, doc, original, updated):
            return "split", 0.99
        raise
    doc.lines[found.start : found.end] = found.updated
    return found.how, found.score


def _apply_split(edit, path, doc, original, updated) -> bool:
    """Apply each change of the edit on its own, with less context each try; True if all did."""
    for context in (3, 2, 1):
        matcher = difflib.SequenceMatcher(None, original, updated, autojunk=False)
        lines, offset = list(doc.lines), 0
        try:
            for group in matcher.get_grouped_opcodes(context):
                a0, a1, b0, b1 = group[0][1], group[-1][2], group[0][3], group[-1][4]
                found = _find(
                    edit, path, Document(lines), original[a0:a1], updated[b0:b1], offset, {}
                )
                lines[found.start : found.end] = found.updated
                offset = found.start + len(found.updated)
        except _Miss:
            continue
        doc.lines[:] = lines
        return True
    return False


def _create_or_append(edit: Edit, path: str, doc: Document, updated: list[str]):
    if not doc.exists or not any(line.strip() for line in doc.lines):
        while updated and not updated[-1].strip():
            updated = updated[:-1]
        doc.lines[:] = updated
        doc.exists = True
        return "created", 1.0
    if updated and isinstance(matching.locate(doc.lines, updated, updated), matching.Found):
        return "already-present", 1.0
    doc.lines.extend(updated)
    return "appended", 1.0


def _apply_elided(edit, path, doc, pieces, updated_pieces):
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
        found = _find(edit, path, Document(lines), original, updated, offset, {})
        lines[found.start : found.end] = found.updated
        offset = found.start + len(found.updated)
        hows.add(found.how)
    doc.lines[:] = lines
    return "elision", 1.0 if hows <= {"exact"} else 0.99


def _find(edit, path, doc, original, updated, offset, docs) -> matching.Found:
    """The one place original stands in doc (from line offset on), or a _Miss explaining why."""
    lines = doc.lines[offset:]
    found = matching.locate(lines, original, updated)
    if found is None and updated and updated != original:
        again = matching.locate(lines, updated, updated)
        if isinstance(again, matching.Found):
            return matching.Found(
                offset + again.start,
                offset + again.end,
                "already-present",
                lines[again.start : again.end],
            )
    if found is None:
        found = matching.fuzzy(lines, original, updated, FUZZY_THRESHOLD)
    if isinstance(found, matching.Found):
        return matching.Found(
            offset + found.start, offset + found.end, found.how, found.updated, found.score
        )
    if isinstance(found, matching.Ambiguous):
        where = ", ".join(str(offset + s + 1) for s in found.starts[:6])
        raise _Miss(
            Failure(
                edit,
                f"The ORIGINAL text of block {edit.index} matches {len(found.starts)} places in"
                f" {path} (lines {where}). Include more lines around the change so that it"
                " matches exactly one place.",
                path=path,
            )
        )
    raise _Miss(_not_found(edit, path, lines, original, docs))


def _not_found(edit, path, lines, original, docs) -> Failure:
    reason = f"The ORIGINAL text of block {edit.index} was not found in {path}."
    other = _holder(edit, {p: d for p, d in docs.items() if p != path})
    if other:
        reason += (
            f" It is in {other}, but a block only changes the file it names:"
            f" put {other} above the block if that file is meant."
        )
    windows = similarity.best_windows(lines, original, limit=1, loose=True)
    closest = ""
    if windows and windows[0].score >= 0.5:
        closest = "\n".join(lines[windows[0].start : windows[0].end])
    return Failure(edit, reason, closest, path)


def _holder(edit: Edit, docs: Mapping[str, Document]) -> str:
    """Another chat file in which the edit's ORIGINAL text stands, or ''."""
    original = split_lines(edit.original)
    for path, doc in docs.items():
        if isinstance(matching.locate(doc.lines, original, original), matching.Found):
            return path
    return ""


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
