"""The one decision point for what a reply does to the files: every write, creation, removal and
rename that any edit format can express passes vet(), which applies every rule of RULES to it.

A reply's ApplyResult is read as operations on paths, each in a role:
- "write": an existing file gets new text;
- "create": a file comes into being (a new file, or the new name of a renamed one);
- "remove": a file goes away (deleted, or the old name of a renamed one).
Each rule names the roles it judges. saving.write then writes only what vet let through and
keeps what the rules promise (a renamed file's mode bits; a copy of every file git will not
commit before it is replaced or removed), so that a new edit format gets all of it by
construction: the formats only compute texts, and nothing but saving.write puts them on disk.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from coder.edits import steering
from coder.edits.workspace import FileText, Workspace
from coder.errors import PathError
from coder.seams.repo import Repo
from editformats import ApplyResult, Edit, Failure
from editformats.paths import NO_TREE, Tree, refusal, skeleton, tree_of


@dataclass(frozen=True)
class Scope:
    """What a reply may do besides editing the chat files."""

    named: frozenset[str] = frozenset()
    """Files the user named: only these may be written when they steer coder or git."""
    steering: steering.Steering = steering.NOTHING
    """What steers git and Python in this work tree, beyond the fixed names."""
    private: tuple[str, ...] = ()
    """git's own folders inside the work tree under another name than .git: never written."""
    tree: Tree = field(default=NO_TREE, repr=False)
    """The repository's files, so that the reply's names resolve to what exists."""
    unlocked: frozenset[str] = frozenset()
    """Read-only files the user allowed this reply to write or remove."""


UNNAMED = Scope()
"""The scope when the user named nothing and nothing is known of the repository's files."""


def scope_of(ws: Workspace, repo: Repo | None, named: set[str] | frozenset[str]) -> Scope:
    """The Scope of a reply in this workspace, the user having named the files in named."""
    found = steering.steering(repo, ws.root)
    if repo is None:
        return Scope(frozenset(named), found, tree=tree_of(ws.listing()))
    return Scope(frozenset(named), found, tuple(repo.private_folders()), tree_of(repo.files()))


@dataclass(frozen=True)
class Operation:
    """One path a reply touches, in one role (see the module's docstring)."""

    role: str
    path: str
    edit: Edit


def operations(
    result: ApplyResult, originals: Mapping[str, FileText], exists: Callable[[str], bool]
) -> list[Operation]:
    """Every path the result touches, each in its role: the files it writes (one that does not
    exist yet, or a rename's new name, is created) and the files it removes. exists(path) says
    whether a file outside originals is on disk."""
    by_path = {a.path: a.edit for a in result.applied}
    sources = {new: old for old, new in result.moved.items()}
    found = []
    for path in result.files:
        edit = by_path.get(sources.get(path, path)) or Edit(path, "", "")
        there = originals[path].exists if path in originals else exists(path)
        found.append(Operation("write" if there and path not in sources else "create", path, edit))
    for path in result.deleted:
        found.append(Operation("remove", path, by_path.get(path) or Edit(path, "", "")))
    return found


@dataclass
class _Context:
    ws: Workspace
    scope: Scope
    originals: Mapping[str, FileText]
    created: list[str]
    """The paths the reply creates, so that two of its own new names cannot look alike."""
    moved_to: set[str]
    """The new names of the files the reply renames."""
    _skeletons: dict[str, str] | None = None

    def look_alike(self, path: str) -> str | None:
        """An existing file or folder, or another name the reply creates, that looks like path
        (or like one of its folders) without being it."""
        if self._skeletons is None:
            names = self.scope.tree.files | self.scope.tree.folders | set(self.originals)
            self._skeletons = {skeleton(n): n for n in sorted(names, reverse=True)}
            for other in self.created:
                self._skeletons.setdefault(skeleton(other), other)
        parts = path.split("/")
        for n in range(1, len(parts) + 1):
            prefix = "/".join(parts[:n])
            if prefix in self.scope.tree.folders or prefix in self.scope.tree.files:
                continue
            twin = self._skeletons.get(skeleton(prefix))
            if twin is not None and twin != prefix:
                return twin
        return None


@dataclass(frozen=True)
class Refusal:
    """Why an operation may not be done: the words after "Block N " in the message to the
    model, and the Failure's kind (see Failure.kind; "" when no one can lift it)."""

    says: str
    kind: str = ""


@dataclass(frozen=True)
class Rule:
    """One rule of the guard: the roles it judges, and how (a Refusal, or None to let pass)."""

    name: str
    roles: tuple[str, ...]
    check: Callable[[Operation, _Context], Refusal | None]


_VERBS = {"write": "write", "create": "write", "remove": "remove"}


def _place(op: Operation, ctx: _Context) -> Refusal | None:
    """Inside the work tree, a file (not a folder), outside .git and git's own folders."""
    try:
        ctx.ws.check(op.path)
    except PathError as exc:
        return Refusal(f"was refused: {exc}")
    if private(ctx.ws, op.path, ctx.scope):
        return Refusal(f"was refused: {op.path} is in git's own folder")
    return None


def private(ws: Workspace, path: str, scope: Scope) -> bool:
    """Whether path, or the file it leads to, is inside one of git's own folders."""
    try:
        real = ws.real(path)
    except PathError:
        real = path
    return any(p == f or p.startswith(f + "/") for p in (path, real) for f in scope.private)


def _name(op: Operation, ctx: _Context) -> Refusal | None:
    """A new name is safe to hand to commands and plain to a reader; the user's own names pass."""
    if op.path in ctx.scope.named or op.path in ctx.originals:
        return None
    why = refusal(op.path)
    if not why and any(part.startswith("-") for part in op.path.split("/")):
        why = f"{op.path} has a part starting with -, which commands would read as an option"
    twin = None if why else ctx.look_alike(op.path)
    if twin:
        why = (
            f"{op.path} looks like {twin} but is another name (its letters or their case"
            f" differ), so it would be a second file beside it; write {twin} exactly"
        )
    return Refusal(f"was refused: {why}") if why else None


def _steering(op: Operation, ctx: _Context) -> Refusal | None:
    """A file that steers coder, git or the shell is the user's to name, as is one that a
    symlink leads to."""
    why = steering.steers(op.path, ctx.scope.steering) if op.path not in ctx.scope.named else None
    if not why:
        real = ctx.ws.real(op.path)
        if real != op.path and real not in ctx.scope.named:
            why = steering.steers(real, ctx.scope.steering)
    if not why:
        return None
    return Refusal(
        f"{_VERBS[op.role]}s {op.path}, which {why}: a reply may not {_VERBS[op.role]} it unless"
        " the user adds it to the chat",
        "steering",
    )


def _read_only(op: Operation, ctx: _Context) -> Refusal | None:
    """A file whose mode forbids writing stays as it is, unless the user allows this reply."""
    if op.path in ctx.scope.unlocked or not ctx.ws.read_only(op.path):
        return None
    return Refusal(
        f"{_VERBS[op.role]}s {op.path}, which is read-only: it is not changed unless the user"
        " allows it",
        "read-only",
    )


def _seen(op: Operation, ctx: _Context) -> Refusal | None:
    """A file is replaced or removed only when the model has seen it: it is in the chat."""
    if op.path in ctx.originals or not ctx.ws.exists(op.path):
        return None
    return Refusal(
        f"{_VERBS[op.role]}s {op.path}, which exists but is not in the chat: its content is"
        " unknown to you, so it is not changed",
        "outside-chat",
    )


def _vacant(op: Operation, ctx: _Context) -> Refusal | None:
    """A file comes into being only where none is: a rename never replaces another file."""
    if not ctx.ws.exists(op.path) or op.path not in ctx.moved_to:
        return None
    return Refusal(f"was refused: {op.path} exists, and a rename never replaces a file")


def _removable(op: Operation, ctx: _Context) -> Refusal | None:
    """A file removed exists and is itself, not a symlink or a file behind one."""
    if ctx.ws.real(op.path) != op.path:
        return Refusal(
            f"was refused: {op.path} is a symlink or lies behind one: remove or rename it yourself"
        )
    if not ctx.ws.exists(op.path):
        return Refusal(f"was refused: {op.path} does not exist")
    return None


RULES = (
    Rule("place", ("write", "create", "remove"), _place),
    Rule("name", ("create",), _name),
    Rule("steering", ("write", "create", "remove"), _steering),
    Rule("vacant", ("create",), _vacant),
    Rule("removable", ("remove",), _removable),
    Rule("read-only", ("write", "remove"), _read_only),
    Rule("seen", ("write", "remove"), _seen),
)
"""Every rule, in the order they are tried: an operation's first refusal is the one given."""


def vet(
    result: ApplyResult, ws: Workspace, originals: Mapping[str, FileText], scope: Scope
) -> list[Failure]:
    """A Failure for each path of the result that one of the RULES refuses (its first refusal)."""
    ctx = _Context(ws, scope, originals, [], set(result.moved.values()))
    ops = operations(result, originals, ws.exists)
    ctx.created = [op.path for op in ops if op.role == "create"]
    failures = []
    for op in ops:
        for rule in RULES:
            if op.role not in rule.roles:
                continue
            refused = rule.check(op, ctx)
            if refused:
                reason = f"Block {op.edit.index} {refused.says}."
                failures.append(Failure(op.edit, reason, path=op.path, kind=refused.kind))
                break
    return failures
