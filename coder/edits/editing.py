"""Turning a reply into a proposal: parse, apply in memory, vet what it would write.

Shared by `coder --apply` and the chat. A proposal is written (saving.py) only when every edit
applied and every file it writes may be written: not a file that steers coder or git unless the
user named it, not git's own folder, not an existing file the model has not seen.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath

from coder.edits import guard
from coder.edits.workspace import FileText, Workspace
from coder.errors import PathError
from coder.seams.repo import Repo
from coder.terminal import Terminal
from editformats import ApplyResult, Edit, EditFormat, Failure, Reply
from editformats.paths import NO_TREE, Tree, clean, normalize, tree_of


@dataclass(frozen=True)
class Proposal:
    """A reply's edits applied in memory: the result, and the files as they were before."""

    result: ApplyResult
    originals: dict[str, FileText]

    def diff(self, context: int = 3) -> str:
        """A unified diff of every change the proposal makes, with context lines around each."""
        old = {p: f.text for p, f in self.originals.items() if f.exists}
        result = self.result
        return unified_diff(old, dict(result.files), context, result.deleted, result.moved)


@dataclass(frozen=True)
class Scope:
    """What a reply may write besides editing the chat files."""

    named: frozenset[str] = frozenset()
    """Files the user named: only these may be written when they steer coder or git."""
    steering: guard.Steering = guard.NOTHING
    """What steers git and Python in this work tree, beyond the fixed names."""
    private: tuple[str, ...] = ()
    """git's own folders inside the work tree under another name than .git: never written."""
    tree: Tree = field(default=NO_TREE, repr=False)
    """The repository's files, so that the reply's names resolve to what exists."""
    unlocked: frozenset[str] = frozenset()
    """Read-only files the user allowed this reply to write."""


def scope_of(ws: Workspace, repo: Repo | None, named: set[str] | frozenset[str]) -> Scope:
    """The Scope of a reply in this workspace, the user having named the files in named."""
    steering = guard.steering(repo, ws.root)
    if repo is None:
        return Scope(frozenset(named), steering, tree=tree_of(ws.listing()))
    return Scope(frozenset(named), steering, tuple(repo.private_folders()), tree_of(repo.files()))


def unified_diff(
    old: dict[str, str],
    new: dict[str, str],
    context: int = 3,
    deleted: Collection[str] = (),
    moved: Mapping[str, str] | None = None,
) -> str:
    """A unified diff from old to new texts by path; a path missing from old is created, a
    path of deleted removed, and a file of moved (old path -> new) renamed."""
    sources = {target: source for source, target in (moved or {}).items()}
    chunks = []
    for path in sorted({*new, *deleted} - set(sources.values())):
        source = sources.get(path, path)
        names = (f"a/{source}" if source in old else "/dev/null", f"b/{path}")
        names = names if path in new else (names[0], "/dev/null")
        lines = list(
            difflib.unified_diff(
                old.get(source, "").splitlines(keepends=True),
                new.get(path, "").splitlines(keepends=True),
                *names,
                n=context,
            )
        )
        # A rename that changes nothing, or an empty file removed, still shows its names.
        chunks.extend(lines or [f"--- {names[0]}\n", f"+++ {names[1]}\n"])
    return "".join(line if line.endswith("\n") else line + "\n" for line in chunks)


def propose(
    fmt: EditFormat,
    reply: Reply,
    ws: Workspace,
    chat: list[str],
    scope: Scope = Scope(),
    base: Mapping[str, str] | None = None,
) -> Proposal:
    """Parse the reply and apply its edits to the chat files in memory; ReplyError if unreadable.

    With base (path -> text: the files as an earlier, unwritten proposal left them), the edits
    apply to those texts instead, and the result holds that proposal's changes as well; the
    originals stay the files on disk."""
    originals = {path: ws.read(path) for path in chat}
    edits = [_relative(edit, ws) for edit in fmt.parse(reply)]
    tree = _with_named_files(scope.tree, edits, ws)
    texts = {path: f.text for path, f in originals.items()} | dict(base or {})
    result = fmt.apply(edits, texts, tree=tree)
    if base:
        earlier = {p: t for p, t in base.items() if p not in originals or t != originals[p].text}
        result = replace(result, files=earlier | dict(result.files))
    extra = _check_targets(result, ws, originals, scope) + _check_removals(result, ws, scope)
    if extra and result.atomic:
        result = ApplyResult(failures=result.failures + tuple(extra), atomic=True)
    elif extra:
        refused = {f.path for f in extra}
        result = ApplyResult(
            {p: t for p, t in result.files.items() if p not in refused},
            tuple(a for a in result.applied if a.path not in refused),
            result.failures + tuple(extra),
        )
    for path in result.files:
        if path not in originals:
            originals[path] = ws.read(path)
    return Proposal(result, originals)


def _with_named_files(tree: Tree, edits: list[Edit], ws: Workspace) -> Tree:
    """The tree with the files the edits name that exist on disk though git does not list
    them (ignored files): a name of an existing file means that file."""
    extra = set()
    for edit in edits[:MAX_NAMED]:
        path = normalize(clean(edit.path)) if edit.path else ""
        if path and path not in tree.files and _exists(ws, path):
            extra.add(path)
    return tree_of(tree.files | extra) if extra else tree


MAX_NAMED = 200
"""Names of a reply looked up on disk (the rest resolve by git's file list only)."""


def propose_asking(
    fmt: EditFormat,
    reply: Reply,
    ws: Workspace,
    chat: list[str],
    scope: Scope,
    terminal: Terminal,
    base: Mapping[str, str] | None = None,
) -> tuple[Proposal, list[str], Scope]:
    """propose(), asking the user about the files the reply may only write with leave: an
    existing file outside the chat (--yes allows it), or a file that steers coder or git (asked
    with no as the default; --yes refuses it). Returns the proposal, the files added to the
    chat, and the scope with the files the user allowed. base is propose()'s."""
    proposal = propose(fmt, reply, ws, chat, scope, base)
    added: list[str] = []
    allowed: set[str] = set()
    unlocked: set[str] = set()
    for failure in _unique(proposal.result.failures)[:MAX_QUESTIONS]:
        path = failure.path
        if _private(ws, path, scope):
            continue
        if failure.kind == "read-only":
            if _allow_read_only(terminal, path):
                unlocked.add(path)
            continue
        why = _steers(path, scope) or _steers_through_link(ws, path, scope)
        if why and path not in scope.named:
            if _allow_steering(terminal, path, why):
                allowed.add(path)
                if path not in chat and _exists(ws, path):
                    added.append(path)
        elif failure.kind == "outside-chat" and path not in chat and _exists(ws, path):
            question = f"The reply edits {path}, which is not in the chat. Add it and allow that?"
            if terminal.confirm(question):
                added.append(path)
    if not added and not allowed and not unlocked:
        return proposal, [], scope
    scope = replace(scope, named=scope.named | allowed, unlocked=scope.unlocked | unlocked)
    return propose(fmt, reply, ws, chat + added, scope, base), added, scope


MAX_QUESTIONS = 10
"""Files outside the chat or steering coder asked about for one reply; the others fail."""


def _unique(failures: tuple[Failure, ...]) -> list[Failure]:
    """The failures that ask for leave (outside the chat, steering, read-only), one per path."""
    seen: dict[str, Failure] = {}
    for f in failures:
        if f.path and f.kind in LEAVE and f.path not in seen:
            seen[f.path] = f
    return list(seen.values())


LEAVE = ("outside-chat", "steering", "read-only")
"""The kinds of failure a person may lift by allowing the write."""


def _allow_read_only(terminal: Terminal, path: str) -> bool:
    if terminal.yes:
        terminal.error(
            f"Refused: the reply writes {path}, which is read-only. --yes never allows that;"
            " make it writable (chmod u+w) to let the model edit it."
        )
        return False
    return terminal.confirm(f"The reply writes {path}, which is read-only. Write it?")


def _allow_steering(terminal: Terminal, path: str, why: str) -> bool:
    if terminal.yes:
        terminal.error(
            f"Refused: the reply writes {path}, which {why}. --yes never allows that; add the"
            " file to the chat by name to let the model edit it."
        )
        return False
    return terminal.confirm(f"The reply writes {path}, which {why}. Allow it?", default=False)


def _exists(ws: Workspace, path: str) -> bool:
    try:
        return ws.read(path).exists
    except PathError:
        return False


def _steers_through_link(ws: Workspace, path: str, scope: Scope) -> str | None:
    """Why the file a symlink named path leads to steers coder or git, or None."""
    try:
        real = ws.real(path)
    except PathError:
        return None
    if real == path or real in scope.named:
        return None
    return _steers(real, scope)


def _steers(path: str, scope: Scope) -> str | None:
    return guard.steers(path, scope.steering)


def _private(ws: Workspace, path: str, scope: Scope) -> bool:
    """True when path, or the file it leads to, is inside git's own folder."""
    try:
        real = ws.real(path)
    except PathError:
        real = path
    return any(p == f or p.startswith(f + "/") for p in (path, real) for f in scope.private)


def _relative(edit: Edit, ws: Workspace) -> Edit:
    """An edit naming an absolute path inside the repository, made relative to it."""
    path = edit.path.replace("\\", "/")
    if not PurePosixPath(path).is_absolute():
        return edit
    try:
        return replace(edit, path=ws.relative(path))
    except PathError:
        return edit


def _check_removals(result: ApplyResult, ws: Workspace, scope: Scope) -> list[Failure]:
    """Failures for files a reply deletes or moves away that may not be: the guard's paths,
    files that steer coder or git unless named, symlinks, and files that do not exist."""
    failures = []
    by_path = {a.path: a.edit for a in result.applied}
    for path in result.deleted:
        refused = _removal_refused(path, ws, scope)
        if refused:
            why, kind = refused
            edit = by_path.get(path) or Edit(path, "", "")
            reason = f"Block {edit.index} was refused: {why}."
            failures.append(Failure(edit, reason, path=path, kind=kind))
    return failures


def _removal_refused(path: str, ws: Workspace, scope: Scope) -> tuple[str, str] | None:
    """Why a file may not be removed, and the Failure kind; None when it may."""
    try:
        real = ws.real(path)
    except PathError as exc:
        return f"{exc}", ""
    if _private(ws, path, scope):
        return f"{path} is in git's own folder", ""
    steers = _steers(path, scope) if path not in scope.named else None
    if steers:
        return f"{path}, which {steers}, may not be removed unless the user names it", "steering"
    if real != path:
        return f"{path} is a symlink or lies behind one: remove or rename it yourself", ""
    if not ws.read(path).exists:
        return f"{path} does not exist", ""
    return None


def _check_targets(
    result: ApplyResult, ws: Workspace, originals: dict, scope: Scope
) -> list[Failure]:
    """Failures for changed paths that may not be written: unsafe, steering coder or git
    without the user having named them, or existing files the model has not seen."""
    failures = []
    by_path = {a.path: a.edit for a in result.applied}
    for path in result.files:
        edit = by_path.get(path) or Edit(path, "", "")
        try:
            ws.check(path)
        except PathError as exc:
            failures.append(Failure(edit, f"Block {edit.index} was refused: {exc}.", path=path))
            continue
        if _private(ws, path, scope):
            reason = f"Block {edit.index} was refused: {path} is in git's own folder."
            failures.append(Failure(edit, reason, path=path))
            continue
        why = (_steers(path, scope) if path not in scope.named else None) or (
            _steers_through_link(ws, path, scope)
        )
        if why:
            failures.append(
                Failure(
                    edit,
                    f"Block {edit.index} writes {path}, which {why}: a reply may not write it"
                    " unless the user adds it to the chat.",
                    path=path,
                    kind="steering",
                )
            )
        elif path not in scope.unlocked and ws.read_only(path):
            failures.append(
                Failure(
                    edit,
                    f"Block {edit.index} writes {path}, which is read-only: it is not changed"
                    " unless the user allows it.",
                    path=path,
                    kind="read-only",
                )
            )
        elif path not in originals and ws.read(path).exists:
            failures.append(
                Failure(
                    edit,
                    f"Block {edit.index} writes {path}, which exists but is not in the chat:"
                    " its content is unknown to you, so it is not overwritten.",
                    path=path,
                    kind="outside-chat",
                )
            )
    return failures
