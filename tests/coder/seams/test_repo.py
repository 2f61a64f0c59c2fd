"""The git seam, against real repositories in tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder.errors import GitError
from coder.seams.repo import Repo

from ..gitrepo import git


def committed(cwd: Path, rev: str = "HEAD") -> list[str]:
    """The files a commit changed, with their status letters."""
    return git(cwd, "show", "--name-status", "--format=", rev).splitlines()


@pytest.fixture(autouse=True)
def no_user_config(tmp_path_factory, monkeypatch: pytest.MonkeyPatch) -> None:
    """git sees no global or system config, so the tests do not depend on the machine."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / "gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in ("NAME", "EMAIL"):
        for who in ("AUTHOR", "COMMITTER"):
            monkeypatch.delenv(f"GIT_{who}_{name}", raising=False)
    monkeypatch.delenv("EMAIL", raising=False)


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    """An empty repository with an identity in its own config."""
    git(tmp_path, "init", "-q")
    git(tmp_path, "config", "user.name", "Test")
    git(tmp_path, "config", "user.email", "test@example.com")
    return Repo.find(tmp_path)


@pytest.fixture
def started(tmp_path: Path, repo: Repo) -> Repo:
    """The repository with a first commit of a.py, b.py and c.py."""
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / name).write_text(f"{name}\n")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "start")
    return repo


def test_find_from_a_subfolder(tmp_path: Path, repo: Repo) -> None:
    (tmp_path / "sub").mkdir()
    assert Repo.find(tmp_path / "sub").root == tmp_path.resolve()


def test_find_outside_a_repository(tmp_path_factory) -> None:
    assert Repo.find(tmp_path_factory.mktemp("plain")) is None


def test_init(tmp_path: Path) -> None:
    repo = Repo.init(tmp_path / "new")
    assert repo.root == (tmp_path / "new").resolve()
    assert (tmp_path / "new" / ".git").is_dir()
    assert repo.head() is None
    assert Repo.find(tmp_path / "new").root == repo.root


def test_first_commit_and_dirty(tmp_path: Path, repo: Repo) -> None:
    assert repo.head() is None
    (tmp_path / "a.py").write_text("a\n")
    assert repo.dirty(["a.py", "missing.py"]) == ["a.py"]
    sha = repo.commit(["a.py"], "first")
    assert repo.head() == sha == git(tmp_path, "rev-parse", "HEAD").strip()
    assert git(tmp_path, "log", "--format=%s") == "first\n"
    assert repo.dirty(["a.py"]) == []
    (tmp_path / "a.py").write_text("b\n")
    assert repo.dirty(["a.py"]) == ["a.py"]


def test_dirty_compares_the_working_tree_with_head(tmp_path: Path, started: Repo) -> None:
    (tmp_path / ".gitignore").write_text("*.log\n")
    (tmp_path / "x.log").write_text("ignored\n")
    (tmp_path / "a.py").write_text("staged, then put back\n")
    git(tmp_path, "add", "a.py")
    (tmp_path / "a.py").write_text("a.py\n")
    (tmp_path / "b.py").write_text("staged\n")
    git(tmp_path, "add", "b.py")
    (tmp_path / "c.py").unlink()
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "new.py").write_text("new\n")
    paths = ["x.log", "a.py", "b.py", "c.py", "sub/new.py", "gone.py"]
    assert started.dirty(paths) == ["b.py", "c.py", "sub/new.py"]
    assert started.dirty([]) == []


def test_with_no_commit_yet_every_existing_file_is_dirty(tmp_path: Path, repo: Repo) -> None:
    for name in ("staged.py", "staged-then-removed.py"):
        (tmp_path / name).write_text("user's\n")
        git(tmp_path, "add", name)
    (tmp_path / "staged-then-removed.py").unlink()
    (tmp_path / "untracked.py").write_text("user's\n")
    paths = ["staged.py", "staged-then-removed.py", "untracked.py", "missing.py"]
    assert repo.dirty(paths) == ["staged.py", "untracked.py"]


def test_commit_leaves_other_changes_alone(tmp_path: Path, started: Repo) -> None:
    (tmp_path / "a.py").write_text("ours\n")
    (tmp_path / "b.py").write_text("staged by the user\n")
    git(tmp_path, "add", "b.py")
    (tmp_path / "c.py").write_text("unstaged by the user\n")
    (tmp_path / "user.py").write_text("added by the user\n")
    git(tmp_path, "add", "user.py")
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "ours.py").write_text("new\n")
    start = started.head()
    sha = started.commit(["a.py", "new/ours.py"], "ours")
    assert git(tmp_path, "rev-parse", "HEAD^").strip() == start
    assert committed(tmp_path, sha) == ["M\ta.py", "A\tnew/ours.py"]
    assert git(tmp_path, "show", "HEAD:a.py") == "ours\n"
    assert git(tmp_path, "status", "--porcelain") == "M  b.py\n M c.py\nA  user.py\n"
    assert git(tmp_path, "diff", "--cached", "--name-only") == "b.py\nuser.py\n"


def test_commit_takes_the_working_tree_over_a_staged_version(tmp_path: Path, started: Repo):
    (tmp_path / "a.py").write_text("staged\n")
    git(tmp_path, "add", "a.py")
    (tmp_path / "a.py").write_text("working tree\n")
    started.commit(["a.py"], "ours")
    assert git(tmp_path, "show", "HEAD:a.py") == "working tree\n"
    assert git(tmp_path, "status", "--porcelain") == ""


def test_initial_commit_leaves_other_staged_files_staged(tmp_path: Path, repo: Repo) -> None:
    (tmp_path / "user.py").write_text("user\n")
    git(tmp_path, "add", "user.py")
    (tmp_path / "ours.py").write_text("ours\n")
    repo.commit(["ours.py"], "first")
    assert committed(tmp_path) == ["A\tours.py"]
    assert git(tmp_path, "status", "--porcelain") == "A  user.py\n"


def test_commit_records_a_deletion(tmp_path: Path, started: Repo) -> None:
    (tmp_path / "b.py").unlink()
    started.commit(["b.py"], "remove b")
    assert committed(tmp_path) == ["D\tb.py"]
    assert git(tmp_path, "status", "--porcelain") == ""


def test_file_names_are_not_patterns(tmp_path: Path, started: Repo) -> None:
    for name in ("a[1].py", "a1.py", "*.py"):
        (tmp_path / name).write_text("new\n")
    assert started.dirty(["a[1].py", "*.py"]) == ["a[1].py", "*.py"]
    started.commit(["a[1].py"], "brackets")
    assert committed(tmp_path) == ["A\ta[1].py"]
    assert git(tmp_path, "status", "--porcelain") == "?? *.py\n?? a1.py\n"


def test_ignored_and_unchanged_files_are_not_committed(tmp_path: Path, started: Repo) -> None:
    (tmp_path / ".gitignore").write_text("*.log\n")
    started.commit([".gitignore"], "ignore logs")
    (tmp_path / "x.log").write_text("log\n")
    (tmp_path / "y.py").write_text("y\n")
    started.commit(["x.log", "y.py", "a.py"], "ours")
    assert committed(tmp_path) == ["A\ty.py"]
    head = started.head()
    assert started.commit(["x.log", "a.py"], "nothing") == head


def test_missing_identity(tmp_path: Path, repo: Repo) -> None:
    git(tmp_path, "config", "--unset", "user.name")
    assert not repo.has_identity()
    (tmp_path / "a.py").write_text("a\n")
    with pytest.raises(GitError, match="git config --global user.name .* user.email"):
        repo.commit(["a.py"], "x")
    assert git(tmp_path, "status", "--porcelain") == "?? a.py\n"
    git(tmp_path, "config", "user.name", "Test")
    assert repo.has_identity()


def test_identity_from_the_global_config(tmp_path: Path, repo: Repo) -> None:
    git(tmp_path, "config", "--unset", "user.name")
    git(tmp_path, "config", "--global", "user.name", "Global")
    assert repo.has_identity()


def test_a_failed_commit_leaves_new_files_untracked(tmp_path: Path, started: Repo) -> None:
    (tmp_path / "new.py").write_text("new\n")
    with pytest.raises(GitError, match="git commit failed: .*empty commit message"):
        started.commit(["new.py"], "")
    assert git(tmp_path, "status", "--porcelain") == "?? new.py\n"


def test_diff(tmp_path: Path, repo: Repo) -> None:
    (tmp_path / "a.py").write_text("a\n")
    git(tmp_path, "add", "a.py")
    assert "+a\n" in repo.diff(["a.py"])
    repo.commit(["a.py"], "first")
    assert repo.diff(["a.py"]) == ""
    (tmp_path / "a.py").write_text("b\n")
    assert "-a\n+b\n" in repo.diff(["a.py"])
    assert repo.diff([]) == ""


def test_undo_restores_the_previous_commit_and_refuses_when_unsafe(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    git(tmp_path, "config", "user.name", "Test")
    git(tmp_path, "config", "user.email", "test@example.com")
    repo = Repo.find(tmp_path)
    (tmp_path / "a.py").write_text("one\n")
    first = repo.commit(["a.py"], "first")
    with pytest.raises(GitError, match="first commit"):
        repo.undo(first)
    (tmp_path / "a.py").write_text("two\n")
    (tmp_path / "new.py").write_text("new\n")
    second = repo.commit(["a.py", "new.py"], "second")
    (tmp_path / "a.py").write_text("three\n")
    with pytest.raises(GitError, match="changed since"):
        repo.undo(second)
    (tmp_path / "a.py").write_text("two\n")
    assert sorted(repo.undo(second)) == ["a.py", "new.py"]
    assert repo.head() == first
    assert (tmp_path / "a.py").read_text() == "one\n"
    assert not (tmp_path / "new.py").exists()
    assert git(tmp_path, "status", "--porcelain") == ""
    with pytest.raises(GitError, match="no longer the last commit"):
        repo.undo(second)
