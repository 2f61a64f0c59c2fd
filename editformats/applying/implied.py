"""Whole-file blocks whose file the reply implies rather than names: a name with spaces on the
line above (which may be prose), or a sentence naming a chat file before the block. Settled
against the chat files before applying, so that only a block that reads as one file's new
version is taken for it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from editformats import paths
from editformats.applying.document import Document, split_lines
from editformats.applying.targets import language_fits
from editformats.edit import Edit

OPTIONAL_SHARE = 0.5
"""The share of a chat file's lines an optional block must keep (a usage example keeps less)."""
OPTIONAL_LENGTH = 0.75
"""The least length of an optional block, as a share of the chat file's: a new version of a
file is about as long as it, a snippet of it shorter."""


@dataclass(frozen=True)
class _Lines:
    """A chat file's lines that are not blank, as optional blocks are measured against them."""

    count: int
    distinct: frozenset[str]

    @classmethod
    def of(cls, text: str) -> _Lines:
        lines = [line.strip() for line in Document.of(text).lines if line.strip()]
        return cls(len(lines), frozenset(lines))


def settle(edits: list[Edit], files: Mapping[str, str], tree: paths.Tree) -> list[Edit]:
    """The edits with names checked and optional blocks settled.

    A whole-file edit whose name holds spaces keeps it only when that file exists (in the chat
    or the repository); otherwise it is a line of prose and the edit has no name. A block
    without a name whose prose points to a file that a named block writes is left out: the
    named version counts (the other is the old one, shown for comparison, or a repetition). An
    optional edit becomes an edit of the one chat file its prose mentions when it reads as that
    file's new version and no other block of the reply writes the file; else it is left out."""
    chat = frozenset(files)
    named = [_spaced(edit, chat, tree) if _has_space(edit) else edit for edit in edits]
    written = {_written(edit, chat, tree) for edit in named if not edit.optional}
    by_name = {_written(edit, chat, tree) for edit in named if edit.path}
    measured: dict[str, _Lines] = {}  # each file measured once, however many blocks name it
    kept = []
    for edit in named:
        if edit.whole and not edit.path and not edit.optional:
            if _mentioned(edit, chat, tree) in by_name:
                continue
        elif edit.optional:
            path = _mentioned(edit, chat, tree)
            if not path or path in written:
                continue
            if path not in measured:
                measured[path] = _Lines.of(files[path])
            if not _reads_as(edit, path, measured[path]):
                continue
            written.add(path)
            edit = replace(edit, path=path, optional=False)
        kept.append(edit)
    return kept


def _has_space(edit: Edit) -> bool:
    return edit.whole and " " in edit.path


def _spaced(edit: Edit, chat: frozenset[str], tree: paths.Tree) -> Edit:
    """The edit with its name made exact when it is an existing file's, else with no name."""
    path = paths.normalize(paths.clean(edit.path))
    if path in chat or path in tree.files:
        return replace(edit, path=path, optional=False)
    return replace(edit, path="")


def _written(edit: Edit, chat: frozenset[str], tree: paths.Tree) -> str:
    """The file a mandatory edit writes, as far as its name or prose tells ('' if unknown)."""
    if edit.path:
        return paths.resolve(edit.path, chat, tree, creating=edit.whole)
    return _mentioned(edit, chat, tree) or (next(iter(chat)) if len(chat) == 1 else "")


def _mentioned(edit: Edit, chat: frozenset[str], tree: paths.Tree) -> str:
    """The one chat file the edit's prose mentions, or ''."""
    named = {paths.resolve(m, chat, tree) for m in edit.mentions} & chat
    return next(iter(named)) if len(named) == 1 else ""


def _reads_as(edit: Edit, path: str, old: _Lines) -> bool:
    """True when an optional block reads as a new version of the chat file at path: about as
    long, keeping half its lines, in a language that fits. A file with no text yet never
    matches: any snippet would read as its new version."""
    new = [line.strip() for line in split_lines(edit.updated) if line.strip()]
    if not old.count or len(new) < OPTIONAL_LENGTH * old.count:
        return False
    kept = len(old.distinct.intersection(new))
    return kept >= OPTIONAL_SHARE * len(old.distinct) and language_fits(edit, path)
