"""Chats in the patch formats against the fake OpenAI-compatible server, over both routes: a
patch that fails is answered (on the API's rules for patch-func) and sent again whole; a patch
that deletes and renames files commits them, keeps the chat's files in step, and is undone."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from coder.chat import commands
from coder.chat.config import Config
from coder.chat.session import Session, SessionConfig
from coder.edits.workspace import Workspace
from coder.seams.llm import DirectModel, LiteLLMModel, ModelSettings
from coder.seams.model import ScriptedModel
from coder.seams.repo import Repo
from coder.terminal import Terminal
from editformats import feedback, get_format

from ..fake_openai import Calls, FakeOpenAI, Text
from ..gitrepo import git, make_repo
from ..seams.test_tool_protocol import commits_answered, no_imitations

SHAPES = "def area(w, h):\n    return 0\n\n\ndef name():\n    return 'shape'\n"
GOOD = "*** Update File: shapes.py\n@@ def area(w, h):\n-    return 0\n+    return w * h\n"
BAD = "*** Update File: shapes.py\n@@\n-    return 'circle'\n+    return 'disc'\n"


def envelope(*sections: str) -> str:
    return "*** Begin Patch\n" + "".join(sections) + "*** End Patch\n"


def step(fmt: str, *patches: str):
    """A step of the server's script: the patches as text, or as apply_patch calls."""
    if fmt == "patch":
        return Text("Here it is.\n\n" + "\n".join(patches))
    return Calls(tuple(("apply_patch", json.dumps({"input": p})) for p in patches))


def chat(root: Path, server: FakeOpenAI, fmt: str, route: str, files: list[str]) -> Session:
    settings = ModelSettings(
        "openai/test-model", api_base=server.base_url, api_key="sk-test", timeout=20, retries=0
    )
    model = {"direct": DirectModel, "litellm": LiteLLMModel}[route](settings)
    out = io.StringIO()
    return Session(
        model=model,
        fmt=get_format(fmt),
        ws=Workspace(root),
        repo=Repo.find(root),
        terminal=Terminal(out=out, err=out, yes=True),
        config=SessionConfig(),
        files=files,
    )


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_repo(tmp_path, {"shapes.py": SHAPES, "old.txt": "legacy\n", "notes.md": "n\n"})


@pytest.mark.parametrize("fmt", ["patch", "patch-func"])
def test_a_failed_patch_is_answered_and_sent_again_whole(root: Path, fmt: str, route: str) -> None:
    first = step(fmt, envelope(GOOD), envelope(BAD))
    second = step(fmt, envelope(GOOD))
    with FakeOpenAI(commits_answered([first, second])) as server:
        outcome = chat(root, server, fmt, route, ["shapes.py"]).turn("compute the area")
    assert outcome.applied and not outcome.failed
    assert (root / "shapes.py").read_text() == SHAPES.replace("return 0", "return w * h")
    assert git(root, "log", "--format=%s").splitlines()[1:] == ["start"]
    no_imitations(server)
    asked = server.requests[1]["messages"]
    if fmt == "patch":
        assert "-    return 'circle'" in asked[-1]["content"]
        assert feedback.ATOMIC in asked[-1]["content"]
        return
    answers = [m["content"] for m in asked if m["role"] == "tool"][1:]
    assert answers[0].startswith("Not applied: an edit of another call of this reply failed")
    assert answers[1].startswith("Failed.") and "match no lines of shapes.py" in answers[1]
    assert asked[-1]["content"].endswith("Call apply_patch again with all of them, fixed.")


@pytest.mark.parametrize("fmt", ["patch", "patch-func"])
def test_a_patch_that_deletes_and_renames_is_committed_and_undone(
    root: Path, fmt: str, route: str
) -> None:
    rename = "*** Update File: notes.md\n*** Move to: docs/notes.md\n"
    patch = envelope(GOOD, "*** Delete File: old.txt\n", rename)
    with FakeOpenAI(commits_answered([step(fmt, patch)])) as server:
        session = chat(root, server, fmt, route, ["shapes.py", "old.txt", "notes.md"])
        outcome = session.turn("tidy up")
    assert outcome.changed == ("docs/notes.md", "notes.md", "old.txt", "shapes.py")
    assert not (root / "old.txt").exists() and (root / "docs/notes.md").read_text() == "n\n"
    assert git(root, "status", "--porcelain") == ""
    assert session.files == ["shapes.py", "docs/notes.md"]
    no_imitations(server)
    terminal = session.terminal
    commands.dispatch(
        commands.Chat(session, terminal, Config(), lambda n: ScriptedModel([], name=n)), "/undo"
    )
    assert (root / "old.txt").read_text() == "legacy\n" and (root / "notes.md").exists()
    assert not (root / "docs/notes.md").exists()
    assert git(root, "log", "--format=%s").splitlines() == ["start"]
    # The chat holds the files as they are again: the renamed one under its old name, the
    # deleted one back, the new name gone (issue 32, item 6).
    assert session.files == ["shapes.py", "old.txt", "notes.md"]


def test_a_turn_given_up_puts_back_a_file_it_deleted_in_its_own_encoding(root: Path) -> None:
    from coder.chat.landing import Landing
    from coder.edits import editing
    from editformats import Reply

    (root / "latin.txt").write_bytes(b"caf\xe9\n")
    git(root, "add", "latin.txt")
    git(root, "commit", "-qm", "latin")
    ws, repo = Workspace(root), Repo.find(root)
    out = io.StringIO()
    landing = Landing(ws, repo, Terminal(out=out, err=out), [], lambda paths: "edit")
    reply = Reply(envelope("*** Delete File: latin.txt\n"))
    proposal = editing.propose(get_format("patch"), reply, ws, ["latin.txt"])
    assert landing.write(proposal) and not (root / "latin.txt").exists()
    assert landing.changed() == ("latin.txt",)
    landing.undo()
    assert (root / "latin.txt").read_bytes() == b"caf\xe9\n"
