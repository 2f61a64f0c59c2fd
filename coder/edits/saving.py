"""Putting a proposal on disk and into git: the user's own uncommitted work in the files first,
on its own; then the write, which completes or leaves every file as it was; then the commit.

Each step holds the repository's lock (so that two coders never interleave) and ignores Ctrl-C
for the milliseconds it takes, so that no write or commit is ever left half done.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from coder.edits.editing import Proposal
from coder.edits.workspace import Workspace
from coder.errors import GitError, NotCommitted
from coder.seams.gitargs import listed
from coder.seams.repo import Repo
from editformats import ApplyResult


@dataclass(frozen=True)
class Saved:
    """What saving the user's work before a write made: the commits of their own changes,
    and the copies of the files git cannot keep (ignored ones, say), which the write replaces."""

    commits: list[str] = field(default_factory=list)
    backups: dict[str, Path] = field(default_factory=dict)
    """File (through symlinks) -> its copy, in git's own folder."""


def write(
    proposal: Proposal, ws: Workspace, repo: Repo | None, save_user: Collection[str]
) -> Saved:
    """Write the proposal's files; with a repo, first commit the user's own uncommitted
    changes to the files in save_user, on their own, and copy aside each existing file the
    write replaces that git cannot commit (see Repo.uncommittable), so that nothing of the
    user's is lost.

    Nothing is written when git cannot commit here (GitError), a file changed since it was
    read, or a write or copy fails (WriteError).
    """
    with _locked(repo), uninterrupted():
        return _write(proposal, ws, repo, save_user)


def commit(repo: Repo, ws: Workspace, paths: list[str], message: str) -> str:
    """Commit the files at paths (the files they lead to, through symlinks); NotCommitted,
    naming them, when git fails: they stay written."""
    with _locked(repo), uninterrupted():
        return _commit(repo, ws, paths, message)


def save(proposal: Proposal, ws: Workspace, repo: Repo | None, message: str) -> Saved:
    """Write the proposal's files and, with a repo, commit them after the user's own changes to
    them (see write and commit). The commits made, oldest first (the edit's last)."""
    with _locked(repo), uninterrupted():
        saved = _write(proposal, ws, repo, list(proposal.result.changed))
        if repo is not None:
            head = repo.head()
            sha = _commit(repo, ws, list(proposal.result.changed), message)
            if sha and sha != head:
                saved.commits.append(sha)
    return saved


def _write(
    proposal: Proposal, ws: Workspace, repo: Repo | None, save_user: Collection[str]
) -> Saved:
    changed, removed = proposal.result.files, proposal.result.deleted
    if not changed and not removed:
        return Saved()
    saved = Saved()
    if repo is not None:
        touched = proposal.result.changed
        ws.verify({p: proposal.originals[p] for p in touched if p in proposal.originals})
        ws.encode_all(changed, proposal.originals)  # fail before anything is committed
        existing = sorted({ws.real(p) for p in touched if ws.exists(p)})
        kept_out = repo.uncommittable(existing)
        if kept_out:
            saved = Saved(backups=ws.back_up(sorted(kept_out), repo.backups()))
        if save_user:
            try:
                saved.commits.extend(
                    save_user_changes(repo, sorted({ws.real(p) for p in save_user}))
                )
            except GitError as exc:
                raise GitError(f"{exc}. Nothing was written") from None
    originals = proposal.originals
    modes = {
        new: originals[old].mode
        for old, new in proposal.result.moved.items()
        if old in originals and originals[old].mode is not None
    }
    ws.write_all(changed, originals, removed, modes)
    return saved


def _commit(repo: Repo, ws: Workspace, paths: list[str], message: str) -> str:
    real = sorted({ws.real(p) for p in paths})
    try:
        return repo.commit(real, message)
    except GitError as exc:
        raise NotCommitted(
            f"{listed(real, 20)} {'is' if len(real) == 1 else 'are'} written but not committed:"
            f" {exc}. Commit {'it' if len(real) == 1 else 'them'} yourself (git commit), or take"
            " the edit back with git checkout.",
            tuple(real),
        ) from None


def save_user_changes(repo: Repo, paths: list[str]) -> list[str]:
    """Commit the user's uncommitted changes to paths, on their own, before coder edits them:
    first any staged version that differs from the working tree (so that it is not lost),
    then the working tree. The commits made."""
    commits = []
    head = repo.head()
    staged = repo.commit_staged(paths, "coder: save staged changes to")
    if staged:
        commits.append(staged)
    dirty = repo.dirty(paths)
    if dirty:
        try:
            message = f"coder: save uncommitted changes to {listed(dirty)}"
            commits.append(repo.commit(dirty, message))
        except GitError:
            if staged:
                # The staged commit changed neither the index nor the files: take it back, so
                # that the repository is exactly as the user left it.
                with contextlib.suppress(GitError):
                    repo.move_head(head, staged)
            raise
    return commits


def not_committed(repo: Repo, ws: Workspace, paths: list[str]) -> dict[str, str]:
    """Those of the files at paths (through symlinks) whose state on disk git did not commit,
    with why: a file written that git did not take, or a removal git does not record (the file
    was ignored, or in a nested repository)."""
    real = sorted({ws.real(p) for p in paths})
    gone = [p for p in real if not ws.exists(p)]
    left = repo.uncommitted(real)
    # A removal that was committed leaves a path git no longer tracks: not a problem.
    left = {p: why for p, why in left.items() if why == "changed" or p not in gone}
    return left | repo.uncommittable(gone)


def left_out(path: str, why: str, ws: Workspace) -> str:
    """The line that tells the user that git did not commit what coder did to a file."""
    if why == "changed":
        return f"{path} is written but not committed: git failed to take it."
    done = "written" if ws.exists(path) else "removed"
    return f"{path} is {done} but not committed: it is {why}."


@contextlib.contextmanager
def _locked(repo: Repo | None) -> Iterator[None]:
    if repo is None:
        yield
        return
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(repo.locked())
        except GitError:
            _check(repo)  # a read-only .git, say: its own reason is clearer than the lock's
            raise
        _check(repo)  # after the lock, so that another coder's commit has finished
        yield


def _check(repo: Repo) -> None:
    """GitError, before anything is written, when git cannot commit here now."""
    problem = repo.problem()
    if problem:
        raise GitError(f"git cannot commit here: {problem}. Nothing was written")


@contextlib.contextmanager
def uninterrupted() -> Iterator[None]:
    """Ignore Ctrl-C while files are written and committed (milliseconds), so that no write or
    commit is ever left half done; pressed again afterwards, it stops coder as usual. Only the
    main thread receives signals, so elsewhere this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def backed_up(path: str, copy: Path, root: Path) -> str:
    """The line that tells the user where a file's version before coder's write is kept."""
    try:
        shown = copy.relative_to(root).as_posix()
    except ValueError:
        shown = str(copy)
    return f"{path} is not committed by git, so its version before this edit is kept in {shown}."


def commit_message(result: ApplyResult) -> str:
    """A deterministic one-line message naming the changed files."""
    return f"coder: edit {listed(list(result.changed))}"
