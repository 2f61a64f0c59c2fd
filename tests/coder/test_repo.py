"""The git seam, against real repositories in tmp_path."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from coder.errors import GitError
from coder.repo import Repo


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    git(tmp_path, "init", "-q")
    git(tmp_path, "config", "user.name", "Test")
    git(tmp_path, "config", "user.email", "test@example.com")
    return Repo.find(tmp_path)


def test_find(tmp_path: Path, repo: Repo) -> None:
    (tmp_path / "sub").mkdir()
    assert Repo.find(tmp_path / "sub").root == tmp_path.resolve()


def test_find_outside_a_repository(tmp_path_factory) -> None:
    assert Repo.find(tmp_path_factory.mktemp("plain")) is None


def test_first_commit_and_dirty(tmp_path: Path, repo: Repo) -> None:
    assert repo.head() is None
    (tmp_path / "a.py").write_text("a\n")
    assert repo.dirty(["a.py", "missing.py"]) == ["a.py"]
    sha = repo.commit(["a.py"], "first")
    assert repo.head() == sha
    assert repo.dirty(["a.py"]) == []
    (tmp_path / "a.py").write_text("b\n")
    assert repo.dirty(["a.py"]) == ["a.py"]


def test_commit_leaves_other_changes_alone(tmp_path: Path, repo: Repo) -> None:
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / name).write_text(f"{name}\n")
    repo.commit(["a.py", "b.py", "c.py"], "start")
    (tmp_path / "a.py").write_text("ours\n")
    (tmp_path / "b.py").write_text("staged by the user\n")
    git(tmp_path, "add", "b.py")
    (tmp_path / "c.py").write_text("unstaged by the user\n")
    (tmp_path / "new.py").write_text("new\n")
    repo.commit(["a.py", "new.py"], "ours")
    assert git(tmp_path, "show", "--name-only", "--format=", "HEAD").split() == ["a.py", "new.py"]
    assert git(tmp_path, "status", "--porcelain") == "M  b.py\n M c.py\n"


def test_ignored_files_are_written_but_not_committed(tmp_path: Path, repo: Repo) -> None:
    (tmp_path / ".gitignore").write_text("*.log\n")
    repo.commit([".gitignore"], "start")
    (tmp_path / "x.log").write_text("log\n")
    (tmp_path / "y.py").write_text("y\n")
    repo.commit(["x.log", "y.py"], "ours")
    assert git(tmp_path, "show", "--name-only", "--format=", "HEAD").split() == ["y.py"]


def test_missing_identity(tmp_path: Path, repo: Repo, monkeypatch) -> None:
    git(tmp_path, "config", "--unset", "user.name")
    git(tmp_path, "config", "--unset", "user.email")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "none"))
    monkeypatch.setenv("HOME", str(tmp_path))
    repo = Repo.find(tmp_path)
    assert not repo.has_identity()
    (tmp_path / "a.py").write_text("a\n")
    with pytest.raises(GitError, match="user.name"):
        repo.commit(["a.py"], "x")
