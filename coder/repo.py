"""The git repository: the only module that imports gitpython."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import git

from coder.errors import GitError

_QUIET = {"GIT_EDITOR": "true", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}


class Repo:
    """A git working tree, seen through the few operations coder needs."""

    def __init__(self, repo: git.Repo):
        self._repo = repo
        self._repo.git.update_environment(**_QUIET)
        self.root = Path(repo.working_tree_dir).resolve()

    @classmethod
    def find(cls, path: Path) -> Repo | None:
        """The repository containing path, or None."""
        try:
            return cls(git.Repo(path, search_parent_directories=True))
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            return None

    @classmethod
    def init(cls, path: Path) -> Repo:
        """A new repository at path."""
        return cls(git.Repo.init(path))

    def has_identity(self) -> bool:
        """True when git knows the user's name and email, so commits can be made."""
        reader = self._repo.config_reader()
        return bool(
            reader.get_value("user", "name", default="")
            and reader.get_value("user", "email", default="")
        )

    def head(self) -> str | None:
        """The sha of HEAD, or None in a repository with no commits yet."""
        try:
            return self._repo.head.commit.hexsha
        except ValueError:
            return None

    def dirty(self, paths: Iterable[str]) -> list[str]:
        """Those of paths whose working-tree content is not committed (untracked ones too)."""
        paths = list(paths)
        if not paths:
            return []
        out = self._git("status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *paths)
        changed = set()
        for entry in out.split("\0"):
            if len(entry) > 3:
                changed.add(entry[3:])
        return [p for p in paths if p in changed]

    def commit(self, paths: Iterable[str], message: str) -> str:
        """Commit exactly paths as they are in the working tree, leaving the user's other
        staged and unstaged changes as they were; returns the new commit's sha."""
        paths = list(paths)
        if not self.has_identity():
            raise GitError(
                "git needs your name and email to commit: run git config --global user.name"
                " 'Your Name' and git config --global user.email you@example.com"
            )
        ignored = set(self._lines("check-ignore", "--no-index", "--", *paths)) if paths else set()
        paths = [p for p in self.dirty(paths) if p not in ignored]
        if not paths:
            return self.head() or ""
        untracked = self._lines("ls-files", "--others", "--exclude-standard", "--", *paths)
        if untracked:
            self._git("add", "--intent-to-add", "--", *untracked)
        self._git("commit", "--no-verify", "--only", "-m", message, "--", *paths)
        return self._repo.head.commit.hexsha

    def diff(self, paths: Iterable[str]) -> str:
        """The uncommitted changes to paths, as a unified diff."""
        base = "HEAD" if self.head() else "--cached"
        return self._git("diff", base, "--", *paths)

    def _lines(self, *args: str) -> list[str]:
        try:
            return self._git(*args).splitlines()
        except GitError:
            return []

    def _git(self, *args: str) -> str:
        try:
            return self._repo.git.execute(["git", *args], strip_newline_in_stdout=False)
        except git.GitCommandError as exc:
            detail = (exc.stderr or exc.stdout or "").strip().replace("\n", " ")
            raise GitError(f"git {args[0]} failed: {detail}") from None
