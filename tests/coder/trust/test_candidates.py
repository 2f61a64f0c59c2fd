"""Candidates and the selector, with scripted models, in real repositories in tmp_path."""

from __future__ import annotations

import io
import json
import threading
from pathlib import Path

import pytest

from coder.chat import commands
from coder.chat.config import Config
from coder.chat.pick import pick
from coder.chat.session import Session, SessionConfig
from coder.cli import main
from coder.edits.workspace import Workspace
from coder.errors import CoderError, ModelError, UsageError
from coder.seams.model import Completion, Request, ScriptedModel
from coder.seams.repo import Repo
from coder.terminal import Terminal
from coder.trust.selection import candidates as cands
from coder.trust.selection import generation, selector
from editformats import ToolCall, get_format

from ..gitrepo import git, make_repo

CODE = "def area(w, h):\n    return 0\n"


def edit(new: str, old: str = "    return 0\n", path: str = "shapes.py") -> str:
    return f"{path}\n```python\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"


RIGHT = edit("    return w * h\n")
RIGHT_COMMENTED = edit("    # the area\n    return w*h\n")
WRONG = edit("    return w + h\n")


class RoutedModel:
    """The first round of requests are the candidates, answered by seed (None is candidate 0);
    selector requests, recognised by their tool, take the selector script; any later request
    (a reflection) takes the `later` script. Thread-safe, as the calls come in parallel."""

    name = "routed"

    def __init__(self, by_seed: list, selector_script: list | None = None, later=()):
        self.by_seed = by_seed
        self.selector = ScriptedModel(selector_script or [])
        self.later = ScriptedModel(later)
        self.requests: list[Request] = []
        self.lock = threading.Lock()

    def complete(self, request: Request, on_text=None) -> Completion:
        if request.tools and request.tools[0]["function"]["name"] == "select_candidate":
            return self.selector.complete(request)
        with self.lock:
            self.requests.append(request)
            first_round = len(self.requests) <= len(self.by_seed)
        if not first_round:
            return self.later.complete(request, on_text)
        entry = self.by_seed[request.seed or 0]
        if isinstance(entry, BaseException):
            raise entry
        return Completion(entry)


def choose(label: str) -> Completion:
    arguments = json.dumps({"reasoning": "It multiplies.", "selected": label, "confidence": 0.9})
    return Completion(tool_calls=(ToolCall("select_candidate", arguments),))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_repo(tmp_path, {"shapes.py": CODE})


def session(root: Path, model, **config) -> tuple[Session, io.StringIO]:
    out = io.StringIO()
    chat = Session(
        model=model,
        fmt=get_format("diff"),
        ws=Workspace(root),
        repo=Repo.find(root),
        terminal=Terminal(out=out, err=out, yes=True),
        config=SessionConfig(candidates=len(model.by_seed), **config),
        weak_model=ScriptedModel(["Compute the area"] * 3),
        files=["shapes.py"],
    )
    return chat, out


def label_of(chat: Session, reply: str) -> str:
    return next(c.label for c in chat.selection.candidates if c.completion.text == reply)


def test_temperatures_start_at_zero_and_spread() -> None:
    assert generation.temperatures(1) == [0.0]
    assert generation.temperatures(2) == [0.0, 0.7]
    assert generation.temperatures(5) == [0.0, 0.4, 0.6, 0.8, 1.0]


def test_candidates_are_independent_calls_with_spread_temperatures_and_seeds(root: Path) -> None:
    model = RoutedModel([RIGHT, WRONG, RIGHT], ["?", "?"])
    chat, _ = session(root, model)
    chat.turn("compute the area")
    asked = sorted((r.temperature, r.seed) for r in model.requests)
    assert asked == [(0.0, None), (0.4, 1), (1.0, 2)]
    assert len({r.messages for r in model.requests}) == 1


def test_the_selector_chooses_and_the_choice_is_applied_and_committed(root: Path) -> None:
    model = RoutedModel([WRONG, RIGHT], [])
    chat, out = session(root, model)
    # Labels are shuffled by the request, so find the right one's label before scripting.
    labels = _labels_for(root, model, "compute the area")
    model.selector = ScriptedModel([choose(labels[RIGHT])])
    outcome = chat.turn("compute the area")
    assert outcome.changed == ("shapes.py",)
    assert "w * h" in (root / "shapes.py").read_text()
    assert git(root, "log", "--format=%s", "-1").strip() == "Compute the area"
    made = chat.selection
    assert made.choice.label == labels[RIGHT] and made.choice.rule == "selector"
    shown = out.getvalue()
    assert "2 of 2 candidates answered" in shown and "selector, confidence 0.90" in shown
    assert "It multiplies." in shown and "/pick" in shown
    prompt = model.selector.requests[0].messages[-1].content
    assert "compute the area" in prompt and "Votes: 1 of 2" in prompt
    assert "def area(w, h):" in prompt  # the code around the change


def test_a_clear_majority_chooses_without_the_selector(root: Path) -> None:
    model = RoutedModel([WRONG, RIGHT, RIGHT_COMMENTED], [])
    chat, out = session(root, model)
    chat.turn("compute the area")
    made = chat.selection
    assert len(made.distinct) == 2  # RIGHT and RIGHT_COMMENTED are one change by syntax tree
    assert made.chosen.votes == 2 and made.choice.rule == "agreement"
    assert model.selector.requests == []
    assert "w * h" in (root / "shapes.py").read_text()
    assert "(agreement): 2 of the 3 candidates that are valid made this change." in out.getvalue()


def _labels_for(root: Path, model: RoutedModel, request_text: str) -> dict[str, str]:
    """The labels the distinct candidates of model.by_seed get for request_text."""
    fmt = get_format("diff")
    answers = [(cands.Candidate(i, 0.0, None), Completion(t)) for i, t in enumerate(model.by_seed)]
    everyone = cands.validate(fmt, answers, Workspace(root), ["shapes.py"], [])
    _, everyone = cands.label(everyone, cands.group(everyone), request_text)
    return {c.completion.text: c.label for c in everyone if c.label}


def test_an_invalid_label_gets_one_retry(root: Path) -> None:
    model = RoutedModel([WRONG, RIGHT], [])
    labels = _labels_for(root, model, "area")
    model.selector = ScriptedModel([choose("Z"), choose(labels[RIGHT])])
    chat, _ = session(root, model)
    chat.turn("area")
    assert chat.selection.choice.label == labels[RIGHT] and chat.selection.choice.fallback is None
    retry = model.selector.requests[1].messages[-1].content
    assert "'Z' is not one of the labels" in retry


def test_unparseable_selector_output_twice_falls_back_to_the_temperature_zero_candidate(
    root: Path,
) -> None:
    model = RoutedModel([WRONG, RIGHT], ["I like them both.", "Still both!"])
    chat, out = session(root, model)
    chat.turn("area")
    choice = chat.selection.choice
    assert choice.fallback and "invalid twice" in choice.fallback
    assert chat.selection.chosen.index == 0  # equal votes, no tests: temperature 0 wins
    assert "w + h" in (root / "shapes.py").read_text()
    assert "fallback: the selector's answer was invalid twice" in out.getvalue()


def test_the_fallback_prefers_the_lowest_temperature_when_votes_are_equal(root: Path) -> None:
    other = edit("    return w * h * 1\n")
    model = RoutedModel([WRONG, RIGHT, other], ["no", "no"])
    chat, _ = session(root, model)
    chat.turn("area")
    assert chat.selection.choice.rule == "fallback" and chat.selection.chosen.index == 0


def test_a_json_answer_in_text_is_accepted() -> None:
    answer = Completion('Thinking...\n{"reasoning": "r", "selected": "Candidate b", "x": 1}')
    assert selector.parse_answer(answer, ["A", "B"]) == ("B", "r", None)
    with pytest.raises(ValueError, match="no select_candidate call"):
        selector.parse_answer(Completion("B"), ["A", "B"])


def test_a_selector_request_that_fails_is_an_error_not_a_fallback(root: Path) -> None:
    model = RoutedModel([WRONG, RIGHT], [ModelError("rate limited")])
    chat, _ = session(root, model)
    before = (root / "shapes.py").read_text()
    with pytest.raises(ModelError, match="rate limited"):
        chat.turn("area")
    assert (root / "shapes.py").read_text() == before


def test_identical_candidates_need_no_selector(root: Path) -> None:
    model = RoutedModel([RIGHT, RIGHT_COMMENTED, RIGHT], [])
    chat, _ = session(root, model)
    chat.turn("area")
    made = chat.selection
    assert len(made.distinct) == 1 and made.distinct[0].votes == 3
    assert "same change" in made.choice.reasoning
    assert model.selector.requests == []
    assert "w * h" in (root / "shapes.py").read_text()


def test_when_all_candidates_are_invalid_the_usual_reflection_follows(root: Path) -> None:
    missing = edit("    return 1\n", old="    return 42\n")
    broken = edit("    return (w\n")
    model = RoutedModel([missing, broken, "I would rather not."], [], later=[RIGHT])
    chat, out = session(root, model)
    outcome = chat.turn("area")
    made = chat.selection
    assert made.choice is None and made.distinct == ()
    problems = [c.problem for c in made.candidates]
    assert problems[0].startswith("an edit failed")
    assert problems[1] == "shapes.py no longer compiles: SyntaxError on line 2"
    assert problems[2] == "changes nothing"
    assert "No candidate is valid." in out.getvalue()
    assert outcome.changed == ("shapes.py",) and "w * h" in (root / "shapes.py").read_text()
    reflection = model.later.requests[0].messages
    assert "return 42" in reflection[-2].content  # the temperature-0 reply, then its failure
    assert "was not found in shapes.py" in reflection[-1].content


def test_fewer_answers_than_asked_still_choose(root: Path) -> None:
    model = RoutedModel([ModelError("timeout"), RIGHT, ModelError("500")], [])
    chat, out = session(root, model)
    chat.turn("area")
    made = chat.selection
    assert [c.valid for c in made.candidates] == [False, True, False]
    assert made.chosen.index == 1 and "1 of 3 candidates answered" in out.getvalue()


def test_every_call_failing_raises_the_models_error(root: Path) -> None:
    model = RoutedModel([ModelError("bad key"), ModelError("bad key")], [])
    chat, _ = session(root, model)
    with pytest.raises(ModelError, match="bad key"):
        chat.turn("area")
    assert (root / "shapes.py").read_text() == CODE


def test_edits_outside_the_chat_are_invalid(root: Path) -> None:
    (root / "other.py").write_text("X = 1\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "other")
    sneaky = edit("X = 2\n", old="X = 1\n", path="other.py")
    model = RoutedModel([sneaky, RIGHT], [])
    chat, _ = session(root, model)
    chat.turn("area")
    assert not chat.selection.candidates[0].valid
    assert (root / "other.py").read_text() == "X = 1\n"


def test_pick_replaces_the_choice_with_a_new_commit(root: Path) -> None:
    model = RoutedModel([WRONG, RIGHT], ["?", "?"])
    chat, _ = session(root, model)
    chat.turn("area")
    assert "w + h" in (root / "shapes.py").read_text()
    other = label_of(chat, RIGHT)
    outcome = pick(chat, other.lower())
    assert "w * h" in (root / "shapes.py").read_text()
    assert git(root, "log", "--format=%s", "-1").strip() == f"coder: use candidate {other} instead"
    assert outcome.commits and chat.selection.choice.label == other
    assert chat.last_edit.after["shapes.py"] == (root / "shapes.py").read_text()
    with pytest.raises(UsageError, match="no valid candidate 'Q'"):
        pick(chat, "Q")


def test_pick_refuses_when_the_files_changed_since(root: Path) -> None:
    model = RoutedModel([WRONG, RIGHT], ["?", "?"])
    chat, _ = session(root, model)
    chat.turn("area")
    (root / "shapes.py").write_text("mine\n")
    with pytest.raises(CoderError, match="changed since the choice"):
        pick(chat, label_of(chat, RIGHT))
    assert (root / "shapes.py").read_text() == "mine\n"


def test_pick_needs_a_selection(root: Path) -> None:
    chat, _ = session(root, RoutedModel([RIGHT], []))
    with pytest.raises(CoderError, match="no candidates"):
        pick(chat, "A")


TESTS = """\
from shapes import area


def test_square():
    assert area(2, 2) == 4


def test_wide():
    assert area(3, 1) == 3
"""


def test_candidates_are_ranked_by_the_tests_in_temporary_copies(root: Path) -> None:
    (root / "test_shapes.py").write_text(TESTS)
    git(root, "add", ".")
    git(root, "commit", "-qm", "tests")
    model = RoutedModel([WRONG, RIGHT], ["?", "?"])
    chat, out = session(root, model, test_cmd="python -m pytest -q -p no:cacheprovider")
    chat.turn("area")
    made = chat.selection
    right = made.get(label_of(chat, RIGHT))
    wrong = made.get(label_of(chat, WRONG))
    assert right.tests.passed and right.tests.fixed == 2 and right.tests.broken == 0
    assert not wrong.tests.passed and wrong.tests.passing == 1  # area(2, 2) == 4 by luck
    assert made.chosen is right and made.choice.rule == "tests"
    assert model.selector.requests == []
    assert "pass: 2 passing, 0 failing, 2 fixed, 0 broken" in out.getvalue()
    assert not list(root.glob("*.xml")) and not (root / ".pytest_cache").exists()


def test_the_commands(root: Path) -> None:
    model = RoutedModel([WRONG, RIGHT], ["?", "?"])
    chat, out = session(root, model)
    line = commands.Chat(chat, chat.terminal, Config(), lambda name: model)
    commands.dispatch(line, "/candidates 4")
    assert chat.config.candidates == 4
    with pytest.raises(UsageError, match="from 1 to 26"):
        commands.dispatch(line, "/candidates many")
    commands.dispatch(line, "/candidates 2")
    chat.turn("area")
    commands.dispatch(line, f"/pick {label_of(chat, RIGHT)}")
    assert "w * h" in (root / "shapes.py").read_text()
    with pytest.raises(UsageError, match="only --request"):
        commands.dispatch(line, "/rtc --fast")


def test_the_command_line_checks_the_candidate_count(root: Path, monkeypatch) -> None:
    monkeypatch.chdir(root)
    monkeypatch.setenv("HOME", str(root))
    assert main(["--candidates", "40", "--exit", "shapes.py"]) == 2
    assert main(["--candidates", "3", "--rtc", "--exit", "--no-git", "shapes.py"]) == 0
