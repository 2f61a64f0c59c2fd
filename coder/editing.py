"""Turning a reply into changed files on disk: parse, apply in memory, check, write, commit.

Shared by `coder --apply` and the chat. Nothing is written unless every edit applied.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from coder.errors import PathError
from coder.repo import Repo
from coder.workspace import FileText, Workspace
from editformats import ApplyResult, Edit, EditFormat, Failure, Reply


@dataclass(frozen=True)
class Proposal:
    """A reply's edits applied in memory: the result, and the files as they were before."""

    result: ApplyResult
    originals: dict[str, FileText]

    def diff(self, context: int = 3) -> str:
        """A unified diff of every change the proposal makes, with context lines around each."""
        old = {p: f.text for p, f in self.originals.items() if f.exists}
        return unified_diff(old, dict(self.result.files), context)


def unified_diff(old: dict[str, str], new: dict[str, str], context: int = 3) -> str:
    """A unified diff from old to new texts by path; a path missing from old is created."""
    chunks = []
    for path, text in sorted(new.items()):
        before = old.get(path, "")
        chunks.extend(
            difflib.unified_diff(
                before.splitlines(keepends=True),
                text.splitlines(keepends=True),
                f"a/{path}" if path in old else "/dev/null",
                f"b/{path}",
                n=context,
            )
        )
    return "".join(line if line.endswith("\n") else line + "\n" for line in chunks)


def propose(fmt: EditFormat, reply: Reply, ws: Workspace, chat: list[str]) -> Proposal:
    """Parse the reply and apply its edits to the chat files in memory; ReplyError if unreadable."""
    originals = {path: ws.read(path) for path in chat}
    edits = [_relative(edit, ws) for edit in fmt.parse(reply)]
    result = fmt.apply(edits, {path: f.text for path, f in originals.items()})
    extra = _check_targets(result, ws, originals)
    if extra:
        result = replace(result, failures=result.failures + tuple(extra))
    for path in result.files:
        if path not in originals:
            originals[path] = ws.read(path)
    return Proposal(result, originals)


def save(proposal: Proposal, ws: Workspace, repo: Repo | None, message: str) -> list[str]:
    """Write the proposal's files; with a repo, commit them (after the user's own changes to
    them, separately). Returns the commits made, oldest first."""
    changed = sorted(proposal.result.files)
    commits = []
    if repo is not None:
        commits += save_user_changes(repo, changed)
    ws.write_all(proposal.result.files, proposal.originals)
    if repo is not None:
        head = repo.head()
        sha = repo.commit(changed, message)
        if sha and sha != head:
            commits.append(sha)
    return commits


def save_user_changes(repo: Repo, paths: list[str]) -> list[str]:
    """Commit the user's uncommitted changes to paths, on their own, before coder edits them;
    the commit made, if any."""
    dirty = repo.dirty(paths)
    if not dirty:
        return []
    return [repo.commit(dirty, f"coder: save uncommitted changes to {', '.join(dirty)}")]


def commit_message(result: ApplyResult) -> str:
    """A deterministic one-line message naming the changed files."""
    names = sorted(result.files)
    shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    return f"coder: edit {shown}"


def _relative(edit: Edit, ws: Workspace) -> Edit:
    """An edit naming an absolute path inside the repository, made relative to it."""
    path = edit.path.replace("\\", "/")
    if not PurePosixPath(path).is_absolute():
        return edit
    try:
        return replace(edit, path=ws.relative(path))
    except PathError:
        return edit


def _check_targets(result: ApplyResult, ws: Workspace, originals: dict) -> list[Failure]:
    """Failures for changed paths that may not be written: unsafe, or an unseen existing file."""
    failures = []
    by_path = {a.path: a.edit for a in result.applied}
    for path in result.files:
        edit = by_path.get(path) or Edit(path, "", "")
        try:
            ws.check(path)
        except PathError as exc:
            failures.append(Failure(edit, f"Block {edit.index} was refused: {exc}.", path=path))
            continue
        if path not in originals and ws.read(path).exists:
            failures.append(
                Failure(
                    edit,
                    f"Block {edit.index} writes {path}, which exists but is not in the chat:"
                    " its content is unknown to you, so it is not overwritten.",
                    path=path,
                )
            )
    return failures
