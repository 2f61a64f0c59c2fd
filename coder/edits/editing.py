"""Turning a reply into a proposal: parse, apply in memory, vet what it would do (guard.py).

Shared by `coder --apply` and the chat. A proposal is written (saving.py) only when every edit
applied and the guard let every file operation through; the user is asked about those a person
may allow (a file outside the chat, one that steers coder or git, a read-only one).
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from coder.edits import guard, steering
from coder.edits.guard import UNNAMED, Scope
from coder.edits.workspace import FileText, Workspace
from coder.errors import CoderError, PathError
from coder.terminal import Terminal
from editformats import ApplyResult, Edit, EditFormat, Failure, Reply
from editformats.paths import Tree, clean, normalize, tree_of


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
    scope: Scope = UNNAMED,
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
    extra = guard.vet(result, ws, originals, scope)
    if extra and result.atomic:
        result = ApplyResult(failures=result.failures + tuple(extra), atomic=True)
    elif extra:
        refused = {f.path for f in extra}
        # A rename is one operation: either of its names refused keeps both as they are.
        refused |= {o for o, n in result.moved.items() if n in refused}
        refused |= {n for o, n in result.moved.items() if o in refused}
        result = ApplyResult(
            {p: t for p, t in result.files.items() if p not in refused},
            tuple(a for a in result.applied if a.path not in refused),
            result.failures + tuple(extra),
            tuple(p for p in result.deleted if p not in refused),
            {o: n for o, n in result.moved.items() if not {o, n} & refused},
        )
    for path in result.files:
        if path not in originals:
            originals[path] = ws.read(path)
    return Proposal(result, originals)


def vetted(
    result: ApplyResult, originals: dict[str, FileText], ws: Workspace, scope: Scope
) -> Proposal:
    """A change that coder made up itself (/pick's swap of candidates) as a proposal, once the
    guard lets every file operation of it through; CoderError, naming why, when it does not."""
    refused = guard.vet(result, ws, originals, scope)
    if refused:
        raise CoderError(" ".join(f.reason for f in refused) + " Nothing was written.")
    return Proposal(result, originals)


def _with_named_files(tree: Tree, edits: list[Edit], ws: Workspace) -> Tree:
    """The tree with the files the edits name that exist on disk though git does not list
    them (ignored files): a name of an existing file means that file."""
    extra = set()
    for edit in edits[:MAX_NAMED]:
        path = normalize(clean(edit.path)) if edit.path else ""
        if path and path not in tree.files and ws.exists(path):
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
        if guard.private(ws, path, scope):
            continue
        if failure.kind == "read-only":
            removes = failure.reason.startswith(f"Block {failure.edit.index} removes ")
            if _allow_read_only(terminal, path, removes):
                unlocked.add(path)
            continue
        why = _steers(path, scope) or _steers_through_link(ws, path, scope)
        if why and path not in scope.named:
            if _allow_steering(terminal, path, why):
                allowed.add(path)
                if path not in chat and ws.exists(path):
                    added.append(path)
        elif failure.kind == "outside-chat" and path not in chat and ws.exists(path):
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


def _allow_read_only(terminal: Terminal, path: str, removes: bool) -> bool:
    verb = "removes" if removes else "writes"
    if terminal.yes:
        terminal.error(
            f"Refused: the reply {verb} {path}, which is read-only. --yes never allows that;"
            " make it writable (chmod u+w) to let the model change it."
        )
        return False
    return terminal.confirm(
        f"The reply {verb} {path}, which is read-only. {verb[:-1].capitalize()} it?"
    )


def _allow_steering(terminal: Terminal, path: str, why: str) -> bool:
    if terminal.yes:
        terminal.error(
            f"Refused: the reply writes {path}, which {why}. --yes never allows that; add the"
            " file to the chat by name to let the model edit it."
        )
        return False
    return terminal.confirm(f"The reply writes {path}, which {why}. Allow it?", default=False)


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
    return steering.steers(path, scope.steering)


def _relative(edit: Edit, ws: Workspace) -> Edit:
    """An edit naming an absolute path inside the repository, made relative to it."""
    path = edit.path.replace("\\", "/")
    if not PurePosixPath(path).is_absolute():
        return edit
    try:
        return replace(edit, path=ws.relative(path))
    except PathError:
        return edit
