"""Choosing among candidates by the rules: tests as a hard filter, refinement of failing
candidates, agreement before the selector, one row per distinct change, concurrent testing,
and the opt-in plan and diverse prompts; with scripted models in real repositories."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from coder.chat.commit_message import COMMIT_PROMPT
from coder.seams.model import Completion, Request, ScriptedModel
from coder.trust.selection import generation, refine

from ..fake_openai import FakeOpenAI, Text
from ..gitrepo import git, make_repo
from ..seams.test_tool_protocol import START, chat, no_imitations, reply
from .test_candidates import (
    RIGHT,
    RIGHT_COMMENTED,
    TESTS,
    WRONG,
    RoutedModel,
    _labels_for,
    choose,
    edit,
    session,
)

PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider"
MINUS = edit("    return w - h\n")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_repo(tmp_path, {"shapes.py": START})


def with_tests(root: Path) -> None:
    (root / "test_shapes.py").write_text(TESTS)
    git(root, "add", ".")
    git(root, "commit", "-qm", "tests")


def test_tests_are_a_hard_filter_the_selector_cannot_overrule(root: Path) -> None:
    with_tests(root)
    model = RoutedModel([WRONG, RIGHT, MINUS], [])
    labels = _labels_for(root, model, "area")
    # A selector that would argue for a failing candidate is never asked.
    model.selector = ScriptedModel([choose(labels[WRONG])] * 2)
    chat, out = session(root, model, test_cmd=PYTEST)
    chat.turn("area")
    made = chat.selection
    assert made.choice.rule == "tests" and made.chosen.label == labels[RIGHT]
    assert model.selector.requests == []
    assert "w * h" in (root / "shapes.py").read_text()
    assert "(tests): Chosen by the tests: the only candidate that passes the tests." in (
        out.getvalue()
    )


def test_the_selector_sees_only_the_candidates_that_pass(root: Path) -> None:
    with_tests(root)
    also_right = edit("    return h * w\n")
    model = RoutedModel([WRONG, RIGHT, also_right], [])
    labels = _labels_for(root, model, "area")
    model.selector = ScriptedModel([choose(labels[also_right])])
    chat, _ = session(root, model, test_cmd=PYTEST)
    chat.turn("area")
    (asked,) = model.selector.requests
    enum = asked.tools[0]["function"]["parameters"]["properties"]["selected"]["enum"]
    assert sorted(enum) == sorted([labels[RIGHT], labels[also_right]])
    assert chat.selection.choice.rule == "selector"
    assert "h * w" in (root / "shapes.py").read_text()


class RefiningModel(RoutedModel):
    """The first round by seed; a refinement request is answered by the fix for the reply it
    corrects (found by a text of that reply)."""

    def __init__(self, by_seed: list, fixes: dict[str, str]):
        super().__init__(by_seed, [])
        self.fixes = fixes
        self.refinements: list[Request] = []

    def complete(self, request: Request, on_text=None) -> Completion:
        if "the tests pass" in request.messages[-1].content:
            with self.lock:
                self.refinements.append(request)
            corrected = request.messages[-2].content
            return Completion(next(f for key, f in self.fixes.items() if key in corrected))
        return super().complete(request, on_text)


def test_when_every_candidate_fails_a_refinement_fixes_one(root: Path) -> None:
    with_tests(root)
    # Each fix applies on top of the candidate it corrects, not on the original file.
    fixed = edit("    return w * h\n", old="    return w + h\n")
    still_wrong = edit("    return h - w\n", old="    return w - h\n")
    model = RefiningModel([WRONG, MINUS], {"w + h": fixed, "w - h": still_wrong})
    chat, out = session(root, model, test_cmd=PYTEST)
    outcome = chat.turn("area")
    made = chat.selection
    assert outcome.changed == ("shapes.py",)
    assert (root / "shapes.py").read_text() == "def area(w, h):\n    return w * h\n"
    assert made.choice.rule == "tests" and made.chosen.refines == 0
    assert len(model.refinements) == 2
    asked = next(r for r in model.refinements if "w + h" in r.messages[-2].content)
    assert asked.messages[-2].role == "assistant"
    feedback = asked.messages[-1].content
    assert "failed" in feedback and "test_shapes.py" in feedback and "assert" in feedback
    assert "2 refined after failing the tests" in out.getvalue()
    # The history holds the exchange that led to the applied reply.
    roles = [m.role for m in chat.history[:4]]
    assert roles == ["user", "assistant", "user", "assistant"]
    assert "w + h" in chat.history[1].content and chat.history[3].content == fixed


def test_refinement_can_be_turned_off(root: Path) -> None:
    with_tests(root)
    model = RefiningModel([WRONG, MINUS], {})
    chat, _ = session(root, model, test_cmd=PYTEST, refine=0)
    chat.turn("area")
    assert model.refinements == [] and chat.selection.choice is not None


def test_with_no_candidate_passing_the_fewest_failures_are_preferred(root: Path) -> None:
    with_tests(root)
    # w + h passes area(2, 2) == 4 by luck: one failure; w - h fails both.
    model = RoutedModel([MINUS, WRONG], [])
    chat, _ = session(root, model, test_cmd=PYTEST, refine=0)
    chat.turn("area")
    made = chat.selection
    assert made.choice.rule == "tests" and made.chosen.tests.failing == 1
    assert "w + h" in (root / "shapes.py").read_text()


def test_identical_candidates_are_one_row_with_their_count_and_no_selector(root: Path) -> None:
    model = RoutedModel([RIGHT, RIGHT_COMMENTED, RIGHT], [])
    chat, out = session(root, model)
    chat.turn("area")
    shown = out.getvalue()
    rows = [line.split() for line in shown.splitlines() if line[:3] in ("A  ", "B  ")]
    assert len(rows) == 1 and rows[0][:2] == ["A", "3"]
    assert "0, 0.4, 1" in shown
    assert model.selector.requests == [] and "selector" not in shown
    assert "Chose A (agreement): All 3 valid candidates made the same change." in shown


def test_candidates_are_tested_at_the_same_time_each_in_its_copy(
    root: Path, tmp_path: Path
) -> None:
    log = tmp_path / "log"
    log.mkdir()
    stamp = tmp_path / "stamp.py"
    stamp.write_text(
        "import os, sys, time\n"
        "began = time.time()\n"
        "time.sleep(2)\n"
        "open(os.path.join(sys.argv[1], str(os.getpid())), 'w').write(f'{began} {time.time()}')\n"
        "sys.exit(0 if 'w * h\\n' in open('shapes.py').read() else 1)\n"
    )
    other = edit("    return w * h * 1\n")
    model = RoutedModel([WRONG, RIGHT, other], [])
    chat, _ = session(root, model, test_cmd=f"{sys.executable} {stamp} {log}")
    chat.turn("area")
    spans = [tuple(map(float, f.read_text().split())) for f in log.iterdir()]
    assert len(spans) == 4  # the unedited code and three candidates
    assert max(b for b, _ in spans) < min(e for _, e in spans)  # all ran at once
    assert chat.selection.choice.rule == "tests"
    assert not list(root.glob("*.xml"))


def test_plan_asks_for_a_plan_then_the_edit_after_it(root: Path) -> None:
    class Planner(RoutedModel):
        def complete(self, request: Request, on_text=None) -> Completion:
            if request.messages[-1].content.endswith(generation.PLAN):
                return Completion(f"1. multiply (plan {request.seed})")
            return super().complete(request, on_text)

    model = Planner([RIGHT, RIGHT], [])
    chat, out = session(root, model, plan=True)
    chat.turn("area")
    for request in model.requests:
        *_, planned, plan, after = request.messages
        assert planned.content.endswith(generation.PLAN)
        assert plan.role == "assistant" and plan.content == f"1. multiply (plan {request.seed})"
        assert after.content == generation.AFTER_PLAN
    assert chat.history[1].content == "1. multiply (plan None)"
    assert "plan" in out.getvalue()


def test_diverse_asks_each_later_candidate_from_its_own_angle(root: Path) -> None:
    model = RoutedModel([RIGHT, WRONG, MINUS], ["?", "?"])
    chat, out = session(root, model, diverse=True)
    chat.turn("area")
    by_seed = {r.seed: r.messages[-1].content for r in model.requests}
    assert by_seed[None].endswith("area")
    hints = [hint for _, hint in generation.ANGLES]
    assert by_seed[1].endswith(hints[0]) and by_seed[2].endswith(hints[1])
    assert generation.ANGLES[0][0] in out.getvalue()


def test_a_refinement_in_a_function_format_obeys_the_api(root: Path, route: str) -> None:
    with_tests(root)
    wrong = reply("diff-func", START, "def area(w, h):\n    return w + h\n")
    minus = reply("diff-func", START, "def area(w, h):\n    return w - h\n")
    fix = reply(
        "diff-func",
        "def area(w, h):\n    return w + h\n",
        "def area(w, h):\n    return w * h\n",
    )
    still = reply(
        "diff-func",
        "def area(w, h):\n    return w - h\n",
        "def area(w, h):\n    return h - w\n",
    )

    def respond(body: dict):
        messages = body["messages"]
        if messages[0]["content"] == COMMIT_PROMPT:
            return Text("Compute the area")
        if "the tests pass" in (messages[-1]["content"] or ""):
            calls = json.dumps([m.get("tool_calls") for m in messages if m["role"] == "assistant"])
            return fix if "w + h" in calls else still
        return wrong if body.get("temperature", 0) == 0 else minus

    with FakeOpenAI(respond) as server:
        chosen = chat(root, server, "diff-func", route, candidates=2, test_cmd=PYTEST)
        outcome = chosen.turn("area")
    no_imitations(server)
    assert outcome.applied and "w * h" in (root / "shapes.py").read_text()
    refinements = [b for b in server.requests if "the tests pass" in str(b["messages"][-1])]
    assert len(refinements) == 2
    roles = [m["role"] for m in refinements[0]["messages"]]
    assert roles[-3:] == ["assistant", "tool", "user"]


@pytest.mark.parametrize("failing", [0, 1, 2, 5])
def test_refinement_picks_the_closest_failing_candidates(failing: int) -> None:
    from coder.trust.selection.candidates import Candidate, TestEvidence

    groups = [
        Candidate(i, 0.0, None, tests=TestEvidence(False, failing=n))
        for i, n in enumerate([3, failing, 9, 1])
    ]
    chosen = refine.chosen_to_refine(groups, refined={3})
    assert [c.index for c in chosen] == sorted([0, 1, 2], key=lambda i: ([3, failing, 9])[i])


def test_a_candidate_that_breaks_collection_is_not_the_closest(root: Path) -> None:
    with_tests(root)
    renamed = edit("    return 0\n", old="def area(w, h):\n    return 0\n")
    renamed = renamed.replace(
        "=======\n    return 0\n", "=======\ndef surface(w, h):\n    return 0\n"
    )
    model = RoutedModel([MINUS, renamed], [])
    chat, _ = session(root, model, test_cmd=PYTEST, refine=0)
    chat.turn("area")
    made = chat.selection
    # w - h fails both tests; the rename fails to import them at all: worse.
    assert "w - h" in (root / "shapes.py").read_text() and made.choice.rule == "tests"
    broken = next(c for c in made.distinct if c.label != made.choice.label)
    assert broken.tests.failing >= 3


def test_a_refinement_that_adds_nothing_is_invalid_and_no_vote(root: Path) -> None:
    with_tests(root)
    model = RefiningModel([WRONG, MINUS], {"w + h": "I cannot see a fix.", "w - h": "Nor I."})
    chat, _ = session(root, model, test_cmd=PYTEST)
    chat.turn("area")
    made = chat.selection
    refined = [c for c in made.candidates if c.refines is not None]
    assert len(refined) == 2 and not any(c.valid for c in refined)
    assert all("changes nothing over the candidate it corrects" in c.problem for c in refined)
    assert sorted(c.votes for c in made.distinct) == [1, 1]


def test_ctrl_c_stops_every_test_run_at_once(tmp_path: Path, ctrl_c) -> None:
    import os
    import signal
    import threading
    import time

    from coder.trust.selection import testing

    (tmp_path / "a.txt").write_text("a\n")
    setup = testing.TestSetup("sleep 30", ("a.txt",))
    threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
    began = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        testing.run_all(tmp_path, setup, [{}, {"a.txt": "b\n"}])
    assert time.monotonic() - began < 10  # not the 30 s of the tests


@pytest.mark.parametrize("together", [True, False], ids=["candidates", "one-run"])
def test_ctrl_c_during_test_runs_ends_everything_they_started(
    tmp_path: Path, together, ctrl_c
) -> None:
    """The test command runs in a session of its own, which the terminal's Ctrl-C does not
    reach: whether the runs go together (candidates) or one alone (/rtc's tests, say), Ctrl-C
    kills every process they started."""
    import os
    import signal
    import threading
    import time

    from coder.trust.selection import testing

    (tmp_path / "a.txt").write_text("a\n")
    marker = tmp_path / "alive"
    setup = testing.TestSetup(f"(sleep 3; touch {marker}) & sleep 30", ("a.txt",))
    threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT)).start()
    with pytest.raises(KeyboardInterrupt):
        if together:
            testing.run_all(tmp_path, setup, [{}, {"a.txt": "b\n"}])
        else:
            testing.run_in_copy(tmp_path, setup, {})
    time.sleep(4)
    assert not marker.exists()  # the background child was killed with the command
