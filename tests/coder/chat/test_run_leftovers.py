"""What a sandboxed /test leaves is the run's data: the real `coder` command, its test command
turning the report into a named pipe or a link to one, returns at once and says why the report
was not read; a tree nested 3,000 deep is removed with the copy."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..chatcli import run_chat
from ..gitrepo import make_repo


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    folder = tmp_path / "repo"
    folder.mkdir()
    return make_repo(folder, {"a.py": "A = 1\n"})


def chat_test(repo: Path, cmd: str, tmp: Path | None = None) -> str:
    """What `coder --sandbox auto` prints for `/test cmd` (the test fails if it hangs)."""
    flags = ("--api-key", "x", "--sandbox", "auto")
    env = {"TMPDIR": str(tmp)} if tmp else {}
    try:
        done = run_chat(repo, f"/test {cmd}\nn\n/exit\n", *flags, env=env, timeout=180)
    except subprocess.TimeoutExpired:
        pytest.fail("the chat hangs on the report")
    return done.stdout + done.stderr


def test_a_report_made_a_named_pipe_is_not_waited_for(repo: Path) -> None:
    out = chat_test(repo, "mkfifo coder-junit.xml; exit 1")
    assert "The test report coder-junit.xml is not a regular file; it was not read." in out, out


def test_a_report_made_a_link_is_not_followed(repo: Path, tmp_path: Path) -> None:
    pipe = tmp_path / "terminal"  # stands for /dev/tty: following the link would block on it
    os.mkfifo(pipe)
    try:
        out = chat_test(repo, f"ln -s {pipe} coder-junit.xml; exit 1")
    finally:
        with open(os.open(pipe, os.O_RDWR | os.O_NONBLOCK), "wb"):
            pass
    assert "The test report coder-junit.xml could not be opened" in out, out


def test_a_deep_tree_left_by_the_tests_is_removed(repo: Path, tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    nest = 'import os; [os.mkdir("a") or os.chdir("a") for _ in range(3000)]'
    deep = f"{sys.executable} -c '{nest}'"
    out = chat_test(repo, f"{deep}; exit 1", tmp)
    # It ends, or is stopped for nesting folders too deep (the limit on files): either way the
    # chat goes on, and the copy is gone.
    assert ", in a sandboxed copy of the files)" in out, out
    assert "Error" not in out, out
    assert os.listdir(tmp) == []
