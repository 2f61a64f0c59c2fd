"""Nothing of the user's is ever lost: the real `coder` command, a fake OpenAI-compatible server
on 127.0.0.1 and real git, in the situations where work went missing before (/pick over an
edit of the user's, /undo of the user's own commit, an unborn branch, a staged removal, an
ignored or read-only file, files git is told not to look at, a commit that cannot be signed)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from coder import exits

from ..fake_openai import Calls, FakeOpenAI, Text
from ..gitrepo import git, make_repo


def coder(
    repo: Path, server: FakeOpenAI, *args: str, stdin: str = ""
) -> subprocess.CompletedProcess:
    """Run coder in repo against server; stdin holds the chat's lines (no terminal)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CODER_", "GIT_"))}
    env |= {"OPENAI_API_KEY": "sk-test", "HOME": str(repo.parent), "NO_COLOR": "1"}
    command = [sys.executable, "-m", "coder.cli", "--model", "openai/test-model"]
    command += ["--api-base", server.base_url, "--timeout", "5", "--no-gitignore", *args]
    return subprocess.run(
        command, cwd=repo, env=env, input=stdin, capture_output=True, text=True, timeout=120
    )


def block(path: str, old: str, new: str) -> str:
    return f"{path}\n```python\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"


def is_selector(body: dict) -> bool:
    return any(t["function"]["name"] == "select_candidate" for t in body.get("tools", []))


def choose_the_one_editing(path: str, body: dict) -> Calls:
    shown = body["messages"][-1]["content"]
    label = re.search(rf"### Candidate (\w)\n(?:(?!### Candidate).)*a/{path}", shown, re.S)[1]
    answer = {"reasoning": "r", "selected": label, "confidence": 0.9}
    return Calls((("select_candidate", json.dumps(answer)),))


@pytest.fixture
def two_files(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    return make_repo(repo, {"a.py": "A = 1\n", "b.py": "B = 1\n"})


def test_pick_never_writes_over_an_edit_of_the_users(two_files: Path) -> None:
    edit_a, edit_b = block("a.py", "A = 1\n", "A = 2\n"), block("b.py", "B = 1\n", "B = 2\n")

    def answer(body: dict):
        if is_selector(body):
            return choose_the_one_editing("a.py", body)
        if "commit message" in json.dumps(body["messages"][0]).lower():
            return Text("Change a")
        return Text(edit_a if body.get("temperature", 0) == 0 else edit_b)

    lines = "change one\n!echo 'B = 99  # mine' > b.py\n/pick B\n/pick A\n/exit\n"
    with FakeOpenAI(answer) as server:
        done = coder(two_files, server, "--candidates", "2", "a.py", "b.py", stdin=lines)
    assert "A = 2" in (two_files / "a.py").read_text(), done.stdout + done.stderr
    # The user's line is where the user put it, whichever label /pick was given.
    assert (two_files / "b.py").read_text() == "B = 99  # mine\n"
    assert "changed since the candidates were made" in done.stdout + done.stderr


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    folder = tmp_path / "repo"
    folder.mkdir()
    return make_repo(folder, {"a.py": "A = 1\nB = 1\n"})


def test_undo_never_takes_back_the_commit_of_the_users_own_changes(repo: Path) -> None:
    (repo / "a.py").write_text("A = 1\nB = 1\nMINE = 1\n")
    edit = block("a.py", "A = 1\n", "A = 2\n")
    with FakeOpenAI([Text(edit), Text("Change A")]) as server:
        done = coder(repo, server, "a.py", stdin="change A\n/undo\n/undo\n/exit\n")
    out = done.stdout + done.stderr
    assert (repo / "a.py").read_text() == "A = 1\nB = 1\nMINE = 1\n", out
    assert "coder has no edit left to undo" in out
    assert git(repo, "show", "HEAD:a.py") == "A = 1\nB = 1\nMINE = 1\n"


def test_undo_after_a_declined_partial_edit_keeps_the_users_changes(repo: Path) -> None:
    (repo / "a.py").write_text("A = 1\nB = 1\nMINE = 1\n")
    half = block("a.py", "A = 1\n", "A = 2\n") + block("a.py", "NOT THERE\n", "X\n")
    with FakeOpenAI([Text(half)] * 2) as server:
        lines = "change A\n/undo\n/exit\n"
        done = coder(repo, server, "--max-reflections", "1", "a.py", stdin=lines)
    out = done.stdout + done.stderr
    assert "Keep the edits that did apply? no" in out
    assert (repo / "a.py").read_text() == "A = 1\nB = 1\nMINE = 1\n", out
    assert "coder has no edit left to undo" in out


def apply(repo: Path, reply: str, *args: str) -> subprocess.CompletedProcess:
    """coder --apply of reply (a diff-format reply) in repo."""
    (repo.parent / "reply.md").write_text(reply)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CODER_", "GIT_"))}
    env |= {"HOME": str(repo.parent), "NO_COLOR": "1"}
    command = [sys.executable, "-m", "coder.cli", "--apply", str(repo.parent / "reply.md")]
    return subprocess.run(
        [*command, *args], cwd=repo, env=env, capture_output=True, text=True, timeout=120
    )


def test_an_unborn_branch_keeps_the_staged_version(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.name", "Test")
    git(repo, "config", "user.email", "test@example.com")
    (repo / "a.py").write_text("STAGED = 1\n")
    git(repo, "add", "a.py")
    (repo / "a.py").write_text("STAGED = 1\nUNSTAGED = 1\n")
    done = apply(repo, block("a.py", "UNSTAGED = 1\n", "UNSTAGED = 2\n"), "a.py")
    assert done.returncode == 0, done.stdout + done.stderr
    log = git(repo, "log", "--format=%H %s", "--reverse").splitlines()
    versions = [git(repo, "show", f"{line.split()[0]}:a.py") for line in log]
    assert "STAGED = 1\n" in versions, log
    assert (repo / "a.py").read_text() == "STAGED = 1\nUNSTAGED = 2\n"


def test_a_staged_removal_stays_staged_and_the_edit_is_said_not_committed(repo: Path) -> None:
    git(repo, "rm", "--cached", "-q", "a.py")
    (repo / "a.py").write_text("A = 1\nB = 1\nMINE = 1\n")
    done = apply(repo, block("a.py", "A = 1\n", "A = 2\n"), "a.py")
    out = done.stdout + done.stderr
    assert "A = 2" in (repo / "a.py").read_text()
    assert "a.py is written but not committed: it is to be removed from git" in out
    assert git(repo, "ls-files", "a.py") == ""  # still removed from the index
    assert git(repo, "status", "--porcelain", "a.py").startswith("D ")


def test_a_staged_removal_of_an_unchanged_file_is_no_misleading_error(repo: Path) -> None:
    git(repo, "rm", "--cached", "-q", "a.py")
    done = apply(repo, block("a.py", "B = 1\n", "B = 2\n"), "a.py")
    out = done.stdout + done.stderr
    # Written, not committed (git is to forget the file): the status says so (issue 32, 9).
    assert done.returncode == exits.NOT_COMMITTED and "nothing to commit" not in out, out
    assert "a.py is written but not committed: it is to be removed from git" in out
    assert (repo / "a.py").read_text() == "A = 1\nB = 2\n"
    assert git(repo, "status", "--porcelain", "a.py").startswith("D ")


def test_an_ignored_file_is_kept_before_it_is_written_over(repo: Path) -> None:
    (repo / ".gitignore").write_text("local_settings.py\n")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-qm", "ignore")
    (repo / "local_settings.py").write_text("SECRET = 'only copy'\n")
    whole = "local_settings.py\n```python\nSECRET = None\n```\n"
    done = apply(repo, whole, "--edit-format", "whole", "--yes", "a.py")
    out = done.stdout + done.stderr
    assert (repo / "local_settings.py").read_text() == "SECRET = None\n", out
    kept = re.search(r"its version before this edit is kept in (\S+)\.\n", out)
    assert kept, out
    assert (repo / kept[1]).read_text() == "SECRET = 'only copy'\n"


@pytest.mark.parametrize("flag", ["--assume-unchanged", "--skip-worktree"])
def test_a_file_git_does_not_look_at_is_said_not_committed(repo: Path, flag: str) -> None:
    git(repo, "update-index", flag, "a.py")
    done = apply(repo, block("a.py", "A = 1\n", "A = 2\n"), "a.py")
    out = done.stdout + done.stderr
    assert "A = 2" in (repo / "a.py").read_text()
    name = flag.removeprefix("--")
    assert f"a.py is written but not committed: it is marked {name}" in out
    kept = re.search(r"its version before this edit is kept in (\S+)\.\n", out)
    assert kept and (repo / kept[1]).read_text() == "A = 1\nB = 1\n", out


def test_a_read_only_file_is_not_written_without_a_persons_leave(repo: Path) -> None:
    (repo / "a.py").chmod(0o444)
    for args in ((), ("--yes",)):
        done = apply(repo, block("a.py", "A = 1\n", "A = 2\n"), *args, "a.py")
        assert done.returncode == 1, done.stdout + done.stderr
        assert "read-only" in done.stdout + done.stderr
        assert (repo / "a.py").read_text() == "A = 1\nB = 1\n"


def test_a_commit_that_cannot_be_signed_writes_nothing(repo: Path) -> None:
    git(repo, "config", "commit.gpgSign", "true")
    git(repo, "config", "gpg.program", str(repo.parent / "no-such-gpg"))
    done = apply(repo, block("a.py", "A = 1\n", "A = 2\n"), "a.py")
    out = done.stdout + done.stderr
    assert done.returncode == 2, out
    assert "git cannot sign a commit" in out and "Nothing was written" in out
    assert (repo / "a.py").read_text() == "A = 1\nB = 1\n"
