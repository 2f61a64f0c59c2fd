"""A patch's file operations applied in memory, all or none: Add File, Delete File, Update File
(its chunks, then its Move to), in the order the reply gives them.

Stricter than Codex's apply_patch: a failure anywhere leaves every file as it was; a file is
never added, moved or renamed over another; only files in the chat are changed, deleted or
moved; paths go through the guard every format uses.
"""

from __future__ import annotations

from collections.abc import Mapping

from editformats import paths
from editformats.applying import chunks, misses, seeking, similarity
from editformats.applying.filetext import FileText
from editformats.applying.state import MAX_EXPLAINED, Miss
from editformats.edit import Applied, ApplyResult, Edit, Failure, check_count


def apply(
    edits: list[Edit], files: Mapping[str, str], tree: paths.Tree = paths.NO_TREE
) -> ApplyResult:
    """Apply the operations to files (path -> text, the chat); nothing of them when one fails.

    tree holds the repository's files: those not in files exist but were not shown.
    """
    check_count(len(edits))
    patch = _Patch(dict(files), tree)
    applied: list[Applied] = []
    failures: list[Failure] = []
    failed: set[str] = set()
    for edit in edits:
        if paths.normalize(edit.path) in failed:
            continue  # its earlier operation failed: what this one would see is unknown
        try:
            applied.append(patch.operate(edit))
        except Miss as miss:
            failures.append(miss.failure)
            failed.add(miss.failure.path or paths.normalize(edit.path))
        except seeking.Exhausted:
            failures.append(Failure(edit, misses.exhausted(edit), kind="budget"))
            break
    if failures:
        return ApplyResult(failures=tuple(failures), atomic=True)
    return patch.result(files, tuple(applied))


class _Patch:
    """The files as the operations so far leave them."""

    def __init__(self, files: dict[str, str], tree: paths.Tree):
        self.now: dict[str, str | FileText | None] = dict(files)
        """The text of each file known (None: deleted by the patch); a file updated is kept
        as lines until the end, so that many sections on one file stay cheap."""
        self.chat = frozenset(files)
        self.tree = tree
        self.origin: dict[str, str] = {}
        """For a file moved by the patch, the chat file it was."""
        self.meter = [0]
        self.explained = 0

    def operate(self, edit: Edit) -> Applied:
        if edit.new_file:
            path = self._path(edit, edit.path)
            if self._exists(path) and not self._vacant(path):
                raise Miss(Failure(edit, misses.exists(edit, path, path in self.now), path=path))
            self.now[path] = edit.updated
            return Applied(edit, path, "created")
        path = self._present(edit)
        if edit.delete:
            self.now[path] = None
            return Applied(edit, path, "deleted")
        how, note = "exact", ""
        if edit.chunks:
            how, note = self._update(edit, path)
        if edit.move_to:
            self._moved(edit, path)
            how = "moved" if not edit.chunks else how
        return Applied(edit, path, how, note=note)

    def result(self, files: Mapping[str, str], applied: tuple[Applied, ...]) -> ApplyResult:
        """The new texts, the files removed and the files renamed."""
        texts = {p: t if isinstance(t, str) else t.text() for p, t in self.now.items() if t}
        texts |= {p: "" for p, t in self.now.items() if t == ""}
        written = {p: t for p, t in texts.items() if p not in files or t != files[p]}
        deleted = tuple(sorted(p for p in files if self.now[p] is None))
        moved = {o: p for p, o in self.origin.items() if self.now.get(p) is not None}
        return ApplyResult(written, applied, deleted=deleted, moved=moved, atomic=True)

    def _path(self, edit: Edit, name: str) -> str:
        """The repository path a name means, taken as written; Miss when refused."""
        path = paths.normalize(name)
        why = paths.refusal(path)
        if why:
            raise Miss(Failure(edit, misses.refused(edit, name, why), path=path))
        if path in self.tree.folders and not self._exists(path):
            raise Miss(Failure(edit, misses.folder(edit, path), path=path))
        return path

    def _vacant(self, path: str) -> bool:
        """True for a chat file given as empty that the repository does not hold: one named
        before it exists, which a patch may add."""
        text = self.now.get(path)
        empty = text == "" or (isinstance(text, FileText) and not text.lines and not text.bom)
        return empty and path not in self.tree.files

    def _exists(self, path: str) -> bool:
        if path in self.now:
            return self.now[path] is not None
        return path in self.tree.files

    def _present(self, edit: Edit) -> str:
        """The path of a file to change, delete or move: one in the chat that exists."""
        path = self._path(edit, edit.path)
        if path not in self.now and path in self.tree.files:
            reason = misses.not_shown(edit, path)
            raise Miss(Failure(edit, reason, path=path, kind="outside-chat"))
        if self.now.get(path) is None:
            gone = path in self.now
            raise Miss(Failure(edit, misses.missing(edit, path, gone), path=path))
        return path

    def _update(self, edit: Edit, path: str) -> tuple[str, str]:
        """The chunks applied to the file: how loosely they matched, and a note saying so."""
        known = self.now[path]
        text = known if isinstance(known, FileText) else FileText.of(known or "")
        seeking.charge(self.meter, seeking.TEXT_COST * len(text.lines))
        try:
            done = chunks.apply(text, edit.chunks, self.meter)
        except chunks.ChunkMiss as miss:
            reason = misses.chunk(edit, path, miss, text.lines, self._nearest(text.lines, miss))
            kind = "ambiguous" if miss.why == "ambiguous" else "not-found"
            raise Miss(Failure(edit, reason, path=path, kind=kind)) from None
        self.now[path] = done.text
        return done.level, "; ".join(done.notes)

    def _moved(self, edit: Edit, path: str) -> None:
        target = self._path(edit, edit.move_to)
        if target == path or (self._exists(target) and not self._vacant(target)):
            reason = misses.move_onto(edit, target, target == path)
            raise Miss(Failure(edit, reason, path=target))
        self.now[target] = self.now[path]
        self.now[path] = None
        origin = self.origin.pop(path, path)
        if origin in self.chat:
            self.origin[target] = origin

    def _nearest(self, lines: list[str], miss: chunks.ChunkMiss) -> range:
        """The lines of the file to show beside a failed chunk (for the first few failures of
        a reply only): the end of the file, or the lines most like what the chunk sought (other
        than those its change would leave, when they stand in the file)."""
        if miss.why == "ambiguous" or self.explained >= MAX_EXPLAINED:
            return range(0)
        self.explained += 1
        wanted = [miss.anchor] if miss.why == "anchor" else miss.chunk.before()
        if miss.why == "not-at-end":
            return range(max(0, len(lines) - len(wanted)), len(lines))
        made = miss.made - miss.cursor, miss.made - miss.cursor + len(miss.chunk.after())
        limit = 1 if miss.made < 0 else 2
        windows = similarity.best_windows(lines[miss.cursor :], wanted, limit=limit, loose=True)
        # The lines the change would leave are named already: show the ones it may have meant.
        windows = [
            w for w in windows if miss.made < 0 or not (w.start < made[1] and made[0] < w.end)
        ]
        if not windows:
            return range(0)
        best = windows[0]
        return range(best.start + miss.cursor, best.end + miss.cursor)
