"""Round-trip correctness with scripted models: tiers, verdicts, the lift, model errors."""

from __future__ import annotations

import io
import sys
import threading
from pathlib import Path

import pytest

from coder.chat.session import Session, SessionConfig
from coder.edits.workspace import Workspace
from coder.errors import CoderError, ModelError
from coder.seams.model import Completion, Request, ScriptedModel, Usage
from coder.seams.repo import Repo
from coder.terminal import Terminal
from coder.trust import rtc
from editformats import get_format

from ..gitrepo import make_repo

BEFORE = "def area(w, h):\n    return 0\n"
AFTER = "def area(w, h):\n    return w * h\n"
CHANGE = rtc.Change({"shapes.py": BEFORE}, {"shapes.py": AFTER}, {}, "make area work")
DIFF = get_format("diff")


def edit(new: str, old: str = "    return 0\n") -> str:
    return f"shapes.py\n```python\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"


class RtcModel:
    """Describing requests take descriptions by seed; re-making requests are answered by the
    description they carry (its last message)."""

    name = "rtc-scripted"

    def __init__(self, descriptions: list, remakes: dict):
        self.descriptions = descriptions
        self.remakes = remakes
        self.requests: list[Request] = []
        self.lock = threading.Lock()

    def complete(self, request: Request, on_text=None) -> Completion:
        with self.lock:
            self.requests.append(request)
        if request.messages[0].content.startswith("You write the instruction"):
            answer = self.descriptions[request.seed]
        else:
            answer = self.remakes[request.messages[-1].content]
        if isinstance(answer, BaseException):
            raise answer
        return Completion(answer, usage=Usage(10, 5, 0.001))


class Then:
    """A scripted model until its script runs out, then another model."""

    name = "then"

    def __init__(self, first: ScriptedModel, then):
        self.first, self.then = first, then

    def complete(self, request: Request, on_text=None) -> Completion:
        model = self.first if self.first.remaining else self.then
        return model.complete(request, on_text)


def check(model: RtcModel, **settings) -> rtc.RtcReport:
    return rtc.check(model, DIFF, CHANGE, rtc.RtcSettings(**settings))


DESCRIPTIONS = ["Make area multiply width by height.", "Return the product.", "Compute area."]
GOOD = {d: edit("    return w * h\n") for d in DESCRIPTIONS} | {"Edit.": "Nothing to do."}


def test_descriptions_that_remake_the_change_pass_with_a_lift() -> None:
    model = RtcModel(DESCRIPTIONS, GOOD)
    report = check(model)
    assert report.verdict == "PASS"
    assert report.score == 1.0 and report.baseline.tier == "failed" and report.lift == 1.0
    assert len(report.samples) == 3  # the blind re-make is kept apart
    assert [s.tier for s in report.samples] == ["exact"] * 3
    describe = [r for r in model.requests if r.temperature == 0.8]
    assert sorted(r.seed for r in describe) == [0, 1, 2]
    remake = [r for r in model.requests if r.temperature == 0.0]
    assert len(remake) == 4  # three descriptions and the "Edit." baseline
    assert all(BEFORE in r.messages[-3].content for r in remake)  # the files before the edit
    assert report.usage == Usage(70, 35, pytest.approx(0.007))


def test_the_describer_sees_the_diff_and_the_request_only_when_asked() -> None:
    model = RtcModel(DESCRIPTIONS, GOOD)
    check(model)
    prompt = model.requests[0].messages[-1].content
    assert "+    return w * h" in prompt and "make area work" not in prompt
    model = RtcModel(DESCRIPTIONS, GOOD)
    check(model, with_request=True)
    assert "make area work" in model.requests[0].messages[-1].content


def test_a_blind_remake_is_reported_beside_the_verdict_not_in_it() -> None:
    remakes = GOOD | {"Edit.": edit("    return w * h\n")}
    report = check(RtcModel(DESCRIPTIONS, remakes))
    assert report.verdict == "PASS" and report.baseline.tier == "exact" and report.lift == 0.0


def test_some_samples_remaking_it_is_weak_and_none_is_fail() -> None:
    remakes = GOOD | {DESCRIPTIONS[1]: edit("    return w + h\n")}
    remakes |= {DESCRIPTIONS[2]: "I cannot."}
    report = check(RtcModel(DESCRIPTIONS, remakes))
    assert [s.tier for s in report.samples] == ["exact", "different", "failed"]
    assert report.verdict == "WEAK"
    assert report.samples[1].similarity == 0.5  # the removed line agrees, the added one not
    assert report.score == pytest.approx(1 / 3)  # similarity is shown, never counted
    wrong = {d: edit("    return None\n") for d in DESCRIPTIONS} | {"Edit.": "No."}
    report = check(RtcModel(DESCRIPTIONS, wrong))
    assert report.verdict == "FAIL" and report.score == 0.0


def test_similar_text_never_passes() -> None:
    # Nearly the same lines, another program: high similarity, no equivalent sample.
    near = {d: edit("    return w * h + 0.0001\n") for d in DESCRIPTIONS} | {"Edit.": "No."}
    report = check(RtcModel(DESCRIPTIONS, near))
    assert all(s.similarity >= 0.5 for s in report.samples)
    assert report.verdict == "FAIL" and report.score == 0.0


INDENTED_BEFORE = "def f(x):\n    if x:\n        y = 1\n    return 0\n"
INDENTED_AFTER = "def f(x):\n    if x:\n        y = 1\n    return y if x else 0\n"


def test_a_remake_indented_into_another_block_is_never_the_same_change() -> None:
    change = rtc.Change({"f.py": INDENTED_BEFORE}, {"f.py": INDENTED_AFTER})
    moved = "def f(x):\n    if x:\n        y = 1\n        return y if x else 0\n"
    block = (
        "f.py\n```python\n<<<<<<< SEARCH\n        y = 1\n    return 0\n=======\n"
        "        y = 1\n        return y if x else 0\n>>>>>>> REPLACE\n```\n"
    )
    model = RtcModel(DESCRIPTIONS, {d: block for d in DESCRIPTIONS} | {"Edit.": "No."})
    report = rtc.check(model, DIFF, change, rtc.RtcSettings())
    assert [s.remade["f.py"] for s in report.samples] == [moved] * 3
    assert [s.tier for s in report.samples] == ["different"] * 3 and report.verdict == "FAIL"


def test_a_remake_that_behaves_the_same_on_the_tests_is_equivalent() -> None:
    remakes = GOOD | {DESCRIPTIONS[1]: edit("    return h * w\n")}
    remakes |= {DESCRIPTIONS[2]: edit("    return w + h\n")}

    def behaviour(files: dict[str, str]) -> dict[str, bool]:
        area = {}
        exec(files["shapes.py"], area)  # the scripted re-makes are known code
        return {"square": area["area"](2, 2) == 4, "wide": area["area"](3, 1) == 3}

    report = rtc.check(RtcModel(DESCRIPTIONS, remakes), DIFF, CHANGE, rtc.RtcSettings(), behaviour)
    assert [s.tier for s in report.samples] == ["exact", "tests", "different"]
    assert [s.tests for s in report.samples] == [True, True, False]
    assert report.original_tests is True and report.tested == (2, 3)
    assert report.score == pytest.approx(2 / 3) and report.verdict == "WEAK"
    out = io.StringIO()
    rtc.show(Terminal(out=out, err=out), report)
    assert "Tests: 2/3 re-makes pass (the original passes)." in out.getvalue()


def test_the_threshold_decides_between_pass_and_weak() -> None:
    remakes = GOOD | {DESCRIPTIONS[2]: edit("    return w - h\n")}
    assert check(RtcModel(DESCRIPTIONS, remakes), threshold=0.6).verdict == "PASS"
    assert check(RtcModel(DESCRIPTIONS, remakes)).verdict == "WEAK"  # 2 of 3 < 0.8


def test_the_tiers() -> None:
    original = {"a.py": "x = [1, 2]\n", "b.txt": "one two\n"}
    assert rtc.tier(original, dict(original)) == "exact"
    assert rtc.tier(original, {"a.py": "x = [1,2]  # list\n", "b.txt": "one two\n"}) == "ast"
    # Text in a language the judge cannot read is the same only when it is equal.
    assert rtc.tier(original, {"a.py": "x = [1, 2]\n", "b.txt": "one  two\n"}) == "different"
    assert rtc.tier(original, {"a.py": "x = [2, 1]\n", "b.txt": "one two\n"}) == "different"
    assert rtc.tier(original, {"a.py": "x = [1, 2]\n"}) == "different"


def test_an_ast_equal_remake_counts_as_the_same_change() -> None:
    remakes = {d: edit("    return w*h  # area\n") for d in DESCRIPTIONS} | {"Edit.": "No."}
    report = check(RtcModel(DESCRIPTIONS, remakes))
    assert [s.tier for s in report.samples] == ["ast"] * 3 and report.verdict == "PASS"


def test_model_errors_are_inconclusive_never_fail() -> None:
    report = check(RtcModel([DESCRIPTIONS[0], ModelError("rate limited"), "x"], GOOD))
    assert report.verdict == "INCONCLUSIVE" and "rate limited" in report.reason
    remakes = GOOD | {"Edit.": ModelError("timed out")}
    report = check(RtcModel(DESCRIPTIONS, remakes))
    assert report.verdict == "INCONCLUSIVE" and "re-make" in report.reason
    assert report.usage.prompt_tokens > 0  # what was spent is still reported


def test_no_change_is_inconclusive() -> None:
    same = rtc.Change({"a.py": "x = 1\n"}, {"a.py": "x = 1\n"})
    report = rtc.check(RtcModel([], {}), DIFF, same, rtc.RtcSettings())
    assert report.verdict == "INCONCLUSIVE" and "no change" in report.reason


def test_descriptions_are_one_short_line_and_leaks_are_flagged() -> None:
    assert rtc.clean('"Multiply the sides."\nMore.', 128) == "Multiply the sides."
    assert len(rtc.clean("x" * 300, 128)) == 128
    added = ["    return w * h if w > 0 else 0"]
    assert rtc.leaks("Change it to `return w * h if w > 0`", added)
    assert rtc.leaks("Use return w * h if w > 0 else 0 in area", added)
    assert not rtc.leaks("Return the product of width and height in area", added)
    model = RtcModel(["Write `return w * h` in area", *DESCRIPTIONS[1:]], GOOD)
    model.remakes["Write `return w * h` in area"] = edit("    return w * h\n")
    report = check(model)
    assert [s.leaked for s in report.samples] == [True, False, False]


def test_the_report_is_shown() -> None:
    out = io.StringIO()
    rtc.show(Terminal(out=out, err=out), check(RtcModel(DESCRIPTIONS, GOOD)))
    shown = out.getvalue()
    assert "Round trip" in shown and "Return the product." in shown and "exact" in shown
    assert "RTC PASS" in shown and "threshold 0.80" in shown and "lift +1.00" in shown
    assert "3 of 3 equivalent" in shown and 'Blind re-make from "Edit.": failed' in shown


def test_rtc_in_the_chat_checks_the_last_edit_without_touching_the_files(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"shapes.py": BEFORE})
    out = io.StringIO()
    chat = Session(
        model=ScriptedModel([edit("    return w * h\n")]),
        fmt=DIFF,
        ws=Workspace(root),
        repo=Repo.find(root),
        terminal=Terminal(out=out, err=out),
        config=SessionConfig(rtc=True),
        weak_model=ScriptedModel(["Make area work"]),
        files=["shapes.py"],
    )
    with pytest.raises(CoderError, match="no edit to check"):
        chat.round_trip()
    chat.model = Then(chat.model, RtcModel(DESCRIPTIONS, GOOD))
    chat.turn("make area work")
    assert chat.last_edit == CHANGE
    assert "RTC PASS" in out.getvalue()
    assert (root / "shapes.py").read_text() == AFTER
    assert chat.usage.prompt_tokens >= 70


def test_an_empty_description_fails_its_sample_without_a_request() -> None:
    model = RtcModel(["", *DESCRIPTIONS[1:]], GOOD)
    report = check(model)
    assert report.samples[0].tier == "failed" and "empty" in report.samples[0].problem
    assert "" not in [r.messages[-1].content for r in model.requests]
    assert report.verdict == "WEAK"  # two of three descriptions re-make the change


PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider"


def test_rtc_in_the_chat_with_a_test_command_reports_the_remakes_that_pass(
    tmp_path: Path,
) -> None:
    tests = "from shapes import area\n\n\ndef test_square():\n    assert area(2, 3) == 6\n"
    root = make_repo(tmp_path, {"shapes.py": BEFORE, "test_shapes.py": tests})
    out = io.StringIO()
    remakes = GOOD | {DESCRIPTIONS[1]: edit("    return h * w\n")}
    chat = Session(
        model=Then(ScriptedModel([edit("    return w * h\n")]), RtcModel(DESCRIPTIONS, remakes)),
        fmt=DIFF,
        ws=Workspace(root),
        repo=Repo.find(root),
        terminal=Terminal(out=out, err=out),
        config=SessionConfig(rtc=True, test_cmd=PYTEST),
        weak_model=ScriptedModel(["Make area work"]),
        files=["shapes.py"],
    )
    chat.turn("make area work")
    shown = out.getvalue()
    assert "Tests: 3/3 re-makes pass (the original passes)." in shown
    assert "RTC PASS" in shown and " tests " in shown  # h * w: equal behaviour on the tests
    assert (root / "shapes.py").read_text() == AFTER


def test_tests_that_do_not_see_the_change_cannot_vouch_for_a_remake() -> None:
    remakes = GOOD | {DESCRIPTIONS[1]: edit("    return h * w\n")}

    def blind_tests(files: dict[str, str]) -> dict[str, bool]:
        return {"unrelated": True}  # passes before the change and after it alike

    report = rtc.check(
        RtcModel(DESCRIPTIONS, remakes), DIFF, CHANGE, rtc.RtcSettings(), blind_tests
    )
    assert [s.tier for s in report.samples] == ["exact", "different", "exact"]


def test_no_description_at_all_is_inconclusive() -> None:
    report = check(RtcModel(["", "   ", '""'], GOOD))
    assert report.verdict == "INCONCLUSIVE" and "no description" in report.reason
