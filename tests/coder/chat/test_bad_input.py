"""Bad input gets a clear error, never a traceback, and the files stay as they were: the real
`coder` command with odd flags, files and names."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..fake_openai import FakeOpenAI, Text
from ..gitrepo import git, make_repo

EDIT = "a.py\n```python\n<<<<<<< SEARCH\nA = 1\n=======\nA = 2\n>>>>>>> REPLACE\n```\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    folder = tmp_path / "repo"
    folder.mkdir()
    return make_repo(folder, {"a.py": "A = 1\n"})


def coder(repo: Path, *args: str, stdin: str = "", home: Path | None = None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CODER_", "GIT_"))}
    env |= {"HOME": str(home or repo.parent), "NO_COLOR": "1", "OPENAI_API_KEY": "sk-test"}
    return subprocess.run(
        [sys.executable, "-m", "coder.cli", "--no-gitignore", *args],
        cwd=repo,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def answering(*replies: str):
    left = list(replies)

    def answer(body: dict) -> Text:
        if "commit message" in str(body["messages"][0]["content"]).lower():
            return Text("A change")
        return Text(left.pop(0) if len(left) > 1 else left[0])

    return answer


@pytest.mark.parametrize("value", ["-1", "nan", "inf", "0"])
def test_a_timeout_that_is_no_wait_is_refused_at_once(repo: Path, value: str) -> None:
    done = coder(repo, "--model", "openai/x", "--api-base", "http://127.0.0.1:9/v1",
                 "--timeout", value, "-m", "go", "a.py")  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "--timeout must be a number of seconds above 0" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_message_file_that_is_not_utf8_is_a_clear_error(repo: Path) -> None:
    (repo.parent / "message.txt").write_bytes(b"caf\xe9 au lait\n")
    done = coder(repo, "--model", "openai/x", "--api-base", "http://127.0.0.1:9/v1",
                 "--message-file", str(repo.parent / "message.txt"), "a.py")  # fmt: skip
    assert done.returncode == 2 and "is not UTF-8 text (byte 3 is not)" in done.stderr
    assert "Traceback" not in done.stderr


def test_add_takes_absolute_and_home_globs(repo: Path) -> None:
    (repo / "sub").mkdir()
    (repo / "sub" / "b.py").write_text("B = 1\n")
    elsewhere = repo.parent / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "c.py").write_text("C = 1\n")
    lines = f"/add {repo}/sub/*.py\n/add ~/elsewhere/*.py\n/ls\n/exit\n"
    done = coder(repo, "--model", "openai/x", "--api-base", "http://127.0.0.1:9/v1", stdin=lines)
    out = done.stdout + done.stderr
    assert "Unexpected error" not in out and "Traceback" not in out
    assert "Added sub/b.py to the chat." in out
    assert "is outside the repository" in out


def test_the_readmes_read_setting_of_a_file_in_the_home_folder(repo: Path) -> None:
    home = repo.parent
    (home / "CONVENTIONS.md").write_text("Use tabs, never spaces.\n")
    (home / ".coder.conf.yml").write_text("read: [~/CONVENTIONS.md]\n")
    with FakeOpenAI(answering(EDIT)) as server:
        done = coder(repo, "--model", "openai/test-model", "--api-base", server.base_url,
                     "-m", "go", "a.py", home=home)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Use tabs, never spaces." in str(server.requests[0]["messages"])


def test_drop_of_a_file_not_in_the_chat_says_so(repo: Path) -> None:
    lines = "/drop nothere.py\n/drop a.py\n/exit\n"
    done = coder(repo, "--model", "openai/x", "--api-base", "http://127.0.0.1:9/v1", "a.py",
                 stdin=lines)  # fmt: skip
    out = done.stdout + done.stderr
    assert "nothere.py is not in the chat: nothing dropped" in out
    assert "Dropped a.py." in out


def test_a_chat_file_whose_name_is_not_utf8_can_be_edited(repo: Path) -> None:
    name = os.fsdecode(b"caf\xe9.py")
    (repo / name).write_text("X = 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "odd name")
    shown = "caf\ufffd.py"
    reply = f"{shown}\n```python\n<<<<<<< SEARCH\nX = 1\n=======\nX = 2\n>>>>>>> REPLACE\n```\n"
    with FakeOpenAI(answering(reply)) as server:
        done = coder(repo, "--model", "openai/test-model", "--api-base", server.base_url,
                     "-m", "go", name)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert (repo / name).read_text() == "X = 2\n"
    assert shown in server.requests[0]["messages"][-3]["content"]


def test_apply_on_a_detached_head_says_the_commits_are_on_no_branch(repo: Path) -> None:
    git(repo, "checkout", "-q", "--detach")
    (repo.parent / "reply.md").write_text(EDIT)
    done = coder(repo, "--apply", str(repo.parent / "reply.md"), "a.py")
    assert done.returncode == 0, done.stderr
    assert "HEAD is detached, so these commits are on no branch" in done.stdout


def test_a_huge_file_is_not_sent_without_a_yes(repo: Path) -> None:
    (repo / "big.txt").write_text("x" * 2_000_000)
    lines = "/add big.txt\n/ls\n/exit\n"
    done = coder(repo, "--model", "openai/x", "--api-base", "http://127.0.0.1:9/v1", stdin=lines)
    out = done.stdout + done.stderr
    asked = "big.txt is 2.0 MB, about 500,000 tokens sent with every request. Add it anyway? no"
    assert asked in out
    assert "Not added: big.txt." in out
    with FakeOpenAI(answering(EDIT)) as server:
        done = coder(repo, "--model", "openai/test-model", "--api-base", server.base_url,
                     "--context-window", "100000", "-m", "go", "big.txt")  # fmt: skip
    assert done.returncode == 2 and server.requests == []
    assert "more than openai/test-model takes in one request (100,000)" in done.stderr
