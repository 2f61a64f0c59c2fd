"""The git repository: the only module that imports gitpython."""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import git

from coder.errors import GitError
from coder.seams.gitargs import chunks, listed, pathspec
from coder.seams.repo_state import NO_IDENTITY, RepoState

_ENV = {
    "GIT_EDITOR": "true",
    "GIT_PAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",
    # File names such as "a[1].py" or "*.md" are names, never patterns.
    "GIT_LITERAL_PATHSPECS": "1",
}
"""Added to git's environment so that it never waits for an editor, a pager or a password."""

# Without it git may commit as a guessed identity such as root@host.(none).
_CONFIG = ("-c", "user.useConfigOnly=true")


class Repo(RepoState):
    """A git working tree, seen through the few operations coder needs."""

    def __init__(self, repo: git.Repo):
        if repo.working_tree_dir is None:
            raise GitError(f"{repo.git_dir} is a bare repository: it has no files to edit")
        self._repo = repo
        self.root = Path(repo.working_tree_dir).resolve()
        self._signs = False
        """Whether git was seen to sign a commit (when told to)."""

    @classmethod
    def find(cls, path: Path) -> Repo | None:
        """The repository containing path, or None."""
        try:
            return cls(git.Repo(path, search_parent_directories=True))
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            return None

    @classmethod
    def init(cls, path: Path) -> Repo:
        """A new repository at path, creating the folder if needed."""
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise GitError(f"cannot create {path}: {exc.strerror}") from None
        _run(git.Git(path), "init", "--quiet")
        return cls(git.Repo(path))

    @contextlib.contextmanager
    def locked(self, wait: float = 10.0) -> Iterator[None]:
        """Hold coder's lock on this repository, so that two coders never write and commit at
        once; GitError when another holds it for longer than wait seconds."""
        try:
            import fcntl
        except ImportError:  # Windows: git's own index.lock is the only guard there
            yield
            return
        path = Path(self._repo.git_dir) / "coder.lock"
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise GitError(f"cannot create {path}: {exc.strerror}") from None
        try:
            deadline = time.monotonic() + wait
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise GitError(
                            "another coder is writing in this repository; try again when it is done"
                        ) from None
                    time.sleep(0.05)
            yield
        finally:
            os.close(fd)

    def head(self) -> str | None:
        """The sha of HEAD, or None in a repository with no commits yet."""
        try:
            return self._repo.head.commit.hexsha
        except ValueError:
            return None

    def dirty(self, paths: Iterable[str]) -> list[str]:
        """Those of paths whose working-tree content is not in HEAD, untracked ones included;
        not one whose removal from git is staged (committing it would undo that)."""
        paths = list(dict.fromkeys(paths))
        if not paths:
            return []
        changed = set(self._untracked(paths))
        if self.head():
            changed.update(self._names_of(paths, "diff", "--name-only", "--no-renames", "HEAD"))
        else:
            # With no commit yet every tracked file is uncommitted work, saved unless it is gone.
            tracked = self._names_of(paths, "ls-files")
            changed.update(p for p in tracked if os.path.lexists(self.root / p))
        changed -= set(self._removal_staged(paths))
        return [p for p in paths if p in changed]

    def backups(self) -> Path:
        """A new folder in git's own folder for copies of files git cannot keep, named for now."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        folder = Path(self._repo.git_dir) / "coder" / "backups" / stamp
        n = 1
        while folder.exists():
            n += 1
            folder = folder.with_name(f"{stamp}-{n}")
        return folder

    def commit_staged(self, paths: Iterable[str], label: str) -> str | None:
        """Commit, on their own, the staged versions of those of paths that have unstaged
        changes too (a commit of the working tree would drop them), leaving the index and the
        working tree as they are; the message is label and their names. The new HEAD, or None
        when no path has both."""
        paths = list(dict.fromkeys(paths))
        head = self.head()
        if not paths:
            return None
        if head is None:
            # With no commit yet, everything in the index is staged.
            staged = set(self._names_of(paths, "ls-files", "--cached"))
        else:
            staged = set(
                self._names_of(paths, "diff", "--cached", "--name-only", "--no-renames", "HEAD")
            )
        unstaged = set(self._names_of(paths, "diff", "--name-only", "--no-renames"))
        both = [p for p in paths if p in staged and p in unstaged]
        if not both:
            return None
        if not self.has_identity():
            raise GitError(NO_IDENTITY)
        with tempfile.TemporaryDirectory(prefix="coder-index-") as temp:
            index = {"GIT_INDEX_FILE": os.path.join(temp, "index")}
            if head is not None:
                self._git("read-tree", "HEAD", env=index)
            for path in both:
                entry = self._git("ls-files", "-s", "--", path).strip()
                if entry:
                    mode, sha = entry.split("\t", 1)[0].split()[:2]
                    info = f"{mode},{sha},{path}"
                    self._git("update-index", "--add", "--cacheinfo", info, env=index)
                else:
                    self._git("update-index", "--force-remove", "--", path, env=index)
            tree = self._git("write-tree", env=index).strip()
        message = f"{label} {listed(both)}"
        # commit-tree ignores commit.gpgSign, which git commit follows: sign as it would.
        sign = self._git("config", "--type=bool", "--default=false", "--get", "commit.gpgSign")
        signing = ["-S"] if sign.strip() == "true" else []
        parent = ["-p", head] if head is not None else []
        sha = self._git("commit-tree", *signing, tree, *parent, "-m", message).strip()
        # An empty old value: the branch must not exist yet (the first commit makes it).
        self._git("update-ref", "HEAD", sha, head or "")
        return sha

    def move_head(self, sha: str | None, expected: str) -> None:
        """Point HEAD (its branch) at sha, if it is still at expected; with sha None, make the
        branch unborn again. The index and the working tree stay as they are. For taking back
        a commit that changed neither."""
        if sha is None:
            self._git("update-ref", "-d", "HEAD", expected)
        else:
            self._git("update-ref", "HEAD", sha, expected)

    def commit(self, paths: Iterable[str], message: str) -> str:
        """Commit exactly paths as they are in the working tree; the sha of HEAD afterwards."""
        if not self.has_identity():
            raise GitError(NO_IDENTITY)
        paths = self.dirty(paths)
        if not paths:
            return self.head() or ""
        untracked = self._untracked(paths)
        with pathspec(untracked) as new, pathspec(paths) as named:
            # --only takes the named paths from the working tree and leaves the rest of the
            # index as the user staged it, but it only knows tracked paths: new files are marked
            # intent-to-add first.
            if untracked:
                self._git("add", "--intent-to-add", *new)
            try:
                # --no-verify: a hook must not change or veto the files the user saw applied.
                self._git("commit", "--only", "--no-verify", "--quiet", "-m", message, *named)
            except GitError:
                if untracked:
                    with contextlib.suppress(GitError):
                        self._git("rm", "--cached", "--quiet", *new)
                raise
        return self._git("rev-parse", "HEAD").strip()

    def uncommitted(self, paths: Iterable[str]) -> dict[str, str]:
        """Those of paths whose working-tree content is still not committed, each with why:
        git will not commit it (see uncommittable), it is in another repository, or it is
        changed (git failed)."""
        paths = list(dict.fromkeys(paths))
        if not paths:
            return {}
        found = dict.fromkeys(self.dirty(paths), "changed")
        found |= self.uncommittable(paths)
        tracked = set(self._names_of(paths, "ls-files"))
        for path in paths:
            if path not in found and path not in tracked:
                found[path] = "in another git repository, or not tracked"
        return found

    def diff(self, paths: Iterable[str]) -> str:
        """The changes to the tracked files among paths since HEAD, as a unified diff."""
        paths = list(paths)
        if not paths:
            return ""
        base = self.head() or self._git("hash-object", "-t", "tree", os.devnull).strip()
        return self._git("diff", "--no-color", "--no-ext-diff", base, "--", *paths)

    def files(self) -> list[str]:
        """The tracked files and the untracked ones that are not ignored."""
        return self._names("ls-files", "--cached", "--others", "--exclude-standard")

    def files_tracked(self) -> list[tuple[str, bool]]:
        """What files() names, each with whether git tracks it (False: untracked)."""
        # -t puts a tag before each name: "? " for an untracked file, a letter for the rest.
        tagged = self._names("ls-files", "-t", "--cached", "--others", "--exclude-standard")
        return [(entry[2:], entry[0] != "?") for entry in tagged]

    def ignored_tracked(self) -> set[str]:
        """Tracked files that the ignore rules name (committed before .gitignore named them)."""
        return set(self._names("ls-files", "--cached", "--ignored", "--exclude-standard"))

    def show(self, sha: str) -> str:
        """The changes of commit sha, as a unified diff."""
        return self._git("show", "--no-color", "--no-ext-diff", "--format=%h %s%n", sha)

    def undo(self, sha: str) -> list[str]:
        """Take back commit sha, which must be HEAD: its files return to the previous commit.

        Refused (GitError) when it is not safe: sha is not HEAD, is a merge or the first
        commit, is already on a remote branch, or its files have changed since.
        """
        head = self.head()
        if head != sha:
            raise GitError(f"{sha[:7]} is no longer the last commit, so it is not undone")
        parents = self._git("rev-list", "--parents", "-n", "1", sha).split()[1:]
        if len(parents) != 1:
            raise GitError(f"{sha[:7]} is a merge or the first commit: undo it with git itself")
        if self._git("branch", "--remotes", "--contains", sha).strip():
            raise GitError(f"{sha[:7]} has been pushed: undo it with git revert")
        files = self._names("diff-tree", "--no-commit-id", "--name-only", "-r", sha)
        changed = self.dirty(files)
        if changed:
            raise GitError(f"{', '.join(changed)} changed since {sha[:7]}: commit or discard first")
        self._git("reset", "--soft", "--quiet", parents[0])
        earlier = set(self._names("ls-tree", "-r", "--name-only", parents[0], "--", *files))
        for path in files:
            if path in earlier:
                self._git("restore", "--source", parents[0], "--staged", "--worktree", "--", path)
            else:
                self._git("rm", "--cached", "--quiet", "--", path)
                with contextlib.suppress(FileNotFoundError):
                    (self.root / path).unlink()
        return files

    def remember(self, name: str, value: str) -> None:
        """Keep a setting of coder's in this repository's own git config (coder.NAME)."""
        self._git("config", "--local", f"coder.{name}", value)

    def _untracked(self, paths: list[str]) -> list[str]:
        """Those of paths that exist, are not tracked and are not ignored."""
        return self._names_of(paths, "ls-files", "--others", "--exclude-standard")

    def _names_of(self, paths: list[str], command: str, *args: str) -> list[str]:
        """The names a git command prints for paths, run on as many groups as the command
        line needs."""
        found: list[str] = []
        for group in chunks(paths):
            found += self._names(command, *args, "--", *group)
        return found

    def _names(self, command: str, *args: str) -> list[str]:
        """The file names a git command prints, one per NUL-terminated entry."""
        return [name for name in self._git(command, "-z", *args).split("\0") if name]

    def _git(self, command: str, *args: str, env: dict[str, str] | None = None) -> str:
        """The output of a git command in this repository; GitError when it fails."""
        return _run(self._repo.git, command, *args, env=env)


def _run(runner: git.Git, command: str, *args: str, env: dict[str, str] | None = None) -> str:
    """The output of a git command; GitError with git's own reason when it fails."""
    try:
        status, out, err = runner.execute(
            ["git", *_CONFIG, command, *args],
            env={**_ENV, **(env or {})},
            with_extended_output=True,
            with_exceptions=False,
            strip_newline_in_stdout=False,
        )
    except OSError as exc:  # git missing, or its arguments too long for the system
        raise GitError(f"git {command} could not run: {exc.strerror or exc}") from None
    if status != 0:
        lines = [line.strip() for line in (err or out).splitlines() if line.strip()]
        reasons = [line for line in lines if line.startswith(("fatal:", "error:"))]
        detail = (reasons or lines or [f"exit status {status}"])[-1]
        raise GitError(f"git {command} failed: {detail}")
    return out
