"""`coder --apply` end to end: real git repositories in tmp_path, the real command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coder.cli import main

from ..gitrepo import git, make_repo

DIFF_REPLY = """Change the greeting.

hello.py
```python
<<<<<<< SEARCH
    return "hello"
=======
    return "goodbye"
>>>>>>> REPLACE
```
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with one committed file, hello.py, as the current folder."""
    make_repo(tmp_path)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write_reply(folder: Path, text: str) -> str:
    reply = folder.parent / f"{folder.name}.reply.md"
    reply.write_text(text)
    return str(reply)


def log(repo: Path) -> list[str]:
    return git(repo, "log", "--format=%s").splitlines()


def test_applies_and_commits(repo: Path) -> None:
    assert (
        main(["--apply", write_reply(repo, DIFF_REPLY), "--edit-format", "diff", "hello.py"]) == 0
    )
    assert (repo / "hello.py").read_text() == 'def greet():\n    return "goodbye"\n'
    assert log(repo) == ["coder: edit hello.py", "start"]
    assert git(repo, "status", "--porcelain") == ""


def test_user_changes_are_committed_first_and_separately(repo: Path) -> None:
    (repo / "hello.py").write_text('# mine\ndef greet():\n    return "hello"\n')
    (repo / "notes.txt").write_text("staged, not ours\n")
    git(repo, "add", "notes.txt")
    assert (
        main(["--apply", write_reply(repo, DIFF_REPLY), "--edit-format", "diff", "hello.py"]) == 0
    )
    assert log(repo) == [
        "coder: edit hello.py",
        "coder: save uncommitted changes to hello.py",
        "start",
    ]
    assert git(repo, "show", "HEAD~1:hello.py").startswith("# mine\n")
    assert git(repo, "status", "--porcelain") == "A  notes.txt\n"


def test_nothing_is_written_when_one_edit_fails(repo: Path, capsys) -> None:
    reply = (
        DIFF_REPLY
        + "\nhello.py\n```\n<<<<<<< SEARCH\nnot in the file\n=======\nx\n>>>>>>> REPLACE\n```\n"
    )
    assert main(["--apply", write_reply(repo, reply), "--edit-format", "diff", "hello.py"]) == 1
    assert (repo / "hello.py").read_text() == 'def greet():\n    return "hello"\n'
    assert log(repo) == ["start"]
    err = capsys.readouterr().err
    assert "block 2 was not found in hello.py" in err
    assert "Block 1 would apply" in err


def test_dry_run_prints_the_diff_and_writes_nothing(repo: Path, capsys) -> None:
    args = ["--apply", write_reply(repo, DIFF_REPLY), "--edit-format", "diff", "--dry-run"]
    assert main([*args, "hello.py"]) == 0
    out = capsys.readouterr().out
    assert '-    return "hello"\n+    return "goodbye"\n' in out
    assert (repo / "hello.py").read_text() == 'def greet():\n    return "hello"\n'
    assert log(repo) == ["start"]


def test_no_auto_commits_writes_without_committing(repo: Path) -> None:
    args = ["--apply", write_reply(repo, DIFF_REPLY), "--edit-format", "diff", "--no-auto-commits"]
    assert main([*args, "hello.py"]) == 0
    assert "goodbye" in (repo / "hello.py").read_text()
    assert log(repo) == ["start"]


def test_function_format_reads_an_assistant_message(repo: Path) -> None:
    arguments = {
        "explanation": "new greeting",
        "edits": [
            {
                "path": "hello.py",
                "original_lines": ['    return "hello"'],
                "updated_lines": ['    return "hi"'],
            }
        ],
    }
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "replace_lines", "arguments": json.dumps(arguments)},
            }
        ],
    }
    reply = write_reply(repo, json.dumps(message))
    assert main(["--apply", reply, "--edit-format", "diff-func", "hello.py"]) == 0
    assert (repo / "hello.py").read_text() == 'def greet():\n    return "hi"\n'


def test_new_file_given_on_the_command_line(repo: Path) -> None:
    reply = "src/new.py\n```python\n<<<<<<< SEARCH\n=======\nVALUE = 1\n>>>>>>> REPLACE\n```\n"
    assert main(["--apply", write_reply(repo, reply), "--edit-format", "diff", "src/new.py"]) == 0
    assert (repo / "src" / "new.py").read_text() == "VALUE = 1\n"
    assert git(repo, "show", "--name-only", "--format=", "HEAD") == "src/new.py\n"


def test_existing_file_outside_the_chat_is_not_overwritten(repo: Path, capsys) -> None:
    (repo / "other.py").write_text("keep me\n")
    reply = "other.py\n```python\nreplaced\n```\n"
    assert main(["--apply", write_reply(repo, reply), "--edit-format", "whole", "hello.py"]) == 1
    assert (repo / "other.py").read_text() == "keep me\n"
    assert "not one of the files in the chat" in capsys.readouterr().err


@pytest.mark.parametrize("path", ["../outside.py", ".git/config", "/etc/passwd"])
def test_paths_leaving_the_repository_are_refused(repo: Path, path: str, capsys) -> None:
    reply = f"{path}\n```\n<<<<<<< SEARCH\n=======\nevil\n>>>>>>> REPLACE\n```\n"
    assert main(["--apply", write_reply(repo, reply), "--edit-format", "diff", "hello.py"]) == 1
    assert "refused" in capsys.readouterr().err
    assert not (repo.parent / "outside.py").exists()
    assert "evil" not in (repo / ".git" / "config").read_text()


def test_symlink_leaving_the_repository_is_refused(repo: Path, tmp_path_factory) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (repo / "link").symlink_to(outside, target_is_directory=True)
    reply = "link/x.py\n```\n<<<<<<< SEARCH\n=======\nevil\n>>>>>>> REPLACE\n```\n"
    assert main(["--apply", write_reply(repo, reply), "--edit-format", "diff", "hello.py"]) == 1
    assert not (outside / "x.py").exists()


def test_usage_errors_exit_2(repo: Path, capsys) -> None:
    reply = write_reply(repo, DIFF_REPLY)
    assert main(["--apply", reply, "--edit-format", "nope", "hello.py"]) == 2
    assert "choose one of: whole, diff" in capsys.readouterr().err
    assert main(["--apply", str(repo / "missing.md"), "hello.py"]) == 2
    assert main(["--apply", reply, "--edit-format", "diff", "/etc/hosts"]) == 2


def test_parse_error_exits_1_and_names_the_line(repo: Path, capsys) -> None:
    reply = "hello.py\n```\n<<<<<<< SEARCH\nx\n>>>>>>> REPLACE\n```\n"
    assert main(["--apply", write_reply(repo, reply), "--edit-format", "diff", "hello.py"]) == 1
    assert "line 3" in capsys.readouterr().err


def test_outside_a_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "hello.py").write_text('def greet():\n    return "hello"\n')
    monkeypatch.chdir(folder)
    reply = write_reply(folder, DIFF_REPLY)
    assert main(["--apply", reply, "--edit-format", "diff", "hello.py"]) == 2
    assert "hello" in (folder / "hello.py").read_text()
    assert main(["--apply", reply, "--edit-format", "diff", "--no-auto-commits", "hello.py"]) == 0
    assert "goodbye" in (folder / "hello.py").read_text()


def test_missing_identity_is_a_clear_error(repo: Path, monkeypatch, capsys) -> None:
    git(repo, "config", "--unset", "user.name")
    git(repo, "config", "--unset", "user.email")
    monkeypatch.setenv("HOME", str(repo.parent))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(repo.parent / "none.gitconfig"))
    assert (
        main(["--apply", write_reply(repo, DIFF_REPLY), "--edit-format", "diff", "hello.py"]) == 2
    )
    assert "user.email" in capsys.readouterr().err
    assert "hello" in (repo / "hello.py").read_text()


def test_crlf_and_latin1_bytes_survive(repo: Path) -> None:
    (repo / "old.txt").write_bytes(b"caf\xe9\r\nline two\r\nline three\r\n")
    reply = "old.txt\n```\n<<<<<<< SEARCH\nline two\n=======\nline 2\n>>>>>>> REPLACE\n```\n"
    assert main(["--apply", write_reply(repo, reply), "--edit-format", "diff", "old.txt"]) == 0
    assert (repo / "old.txt").read_bytes() == b"caf\xe9\r\nline 2\r\nline three\r\n"
