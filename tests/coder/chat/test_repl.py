"""The prompt, driven through prompt-toolkit's pipe input, with a scripted model."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from coder.chat import commands, repl
from coder.chat.config import Config
from coder.chat.session import Session
from coder.edits.workspace import Workspace
from coder.seams.model import ScriptedModel
from coder.seams.repo import Repo
from coder.terminal import Terminal
from editformats import get_format

from ..gitrepo import HELLO, git, make_repo

REPLY = (
    'hello.py\n```python\n<<<<<<< SEARCH\n    return "hello"\n=======\n    return "hi"\n'
    ">>>>>>> REPLACE\n```\n"
)


@pytest.fixture
def chat(tmp_path: Path) -> commands.Chat:
    make_repo(tmp_path, {"hello.py": HELLO, "other.py": "X = 1\n"})
    out = io.StringIO()
    terminal = Terminal(out=out, err=out)
    session = Session(
        model=ScriptedModel([REPLY]),
        fmt=get_format("diff"),
        ws=Workspace(tmp_path),
        repo=Repo.find(tmp_path),
        terminal=terminal,
        weak_model=ScriptedModel(["Say hi"]),
    )
    return commands.Chat(session, terminal, Config(), lambda name: ScriptedModel([], name=name))


def drive(chat: commands.Chat, keys: str) -> str:
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        repl.loop(chat, prompt_input=pipe, prompt_output=DummyOutput())
    return chat.terminal.out.getvalue()


def test_add_turn_undo_and_exit(chat: commands.Chat) -> None:
    root = chat.session.ws.root
    out = drive(chat, "/add hello.py\n/ls\nsay hi\n/undo\n/exit\n")
    assert "Added hello.py to the chat." in out
    assert "  hello.py" in out
    assert "Committed" in out and "Undone: hello.py" in out
    assert (root / "hello.py").read_text() == HELLO
    assert git(root, "log", "--format=%s").splitlines() == ["start"]


def test_ctrl_d_leaves(chat: commands.Chat) -> None:
    assert "hello.py" not in drive(chat, "/ls\n\x04")


def test_errors_are_shown_and_the_chat_goes_on(chat: commands.Chat) -> None:
    out = drive(chat, "/nosuch\n/add ../x.py\n/help\n/exit\n")
    assert "unknown command /nosuch" in out
    assert "outside the repository" in out
    for name in commands.COMMANDS:
        assert f"/{name}" in out


def test_every_issue_command_is_registered() -> None:
    wanted = (
        "add drop read-only ls diff undo commit run test ask model edit-format tokens clear reset"
        " help exit map map-refresh"
    )
    assert set(wanted.split()) <= set(commands.COMMANDS)


def test_commands_change_the_session(chat: commands.Chat) -> None:
    out = drive(
        chat, "/add *.py\n/read-only other.py\n/edit-format whole\n/model other\n/drop\n/exit\n"
    )
    assert chat.session.fmt.name == "whole"
    assert chat.session.model.name == "other"
    assert chat.session.files == [] and chat.session.read_only == []
    assert "Added other.py read-only." in out


def test_a_glob_that_matches_nothing_and_a_missing_file_create_nothing(
    chat: commands.Chat,
) -> None:
    root = chat.session.ws.root
    out = drive(chat, "/add nomatch*.py\n/add missing.py\n/exit\n")
    assert "No file matches nomatch*.py: nothing added." in out
    assert "missing.py does not exist. Add it to the chat as a new file? no" in out
    assert chat.session.files == []
    assert not any(root.glob("nomatch*")) and not (root / "missing.py").exists()
    chat.terminal.yes = True
    drive(chat, "/add missing.py\n/exit\n")
    assert chat.session.files == ["missing.py"]  # in the chat, created by the first edit only
    assert not (root / "missing.py").exists()


def test_run_offers_output_to_the_chat(chat: commands.Chat) -> None:
    chat.terminal.yes = True
    drive(chat, "!echo hello-from-shell\n/exit\n")
    assert "hello-from-shell" in chat.session.history[-2].content


def test_test_in_a_sandbox_runs_on_a_copy_without_secrets(
    chat: commands.Chat, tmp_path: Path, monkeypatch
) -> None:
    from dataclasses import replace

    from sandbox import get_sandbox

    monkeypatch.setenv("OPENAI_API_KEY", "sk-canary-7e6d5c4b3a")
    config = replace(chat.session.config, sandbox=get_sandbox("auto"))
    chat.session.config = config
    cmd = "echo key=${OPENAI_API_KEY:-none}; touch planted.txt; cat hello.py; exit 3"
    out = drive(chat, f"/test {cmd}\nn\n/exit\n")
    assert "key=none" in out and "sk-canary" not in out and 'return "hello"' in out
    assert "(exit status 3, in a sandboxed copy of the files)" in out
    assert not (tmp_path / "planted.txt").exists()


def test_test_in_a_sandbox_that_cannot_run_it_says_so_and_asks_the_model_nothing(
    chat: commands.Chat,
) -> None:
    from dataclasses import replace

    from sandbox import get_sandbox
    from tests.harness_faults import Unrunnable

    broken = Unrunnable(get_sandbox("auto"), missing="/nonexistent/sh")
    chat.session.config = replace(chat.session.config, sandbox=broken)
    out = drive(chat, "/test echo fine\n/exit\n")
    assert "sandbox could not run `echo fine`: cannot execute /nonexistent/sh" in out
    assert "Ask the model" not in out and chat.session.history == []


def test_tokens_shows_the_sessions_running_total_and_cost(tmp_path: Path) -> None:
    from coder.seams.model import Completion, Usage

    make_repo(tmp_path)
    out = io.StringIO()
    terminal = Terminal(out=out, err=out)
    session = Session(
        model=ScriptedModel([Completion(REPLY, usage=Usage(1000, 200, 0.0125))]),
        fmt=get_format("diff"),
        ws=Workspace(tmp_path),
        repo=Repo.find(tmp_path),
        terminal=terminal,
        weak_model=ScriptedModel([Completion("Say hi", usage=Usage(300, 5, 0.0005))]),
        files=["hello.py"],
    )
    chat = commands.Chat(session, terminal, Config(), lambda name: ScriptedModel([], name=name))
    out = drive(chat, "say hi\n/tokens\n/exit\n")
    # The commit message the weak model wrote counts too.
    assert "Session: 1,300 tokens sent, 205 received, $0.0130." in out


def test_map_shows_the_map_and_map_refresh_reads_every_file_again(chat: repl.Chat) -> None:
    (chat.session.ws.root / "shapes.py").write_text("class Hexagon:\n    pass\n")
    out = drive(chat, "/add hello.py\n/map\n/map-refresh\n/exit\n")
    assert "other.py:\n    1: X = 1\n" in out and "shapes.py:\n    1: class Hexagon:\n" in out
    assert "hello.py:" not in out.split("Added hello.py to the chat.")[1]
    assert "The map: " in out and " tokens of 1,024." in out
    assert "The repository map is rebuilt: 3 files read." in out  # the chat file too


def test_map_says_when_the_map_is_off_or_empty(chat: repl.Chat) -> None:
    from dataclasses import replace

    out = drive(chat, "/add *.py\n/map\n/exit\n")
    assert "The map is empty" in out
    chat.session.config = replace(chat.session.config, map_tokens=0)
    out = drive(chat, "/map\n/map-refresh\n/exit\n")
    assert out.count("The repository map is off (--map-tokens 0).") == 2


def test_map_says_when_its_budget_is_too_small_for_one_entry(chat: repl.Chat) -> None:
    # It said "no file outside the chat defines anything", which was not true.
    from dataclasses import replace

    chat.session.config = replace(chat.session.config, map_tokens=3)
    out = drive(chat, "/add hello.py\n/map\n/exit\n")
    assert "The map is empty: its first entry does not fit in 3 tokens (--map-tokens)." in out


def test_completion_never_offers_the_tags_cache(chat: repl.Chat) -> None:
    from prompt_toolkit.document import Document

    root = chat.session.ws.root
    for name in (".coder.tags.cache", ".coder.tags.cache-journal", ".coder.conf.yml"):
        (root / name).write_text("")
    completer = repl._completer(chat)
    offered = [c.text for c in completer.get_completions(Document("/add .coder"), None)]
    assert offered == [".coder.conf.yml"]


def test_edit_format_names_the_others_without_the_current_one(chat: commands.Chat) -> None:
    """Issue 33, item 8: the current format is not listed among the others."""
    out = drive(chat, "/edit-format\n/exit\n")
    said = next(line for line in out.splitlines() if line.startswith("The edit format is"))
    current, others = said.removeprefix("The edit format is ").split("; others: ")
    assert current == "diff" and "diff" not in others.split(", ")
    assert {"whole", "udiff", "patch"} <= set(others.split(", "))
