"""Settings from defaults, two config files, CODER_* variables and flags, later winning."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder.chat.config import Config, load
from coder.errors import UsageError


def test_later_sources_win(tmp_path: Path) -> None:
    home, repo = tmp_path / "home", tmp_path / "repo"
    home.mkdir()
    repo.mkdir()
    (home / ".coder.conf.yml").write_text("model: sonnet\nedit-format: whole\nmax-reflections: 5\n")
    (repo / ".coder.conf.yml").write_text("edit-format: udiff\nread: [CONVENTIONS.md]\n")
    environ = {"CODER_MAX_REFLECTIONS": "1", "CODER_AUTO_COMMITS": "false", "OTHER": "x"}
    config = load(home, repo, environ, {"model": "4o", "dry_run": None})
    assert config == Config(
        model="4o",
        edit_format="udiff",
        max_reflections=1,
        auto_commits=False,
        read=("CONVENTIONS.md",),
    )


def test_defaults_without_files(tmp_path: Path) -> None:
    assert load(tmp_path, None, {}, {}) == Config()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("colour: red\n", "unknown setting 'colour'"),
        ("max-reflections: lots\n", "must be a whole number"),
        ("map-tokens: true\n", "must be a whole number, not True"),  # was taken as 1
        ("map-tokens: 2.5\n", "must be a whole number, not 2.5"),  # was taken as 2
        ("map-tokens: .inf\n", "must be a whole number"),  # was an OverflowError
        ("auto-commits: maybe\n", "must be true or false"),
        ("- a list\n", "must hold a mapping"),
    ],
)
def test_bad_files_name_the_problem(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / ".coder.conf.yml").write_text(text)
    with pytest.raises(UsageError, match=message):
        load(tmp_path, None, {}, {})


def test_the_route_and_key_settings(tmp_path: Path) -> None:
    (tmp_path / ".coder.conf.yml").write_text("via-litellm: true\napi-key: sk-file\n")
    config = load(tmp_path, None, {}, {})
    assert config.via_litellm and config.api_key == "sk-file"
    assert load(None, None, {"CODER_VIA_LITELLM": "1"}, {}).via_litellm
    assert load(None, None, {}, {"api_key": "sk-flag"}).api_key == "sk-flag"


def test_a_setting_that_may_be_none_takes_null_and_an_empty_variable(tmp_path: Path) -> None:
    (tmp_path / ".coder.conf.yml").write_text("context-window: 4096\ntest-cmd: null\n")
    assert load(None, tmp_path, {}, {}).context_window == 4096
    assert load(None, tmp_path, {"CODER_CONTEXT_WINDOW": ""}, {}).context_window is None
    (tmp_path / ".coder.conf.yml").write_text("context-window: null\n")
    assert load(None, tmp_path, {}, {}).context_window is None
    with pytest.raises(UsageError, match="CODER_CONTEXT_WINDOW must be a whole number, not 'many'"):
        load(None, tmp_path, {"CODER_CONTEXT_WINDOW": "many"}, {})


@pytest.mark.parametrize(
    ("model", "editor", "chosen", "fmt"),
    [
        ("gpt-4.1", None, None, "patch"),
        ("gpt5", None, None, "patch"),  # an alias, resolved first
        ("4o", None, None, "diff"),
        ("sonnet", "o3", None, "patch"),  # the editor model writes the edits
        ("gpt-4.1", None, "whole", "whole"),
    ],
)
def test_the_edit_format_follows_the_model_unless_one_is_chosen(
    model: str, editor: str | None, chosen: str | None, fmt: str
) -> None:
    from coder.chat.startup import edit_format

    assert edit_format(Config(model=model, editor_model=editor, edit_format=chosen)) == fmt


def test_model_switches_the_format_until_one_is_chosen(tmp_path: Path) -> None:
    import io

    from coder.chat import commands
    from coder.chat.session import Session
    from coder.edits.workspace import Workspace
    from coder.seams.model import ScriptedModel
    from coder.terminal import Terminal
    from editformats import get_format

    out = io.StringIO()
    terminal = Terminal(out=out, err=out)
    session = Session(ScriptedModel([]), get_format("diff"), Workspace(tmp_path), None, terminal)
    chat = commands.Chat(session, terminal, Config(), lambda n: ScriptedModel([], name=n))
    commands.dispatch(chat, "/model gpt-4.1")
    assert session.fmt.name == "patch"
    assert "The edit format is now patch, the one this model writes best." in out.getvalue()
    commands.dispatch(chat, "/edit-format udiff")
    commands.dispatch(chat, "/model gpt-4o")
    assert session.fmt.name == "udiff"
