"""Architect mode: the main model's plan, then the editor model's edit."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from coder.chat import architect, commands
from coder.chat.config import Config
from coder.chat.session import Session, SessionConfig
from coder.edits.workspace import Workspace
from coder.seams.model import ScriptedModel
from coder.seams.repo import Repo
from coder.terminal import Terminal
from editformats import get_format

from ..fake_openai import FakeOpenAI, Text
from ..gitrepo import git, make_repo
from .test_cli_chat import EDIT, coder
from .test_session import block

PLAN = "In hello.py, make greet() return 'goodbye' instead of 'hello'."


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_repo(tmp_path)


def chat_session(root: Path, main: list, editor: list | None, **config) -> Session:
    out = io.StringIO()
    return Session(
        model=ScriptedModel(main, name="planner"),
        fmt=get_format("diff"),
        ws=Workspace(root),
        repo=Repo.find(root),
        terminal=Terminal(out=out, err=out),
        config=SessionConfig(**config),
        weak_model=ScriptedModel(["Say goodbye"]),
        editor_model=ScriptedModel(editor, name="typist") if editor is not None else None,
        files=["hello.py"],
    )


def test_the_plan_of_one_model_is_written_as_an_edit_by_the_other(root: Path) -> None:
    edit = block('    return "hello"\n', '    return "goodbye"\n')
    session = chat_session(root, [PLAN], [edit], architect=True)
    outcome = session.turn("say goodbye")
    assert outcome.commits and "goodbye" in (root / "hello.py").read_text()
    (planning,) = session.model.requests
    assert planning.kind == "architect"
    assert planning.messages[0].content == architect.ARCHITECT_SYSTEM
    assert planning.messages[-1].content == "say goodbye"
    assert not any("SEARCH" in m.content for m in planning.messages)  # no edit examples
    (editing,) = session.editor_model.requests
    assert editing.messages[0].content == get_format("diff").system_prompt
    assert editing.messages[-1].content.endswith(PLAN)
    shown = session.terminal.out.getvalue()
    assert "Architect (planner) plans the change:" in shown and PLAN in shown
    assert "Editor (typist) writes the edit:" in shown
    assert session.model.name == "planner"  # the editor was lent for the edit only


def test_without_an_editor_model_the_main_model_edits(root: Path) -> None:
    edit = block('    return "hello"\n', '    return "goodbye"\n')
    session = chat_session(root, [PLAN, edit], None)
    outcome = session.turn("say goodbye", architect=True)
    assert outcome.commits and [r.kind for r in session.model.requests] == ["architect", "edit"]


def test_an_empty_plan_edits_nothing(root: Path) -> None:
    session = chat_session(root, ["  "], [], architect=True)
    outcome = session.turn("say goodbye")
    assert outcome.failed and not outcome.commits
    assert git(root, "log", "--format=%s").splitlines() == ["start"]


def test_the_architect_command_toggles_the_mode_and_runs_one_request(root: Path) -> None:
    edit = block('    return "hello"\n', '    return "goodbye"\n')
    session = chat_session(root, [PLAN], [edit])
    terminal = session.terminal
    chat = commands.Chat(session, terminal, Config(), lambda name: ScriptedModel([], name=name))
    commands.dispatch(chat, "/architect")
    assert session.config.architect
    commands.dispatch(chat, "/architect")
    assert not session.config.architect
    commands.dispatch(chat, "/architect say goodbye")
    assert "goodbye" in (root / "hello.py").read_text() and not session.config.architect


def test_architect_from_the_command_line(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    script = [Text(PLAN), Text(EDIT), Text("Say goodbye instead of hello")]
    with FakeOpenAI(script) as server:
        done = coder(repo, server, "--architect", "-m", "say goodbye", "hello.py")
    assert done.returncode == 0, done.stderr
    first, second = server.requests[:2]
    assert first["messages"][0]["content"] == architect.ARCHITECT_SYSTEM
    assert second["messages"][-1]["content"].endswith(PLAN)
    assert "goodbye" in (repo / "hello.py").read_text()
