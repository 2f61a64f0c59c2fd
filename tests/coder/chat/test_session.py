"""The turn loop with a scripted model, in real git repositories."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from coder import prompt
from coder.chat.session import Session, SessionConfig
from coder.edits.workspace import Workspace
from coder.errors import GitError
from coder.seams.model import Completion, ScriptedModel, Usage
from coder.seams.repo import Repo
from coder.terminal import Terminal
from editformats import ToolCall, get_format

from ..gitrepo import HELLO, git, make_repo


def block(original: str, updated: str, path: str = "hello.py") -> str:
    return f"{path}\n```python\n<<<<<<< SEARCH\n{original}=======\n{updated}>>>>>>> REPLACE\n```\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_repo(tmp_path)


def session(
    root: Path,
    script,
    fmt: str = "diff",
    yes: bool = False,
    weak_model_replies: int = 1,
    **config,
) -> Session:
    out = io.StringIO()
    return Session(
        model=ScriptedModel(script),
        fmt=get_format(fmt),
        ws=Workspace(root),
        repo=Repo.find(root),
        terminal=Terminal(out=out, err=out, yes=yes),
        config=SessionConfig(**config),
        weak_model=ScriptedModel(["Say goodbye instead of hello"] * weak_model_replies),
        files=["hello.py"],
    )


def test_a_turn_applies_and_commits_with_the_weak_models_message(root: Path) -> None:
    chat = session(root, [block('    return "hello"\n', '    return "goodbye"\n')])
    outcome = chat.turn("say goodbye")
    assert outcome.changed == ("hello.py",) and not outcome.failed
    assert "goodbye" in (root / "hello.py").read_text()
    assert git(root, "log", "--format=%s", "-1").strip() == "Say goodbye instead of hello"
    request = chat.model.requests[0]
    assert request.messages[0].content == get_format("diff").system_prompt
    assert HELLO in request.messages[-3].content  # the file, re-read from disk
    assert request.messages[-1].content == "say goodbye"


def test_failed_edits_are_reflected_back_and_fixed(root: Path) -> None:
    wrong = block('    return "hallo"\n', '    return "bye"\n')
    right = block('    return "hello"\n', '    return "bye"\n')
    chat = session(root, [wrong, right])
    outcome = chat.turn("say bye")
    assert not outcome.failed
    reflection = chat.model.requests[1].messages[-1].content
    assert "was not found in hello.py" in reflection
    assert 'return "hello"' in reflection  # the closest real lines
    assert "bye" in (root / "hello.py").read_text()


def test_reflections_stop_at_the_limit_and_unkept_edits_are_undone(root: Path) -> None:
    good = block('    return "hello"\n', '    return "hi"\n')
    bad = block("nothing like this\n", "x\n")
    chat = session(root, [good + bad, bad, bad], max_reflections=2)
    outcome = chat.turn("change it")
    assert outcome.failed and len(chat.model.requests) == 3
    assert (root / "hello.py").read_text() == HELLO  # not a terminal: not kept
    assert git(root, "log", "--format=%s").splitlines() == ["start"]


def test_kept_partial_edits_are_committed(root: Path) -> None:
    good = block('    return "hello"\n', '    return "hi"\n')
    bad = block("nothing like this\n", "x\n")
    chat = session(root, [good + bad, bad], max_reflections=1, yes=True)
    outcome = chat.turn("change it")
    assert outcome.failed and outcome.commits
    assert "hi" in (root / "hello.py").read_text()


def test_interrupted_reply_is_kept_in_history_and_nothing_applies(root: Path) -> None:
    partial = Completion(
        text=block('    return "hello"\n', '    return "x"\n')[:30], interrupted=True
    )
    chat = session(root, [partial])
    outcome = chat.turn("go")
    assert outcome.interrupted
    assert chat.history[-1].content == partial.text
    assert (root / "hello.py").read_text() == HELLO


def test_file_named_by_the_model_is_added_when_the_user_agrees(root: Path) -> None:
    (root / "other.py").write_text("X = 1\n")
    git(root, "add", "other.py")
    git(root, "commit", "-qm", "other")
    reply = block('    return "hello"\n', '    return "hey"\n') + block(
        "X = 1\n", "X = 2\n", "other.py"
    )
    chat = session(root, [reply], yes=True)
    outcome = chat.turn("both")
    assert outcome.changed == ("hello.py", "other.py")
    assert chat.files == ["hello.py", "other.py"]


def test_users_uncommitted_changes_are_committed_first(root: Path) -> None:
    (root / "hello.py").write_text("# mine\n" + HELLO)
    chat = session(root, [block('    return "hello"\n', '    return "hey"\n')])
    chat.turn("hey")
    subjects = git(root, "log", "--format=%s").splitlines()
    assert subjects[1] == "coder: save uncommitted changes to hello.py"


def test_function_format_sends_the_tool_and_reads_the_call(root: Path) -> None:
    edit = {
        "path": "hello.py",
        "original_lines": ['    return "hello"'],
        "updated_lines": ["    return 1"],
    }
    args = json.dumps({"explanation": "x", "edits": [edit]})
    reply = Completion(tool_calls=(ToolCall("replace_lines", args),), usage=Usage(10, 5, 0.001))
    chat = session(root, [reply], fmt="diff-func")
    chat.turn("return 1")
    assert chat.model.requests[0].tools[0]["function"]["name"] == "replace_lines"
    assert "return 1" in (root / "hello.py").read_text()
    assert chat.usage == Usage(10, 5, 0.001)


def test_dry_run_writes_nothing(root: Path) -> None:
    chat = session(root, [block('    return "hello"\n', '    return "x"\n')], dry_run=True)
    chat.turn("x")
    assert (root / "hello.py").read_text() == HELLO


def test_transcript_records_the_chat(root: Path) -> None:
    chat = session(root, [block('    return "hello"\n', '    return "x"\n')])
    chat.transcript = root / ".coder.chat.history.md"
    chat.turn("make it x")
    log = chat.transcript.read_text()
    assert "#### user\n\nmake it x" in log and "<<<<<<< SEARCH" in log


def test_a_reply_without_edits_changes_nothing_and_says_so(root: Path) -> None:
    chat = session(root, ["It already says hello; no change is needed."])
    outcome = chat.turn("make it say hello")
    assert outcome.changed == () and not outcome.failed
    assert "The reply has no diff edits: nothing changed." in chat.terminal.out.getvalue()
    assert (root / "hello.py").read_text() == HELLO


def test_a_reply_cut_off_at_the_length_limit_applies_nothing_and_says_so(root: Path) -> None:
    whole = block('    return "hello"\n', '    return "cut"\n')
    right = block('    return "hello"\n', '    return "ok"\n')
    chat = session(root, [Completion(text=whole, truncated=True), right])
    outcome = chat.turn("change it")
    assert outcome.applied and not outcome.failed
    reflection = chat.model.requests[1].messages[-1].content
    assert "length limit" in reflection and "none of its edits were applied" in reflection
    assert "cut off" in chat.terminal.out.getvalue()
    assert "ok" in (root / "hello.py").read_text() and "cut" not in (root / "hello.py").read_text()


@pytest.mark.parametrize("yes", [True, False])
def test_a_file_that_steers_coder_is_refused_in_the_chat(root: Path, yes: bool) -> None:
    reply = block("", "OPENAI_API_BASE=http://evil.example\n", path=".env")
    chat = session(root, [reply, "Fine, no change."], yes=yes, max_reflections=1)
    outcome = chat.turn("configure it")
    assert not (root / ".env").exists()
    assert not outcome.applied
    said = chat.terminal.out.getvalue()
    assert ("--yes never allows that" in said) if yes else ("Allow it? no" in said)
    assert "a reply may not write it" in chat.model.requests[1].messages[-1].content


def test_ctrl_c_after_an_edit_was_written_commits_it_first(root: Path) -> None:
    good = block('    return "hello"\n', '    return "hi"\n')
    bad = block("nothing like this\n", "x\n")
    chat = session(root, [good + bad, KeyboardInterrupt()])
    with pytest.raises(KeyboardInterrupt):
        chat.turn("change it")
    assert "hi" in (root / "hello.py").read_text()
    assert git(root, "status", "--porcelain") == ""
    assert "Interrupted: the edits already written are kept" in chat.terminal.out.getvalue()


def test_one_request_exit_statuses(root: Path) -> None:
    from coder import exits
    from coder.chat.startup import _one_request

    good = block('    return "hello"\n', '    return "hi"\n')
    bad = block("nothing like this\n", "x\n")
    chat = session(root, [good])
    assert _one_request(chat, "hi", chat.terminal) == exits.OK
    again = block('    return "hi"\n', '    return "hey"\n')
    chat = session(root, [again + bad, bad], yes=True, max_reflections=1)
    assert _one_request(chat, "partly", chat.terminal) == exits.PARTIAL
    chat = session(root, ["No edits here."])
    assert _one_request(chat, "nothing", chat.terminal) == exits.FAILED


def test_an_edit_that_changes_nothing_says_so(root: Path) -> None:
    same = block('    return "hello"\n', '    return "hello"\n')
    chat = session(root, [same])
    outcome = chat.turn("keep it")
    assert outcome.applied and outcome.changed == () and not outcome.commits
    assert "change nothing: every file is as it was" in chat.terminal.out.getvalue()
    assert (root / "hello.py").read_text() == HELLO


MAPPED = {
    "hello.py": "from greetings import polite_salutation\n\n\ndef greet():\n"
    "    return polite_salutation()\n",
    "greetings.py": "def polite_salutation():\n    return 'hello'\n\n\nclass FarewellBuilder:\n"
    "    pass\n",
    "maths.py": "def integrate_numerically(f):\n    return 0\n",
}


def mapped_session(tmp_path: Path, script, **config) -> Session:
    make_repo(tmp_path, MAPPED)
    return session(tmp_path, script, **config)


def test_each_request_carries_a_map_of_the_other_files_before_the_chat_files(
    tmp_path: Path,
) -> None:
    chat = mapped_session(tmp_path, ["No change is needed.", "Because."])
    chat.turn("make greet friendlier")
    chat.ask("why?")
    for request in chat.model.requests:
        texts = [m.content for m in request.messages]
        at = next(i for i, t in enumerate(texts) if t.startswith(prompt.MAP_INTRO))
        shown = texts[at]
        assert "def polite_salutation():" in shown and "class FarewellBuilder:" in shown
        assert "integrate_numerically" in shown and "def greet" not in shown
        files = next(i for i, t in enumerate(texts) if t.startswith(prompt.FILES_INTRO))
        assert 0 < at < files  # after the system prompt, before the chat's files
    assert (tmp_path / ".coder.tags.cache").is_file()


def test_no_map_and_no_parse_with_map_tokens_0(tmp_path: Path, monkeypatch) -> None:
    from coder.chat import session as session_module
    from coder.repomap import parsing

    monkeypatch.setattr(parsing, "extract", lambda path, text: pytest.fail("parsed"))
    monkeypatch.setattr(session_module, "get_repo_map", lambda *a, **k: pytest.fail("mapped"))
    chat = mapped_session(tmp_path, ["No change is needed."], map_tokens=0)
    chat.turn("make greet friendlier")
    sent = "\n".join(m.content for m in chat.model.requests[0].messages)
    assert "polite_salutation():" not in sent and "FarewellBuilder" not in sent
    assert prompt.MAP_INTRO not in sent
    assert not (tmp_path / ".coder.tags.cache").exists()


def test_the_map_follows_the_request_through_its_reflections(tmp_path: Path) -> None:
    bad = block("nothing like this\n", "x\n")
    chat = mapped_session(tmp_path, [bad, "No change is needed."], map_tokens=20)
    chat.turn("use integrate_numerically")
    maps = [
        next(m.content for m in r.messages if m.content.startswith(prompt.MAP_INTRO))
        for r in chat.model.requests
    ]
    assert len(maps) == 2 and maps[0] == maps[1]
    assert "integrate_numerically" in maps[0] and "FarewellBuilder" not in maps[0]


def test_a_map_git_cannot_list_is_left_out_and_the_request_goes_on(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self) -> list[str]:
        raise GitError("git ls-files failed: fatal: index file corrupt")

    monkeypatch.setattr(Repo, "files_tracked", broken)  # what the map lists the files with
    chat = session(root, [block('    return "hello"\n', '    return "goodbye"\n')])
    outcome = chat.turn("say goodbye")
    assert outcome.changed == ("hello.py",)
    assert "The repository map is left out of this request: git ls-files failed" in (
        chat.terminal.err.getvalue()
    )


@pytest.mark.parametrize("keep", [False, True])
def test_the_last_line_after_the_last_retry_says_how_the_request_ended(
    root: Path, keep: bool
) -> None:
    """Issue 33, item 4: the screen does not end on the feedback written for the model."""
    missing = block("    return 'nowhere'\n", "    return 'x'\n")
    if keep:
        good = block('    return "hello"\n', '    return "goodbye"\n')
        first = good + "\n" + missing
    else:
        first = missing
    chat = session(root, [first, missing, missing], yes=keep, max_reflections=2)
    outcome = chat.turn("change it")
    assert outcome.failed
    said = chat.terminal.out.getvalue().rstrip().splitlines()[-1]
    if keep:
        assert (
            said == "coder gave up after 3 replies: some edits still fail; changed files: hello.py."
        )
        assert "goodbye" in (root / "hello.py").read_text()
    else:
        assert said == "coder gave up after 3 replies: the edits still fail, and no file changed."
        assert (root / "hello.py").read_text() == HELLO
