"""Multi-turn conversations in every edit format, over both routes (through litellm and
straight over HTTP), against a fake server that rejects what OpenAI's API rejects
(openai_rules): a failed edit then a fixed one, three chat turns, a question after function
calls, candidates with the selector, and the benchmark's retry. No request may be rejected."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from benchmark import cli as benchmark_cli
from benchmark.oracle import reply_for
from coder.chat.commit_message import COMMIT_PROMPT
from coder.chat.session import Session, SessionConfig
from coder.edits.workspace import Workspace
from coder.prompt import FILES_INTRO
from coder.seams.llm import DirectModel, LiteLLMModel, ModelSettings
from coder.seams.model import Message, Request
from coder.seams.repo import Repo
from coder.terminal import Terminal
from editformats import FORMATS, get_format
from exercism import discover

from .. import openai_rules
from ..fake_openai import Calls, FakeOpenAI, Text
from ..gitrepo import make_repo

PRACTICE = Path(__file__).resolve().parents[4] / "shared" / "exercism-python" / "practice"
START = "def area(w, h):\n    return 0\n"
IMITATION = re.compile(r"\b(write_file|replace_lines|select_candidate)\s*\(\s*\{")
"""Text that looks like a function call but is not one."""


ROUTES = {"litellm": LiteLLMModel, "direct": DirectModel}


def model(server: FakeOpenAI, route: str = "direct") -> LiteLLMModel | DirectModel:
    settings = ModelSettings(
        "openai/test-model", api_base=server.base_url, api_key="sk-test", timeout=20, retries=0
    )
    return ROUTES[route](settings)


def reply(fmt: str, old: str, new: str, path: str = "shapes.py"):
    """A step of the fake server's script: a reply in fmt changing old into new."""
    completion = reply_for(fmt, {path: old}, {path: new})
    if completion.tool_calls:
        return Calls(tuple((c.name, c.arguments) for c in completion.tool_calls))
    return Text(completion.text)


def commits_answered(script):
    """A responder: commit-message requests get a line, every other request the next step."""
    steps = list(script)

    def respond(body: dict):
        if body["messages"][0]["content"] == COMMIT_PROMPT:
            return Text("Change the area")
        assert steps, "the fake server got an unexpected request"
        return steps.pop(0)

    return respond


def chat(root: Path, server: FakeOpenAI, fmt: str, route: str = "direct", **config) -> Session:
    out = io.StringIO()
    return Session(
        model=model(server, route),
        fmt=get_format(fmt),
        ws=Workspace(root),
        repo=Repo.find(root),
        terminal=Terminal(out=out, err=out, yes=True),
        config=SessionConfig(**config),
        files=["shapes.py"],
    )


def no_imitations(server: FakeOpenAI) -> None:
    """No request carried a text imitation of a function call, nor was rejected."""
    assert server.rejected == []
    for body in server.requests:
        for message in body["messages"]:
            if message["role"] == "assistant":
                assert not IMITATION.search(message.get("content") or ""), message


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_repo(tmp_path, {"shapes.py": START})


@pytest.mark.parametrize("fmt", ["whole-func", "diff-func"])
def test_a_failed_function_call_edit_is_fixed_by_the_next_reply(
    root: Path, fmt: str, route: str
) -> None:
    bad = json.dumps(
        {"explanation": "x", "edits": [{"path": "shapes.py", "original_lines": ["nope"]}]}
        if fmt == "diff-func"
        else {"explanation": "x", "files": [{"content": "no path\n"}]}
    )
    name = get_format(fmt).tool["function"]["name"]
    right = reply(fmt, START, "def area(w, h):\n    return w * h\n")
    with FakeOpenAI(commits_answered([Calls(((name, bad),)), right])) as server:
        outcome = chat(root, server, fmt, route).turn("compute the area")
    assert outcome.applied and not outcome.failed
    assert "w * h" in (root / "shapes.py").read_text()
    no_imitations(server)
    second = server.requests[1]["messages"]
    *_, call = [m for m in second if m["role"] == "assistant" and m.get("tool_calls")]
    (answer,) = [m for m in second if m["role"] == "tool" and m["tool_call_id"] != "call_example_1"]
    assert answer["tool_call_id"] == call["tool_calls"][0]["id"] == "call_1_0"
    assert second.index(answer) == second.index(call) + 1
    assert "lacks the required field" in answer["content"]
    assert second[-1]["role"] == "user" and "Call " + name in second[-1]["content"]


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_three_chat_turns_and_a_question(root: Path, fmt: str, route: str) -> None:
    texts = [START, "def area(w, h):\n    return w * h\n"]
    texts += [
        "def area(w, h):\n    return w * h  # rectangle\n",
        "def area(w, h):\n    return h * w\n",
    ]
    script = [reply(fmt, texts[n], texts[n + 1]) for n in range(3)] + [Text("It multiplies.")]
    with FakeOpenAI(commits_answered(script)) as server:
        session = chat(root, server, fmt, route)
        for n in range(3):
            assert session.turn(f"change {n}").applied
        session.ask("what does area do?")
    assert (root / "shapes.py").read_text() == texts[3]
    no_imitations(server)
    asked = server.requests[-1]
    if get_format(fmt).tool:
        assert asked["tool_choice"] == "none"
        assert sum(1 for m in asked["messages"] if m["role"] == "tool") >= 3


def test_a_broken_reply_is_answered_then_fixed_in_text_formats(root: Path, route: str) -> None:
    bad = Text("shapes.py\n```\n<<<<<<< SEARCH\nnope\n=======\nx\n>>>>>>> REPLACE\n```\n")
    right = reply("diff", START, "def area(w, h):\n    return w * h\n")
    with FakeOpenAI(commits_answered([bad, right])) as server:
        assert chat(root, server, "diff", route).turn("area").applied
    no_imitations(server)
    assert "was not found in shapes.py" in server.requests[1]["messages"][-1]["content"]


def test_examples_in_function_formats_are_real_calls_with_answers() -> None:
    from coder import prompt

    for fmt in ("whole-func", "diff-func", "patch-func"):
        messages = prompt.build(get_format(fmt), {"a.py": "x\n"}, {}, [], "go")
        body = {
            "model": "m",
            "messages": [m.to_dict() for m in messages],
            "tools": [get_format(fmt).tool],
        }
        openai_rules.check(body)
        calls = [m for m in messages if m.tool_calls]
        assert len(calls) == 1 and calls[0].content == ""
        answer = messages[messages.index(calls[0]) + 1]
        assert answer.role == "tool" and answer.tool_call_id == calls[0].tool_calls[0].id


def test_candidates_and_a_selector_that_needs_a_second_try(root: Path, route: str) -> None:
    wrong = reply("diff-func", START, "def area(w, h):\n    return w + h\n")
    right = reply("diff-func", START, "def area(w, h):\n    return w * h\n")
    select = '{"reasoning": "%s", "selected": "%s", "confidence": 0.9}'

    def respond(body: dict):
        system = body["messages"][0]["content"]
        if system == COMMIT_PROMPT:
            return Text("Compute the area")
        if "select_candidate" in json.dumps(body.get("tools", [])):
            labels = body["tools"][0]["function"]["parameters"]["properties"]["selected"]["enum"]
            retry = body["messages"][-1]["content"].startswith("That answer could not be used")
            label = labels[0] if retry else "Z"
            return Calls((("select_candidate", select % ("multiplies", label)),))
        return right if body.get("temperature", 0) == 0 else wrong

    with FakeOpenAI(respond) as server:
        session = chat(root, server, "diff-func", route, candidates=2)
        outcome = session.turn("compute the area")
    assert outcome.applied
    no_imitations(server)
    assert session.selection.choice.fallback is None
    retried = [b for b in server.requests if "select_candidate" in json.dumps(b.get("tools", []))]
    assert len(retried) == 2
    kinds = [m["role"] for m in retried[1]["messages"]]
    assert kinds == ["system", "user", "assistant", "tool", "user"]


def test_a_request_breaking_the_rules_is_an_error_with_the_apis_reason(route: str) -> None:
    from coder.errors import ModelError
    from editformats import ToolCall

    with FakeOpenAI([]) as server:
        call = ToolCall("write_file", "{}", "call_1")
        unanswered = (
            Message("user", "go"),
            Message("assistant", "", (call,)),
            Message("user", "?"),
        )
        with pytest.raises(ModelError, match="must be followed by tool messages"):
            model(server, route).complete(Request(unanswered))
    assert server.rejected[0]["error"]["type"] == "invalid_request_error"


@pytest.mark.skipif(not PRACTICE.is_dir(), reason=f"{PRACTICE} is not there")
@pytest.mark.parametrize("fmt", ["diff-func", "whole-func", "patch-func"])
def test_the_benchmark_retry_against_the_rules(tmp_path: Path, fmt: str) -> None:
    """The wrong-then-right oracle, served over HTTP: 0% after try 1, 100% after try 2."""
    exercises = discover(PRACTICE, limit=3)
    solutions = {}
    for exercise in exercises:
        solutions.update(exercise.example_solution())

    def respond(body: dict):
        shown = _files_shown(body["messages"])
        retry = "See the testing errors above" in body["messages"][-1]["content"]
        wanted = (
            {p: solutions[p] for p in shown}
            if retry
            else {
                p: t + 'raise NotImplementedError("a wrong first attempt")\n'
                for p, t in shown.items()
            }
        )
        completion = reply_for(fmt, shown, wanted)
        return Calls(tuple((c.name, c.arguments) for c in completion.tool_calls))

    runs = tmp_path / "runs"
    with FakeOpenAI(respond) as server:
        status = benchmark_cli.main(
            [
                "--model", "openai/oracle-over-http", "--api-base", server.base_url,
                "--edit-format", fmt, "--num-tests", "3", "--exercises-dir", str(PRACTICE),
                "--runs-dir", str(runs), "--quiet",
            ]
        )  # fmt: skip
    assert status == 0
    no_imitations(server)
    (summary_path,) = runs.glob("*/summary.json")
    summary = json.loads(summary_path.read_text())
    assert summary["errors"] == 0
    assert summary["pass_rate_1"] == 0.0 and summary["pass_rate_2"] == 100.0


def _files_shown(messages: list[dict]) -> dict[str, str]:
    """The chat files as the request shows them (the last files message)."""
    intro = next(
        m["content"] for m in reversed(messages) if str(m.get("content")).startswith(FILES_INTRO)
    )
    found = {}
    for match in re.finditer(r"(?m)^(\S+\.py)\n(`{3,})\n(.*?)^\2$", intro, re.DOTALL):
        found[match.group(1)] = match.group(3)
    return found


def test_history_is_trimmed_only_between_turns() -> None:
    from coder.prompt import recent
    from editformats import ToolCall

    call = ToolCall("write_file", "{}", "call_9")
    history = [
        Message("user", "x" * 100),
        Message("assistant", "", (call,)),
        Message("tool", "Applied." + "y" * 100, tool_call_id="call_9"),
        Message("user", "fix it"),
        Message("assistant", "done"),
        Message("user", "z" * 50),
        Message("assistant", "ok"),
    ]
    for budget in range(0, 400, 7):
        kept = recent(history, budget)
        assert kept and kept[0].role == "user"
        roles = [m.role for m in kept]
        for i, m in enumerate(kept):
            if m.tool_calls:
                assert roles[i + 1] == "tool"
    assert recent(history, 1000) == history
    assert recent(history, 60) == history[-2:]


@pytest.mark.skipif(not PRACTICE.is_dir(), reason=f"{PRACTICE} is not there")
def test_a_rejected_request_is_an_error_counted_against_the_pass_rate(tmp_path: Path) -> None:
    from ..fake_openai import Status

    runs = tmp_path / "runs"
    with FakeOpenAI(lambda body: Status(400, "Invalid value: 'whatever'.")) as server:
        args = ["--model", "openai/m", "--api-base", server.base_url, "--num-tests", "2"]
        args += ["--exercises-dir", str(PRACTICE), "--runs-dir", str(runs), "--quiet"]
        assert benchmark_cli.main(args) == 0
    (summary_path,) = runs.glob("*/summary.json")
    summary = json.loads(summary_path.read_text())
    assert summary["errors"] == 2 and summary["completed"] == 0
    assert summary["pass_rate_1"] == 0.0 and summary["pass_rate_2"] == 0.0
    (result, _) = sorted(runs.glob("*/results/*.json"))
    assert "Invalid value" in json.loads(result.read_text())["error"]
