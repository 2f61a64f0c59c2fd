"""What git will not do in a repository, and which files it will not commit as they stand:
the checks coder makes before it writes. Mixed into Repo (coder/seams/repo.py), which runs git."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from coder.errors import GitError
from coder.seams.gitargs import chunks

NO_IDENTITY = (
    "git does not know your name and email, so coder cannot commit: run"
    " git config --global user.name 'Your Name' and git config --global user.email you@example.com"
)
"""The message of the GitError raised when committing without an identity."""
IGNORED = "ignored by git"
REMOVAL_STAGED = "to be removed from git (its removal is staged: git rm --cached)"
ASSUME_UNCHANGED = "marked assume-unchanged, so git does not look at its changes"
SKIP_WORKTREE = "marked skip-worktree, so git does not look at its changes"
NESTED = "in another git repository inside this one (a nested repository or a submodule)"


class RepoState:
    """The checks of a Repo: whether it can commit, and what it will not commit."""

    root: Path
    _repo: Any
    """The gitpython repository (a git.Repo: only coder/seams/repo.py imports git)."""
    _signs: bool
    _git: Callable[..., str]
    _names: Callable[..., list[str]]
    _names_of: Callable[..., list[str]]
    head: Callable[[], str | None]

    def has_identity(self) -> bool:
        """True when git has a name and email to commit with, from any config level."""
        try:
            self._git("var", "GIT_AUTHOR_IDENT")
            self._git("var", "GIT_COMMITTER_IDENT")
        except GitError:
            return False
        return True

    def problem(self) -> str | None:
        """Why coder cannot commit here now, or None: an operation in progress (merge,
        rebase, cherry-pick, revert), unmerged files, a lock held, or a .git it cannot write."""
        git_dir = Path(self._repo.git_dir)
        underway = {
            "MERGE_HEAD": "a merge is in progress: finish it (git commit) or abort it (git merge"
            " --abort)",
            "rebase-merge": "a rebase is in progress: finish it (git rebase --continue) or abort"
            " it (git rebase --abort)",
            "rebase-apply": "a rebase or git am is in progress: finish or abort it",
            "CHERRY_PICK_HEAD": "a cherry-pick is in progress: finish or abort it",
            "REVERT_HEAD": "a revert is in progress: finish or abort it",
        }
        for name, why in underway.items():
            if (git_dir / name).exists():
                return why
        if (git_dir / "index.lock").exists():
            return (
                f"{git_dir / 'index.lock'} exists: another git command is running, or one"
                " crashed (then delete the file)"
            )
        common = Path(self._repo.common_dir)
        for folder in (git_dir, common / "objects"):
            if not os.access(folder, os.W_OK):
                return f"git cannot write to {folder}"
        if self._names("ls-files", "--unmerged"):
            return "some files have unresolved merge conflicts: resolve and commit them first"
        return self._signing_problem()

    def _signing_problem(self) -> str | None:
        """Why git cannot sign commits, when it is told to (commit.gpgSign): asked by signing
        an unreferenced commit of the empty tree, once per Repo while it works."""
        if self._signs:
            return None
        sign = self._git("config", "--type=bool", "--default=false", "--get", "commit.gpgSign")
        if sign.strip() != "true" or not self.has_identity():
            return None
        empty = self._git("hash-object", "-t", "tree", "-w", os.devnull).strip()
        try:
            self._git("commit-tree", "-S", empty, "-m", "coder: can git sign here?")
        except GitError as exc:
            return f"commit.gpgSign is set, but git cannot sign a commit ({exc})"
        self._signs = True
        return None

    def detached(self) -> bool:
        """True when HEAD is detached (a commit would be on no branch)."""
        try:
            self._git("symbolic-ref", "-q", "HEAD")
        except GitError:
            return True
        return False

    def config(self, pattern: str) -> list[tuple[str, str, Path | None]]:
        """The settings whose names match pattern (a regular expression, as git config
        --get-regexp takes it): (name, value, the file it comes from, or None)."""
        try:
            listing = self._git("config", "--show-origin", "--get-regexp", pattern)
        except GitError:  # exit status 1: no such setting
            return []
        found = []
        for line in listing.splitlines():
            origin, _, setting = line.partition("\t")
            name, _, value = setting.partition(" ")
            source = None
            if origin.startswith("file:"):
                # Relative to where git ran: the work tree.
                source = self.root / origin.removeprefix("file:")
            found.append((name, value.strip(), source))
        return found

    def private_folders(self) -> list[str]:
        """git's own folders (its git directory and common directory) when they lie inside the
        work tree under another name than .git, repository-relative."""
        found = []
        for folder in (self._repo.git_dir, self._repo.common_dir):
            try:
                rel = Path(folder).resolve().relative_to(self.root).as_posix()
            except ValueError:
                continue
            if rel not in found and rel.split("/")[0].lower() != ".git":
                found.append(rel)
        return found

    def uncommittable(self, paths: Iterable[str]) -> dict[str, str]:
        """Those of paths whose working-tree content git will not commit as it stands, each
        with why (a phrase after "it is"): ignored and untracked, its removal staged, or
        marked for git not to look at its changes."""
        paths = list(dict.fromkeys(paths))
        if not paths:
            return {}
        tracked = set(self._names_of(paths, "ls-files"))
        found = dict.fromkeys((p for p in self.ignored(paths) if p not in tracked), IGNORED)
        for entry in self._names_of(paths, "ls-files", "-v"):
            tag, name = entry[:1], entry[2:]
            if tag == "S" or tag.islower():
                found[name] = SKIP_WORKTREE if tag in "Ss" else ASSUME_UNCHANGED
        found |= dict.fromkeys(self._removal_staged(paths), REMOVAL_STAGED)
        found |= dict.fromkeys((p for p in paths if p not in tracked and self._nested(p)), NESTED)
        return {p: found[p] for p in paths if p in found}

    def _nested(self, path: str) -> bool:
        """Whether a folder between the work tree's top and path holds a repository of its own
        (a .git folder or file): this repository's git cannot commit what lies there."""
        parts = path.split("/")[:-1]
        folders = (self.root.joinpath(*parts[:n]) for n in range(1, len(parts) + 1))
        return any(os.path.lexists(folder / ".git") for folder in folders)

    def _removal_staged(self, paths: list[str]) -> list[str]:
        """Those of paths in HEAD, gone from the index, still in the working tree: what
        `git rm --cached` leaves."""
        head = self.head()
        if head is None or not paths:
            return []
        committed = set(self._names_of(paths, "ls-tree", "-r", "--name-only", head))
        indexed = set(self._names_of(paths, "ls-files", "--cached"))
        return [
            p
            for p in paths
            if p in committed and p not in indexed and os.path.lexists(self.root / p)
        ]

    def ignored(self, paths: list[str]) -> list[str]:
        """Those of paths that git ignores."""
        found: list[str] = []
        for group in chunks(paths):
            try:
                # check-ignore takes no pathspec magic, so literal pathspecs must be off for it.
                out = self._git(
                    "check-ignore", "--no-index", "--", *group, env={"GIT_LITERAL_PATHSPECS": "0"}
                )
            except GitError:  # check-ignore exits 1 when it ignores none of them
                continue
            found += [line for line in out.splitlines() if line]
        return found
