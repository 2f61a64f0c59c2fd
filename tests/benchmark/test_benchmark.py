"""The harness, proved with scripted oracle models on the real exercises."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmark import cli, report
from benchmark.hashing import RecordingModel, reply_hash, request_hash
from benchmark.oracle import OracleModel
from benchmark.runner import INSTRUCTIONS, RunSettings, _session
from coder.seams.model import Completion, Message, Request, ScriptedModel
from editformats import FORMATS
from exercism import copy_to, discover, solution_of

PRACTICE = Path(__file__).resolve().parents[3] / "shared" / "exercism-python" / "practice"
needs_exercises = pytest.mark.skipif(not PRACTICE.is_dir(), reason=f"{PRACTICE} is not there")


def run(tmp_path: Path, *args: str) -> dict:
    runs = tmp_path / "runs"
    common = ["--exercises-dir", str(PRACTICE), "--runs-dir", str(runs), "--quiet"]
    assert cli.main([*common, *args]) == 0
    (summary,) = runs.glob("*/summary.json")
    return json.loads(summary.read_text())


SAMPLE = 12
"""Exercises run through the sandbox in the formats that are not the full run's: that every
reference solution is written right in every format is proved without running tests (below),
and the whole set in every format is a benchmark run (README, "The oracle")."""


@needs_exercises
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_the_oracle_passes_every_exercise_at_the_first_try(tmp_path: Path, fmt: str) -> None:
    count = 140 if fmt == "whole" else SAMPLE
    more = () if fmt == "whole" else ("--num-tests", str(SAMPLE))
    summary = run(tmp_path, "--model", "oracle", "--edit-format", fmt, "--threads", "4", *more)
    assert summary["selected"] == summary["completed"] == count
    assert summary["pass_rate_1"] == 100.0
    assert summary["percent_well_formed"] == 100.0
    assert summary["parse_errors"] == summary["apply_failures"] == 0


@needs_exercises
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_the_oracle_writes_every_reference_solution(tmp_path: Path, fmt: str) -> None:
    for n, exercise in enumerate(discover(PRACTICE)):
        workdir = copy_to(exercise, tmp_path / str(n) / exercise.name)
        reference = exercise.example_solution()
        read = lambda p, w=workdir: (w / p).read_text() if (w / p).is_file() else None  # noqa: E731
        session = _session(exercise, OracleModel(fmt, read, reference), RunSettings(fmt), workdir)
        session.turn(INSTRUCTIONS.format(instructions="", files="", library=""))
        written = solution_of(exercise, workdir)
        assert {p: written.get(p, "").rstrip("\n") for p in reference} == {
            p: t.rstrip("\n") for p, t in reference.items()
        }, exercise.name


@needs_exercises
@pytest.mark.parametrize("fmt", ["diff", "patch"])
def test_an_oracle_right_only_at_the_second_try(tmp_path: Path, fmt: str) -> None:
    count = 140 if fmt == "diff" else SAMPLE
    more = () if fmt == "diff" else ("--num-tests", str(SAMPLE))
    summary = run(
        tmp_path, "--model", "oracle-retry", "--edit-format", fmt, "--threads", "4", *more
    )
    assert summary["completed"] == count
    assert summary["pass_rate_1"] == 0.0
    assert summary["pass_rate_2"] == 100.0


@needs_exercises
def test_the_retry_message_shows_the_test_output(tmp_path: Path) -> None:
    run(tmp_path, "--model", "oracle-retry", "--keywords", "two-fer", "--edit-format", "whole")
    (result,) = (tmp_path / "runs").glob("*/results/two-fer.json")
    data = json.loads(result.read_text())
    assert data["tests_outcomes"] == [False, True]
    assert "See the testing errors above. The tests are correct." in data["chat"]
    assert "Fix the code in two_fer.py to resolve the errors." in data["chat"]
    assert "NotImplementedError: a wrong first attempt" in data["chat"]
    assert [(r["kind"], r["temperature"], r["try"]) for r in data["requests"]] == [
        ("edit", 0.0, 1),
        ("retry", 0.0, 2),
    ]
    assert all(r["model"] == "oracle-retry" and len(r["reply"]) == 64 for r in data["requests"])


@needs_exercises
def test_rerunning_resumes(tmp_path: Path) -> None:
    run(tmp_path, "--num-tests", "3")
    results = sorted((tmp_path / "runs").glob("*/results/*.json"))
    assert len(results) == 3
    kept = results[0].stat().st_mtime_ns
    results[1].unlink()
    summary = run(tmp_path, "--num-tests", "3")
    assert results[0].stat().st_mtime_ns == kept and results[1].exists()
    assert summary["completed"] == 3


@needs_exercises
def test_stats_compares_runs_and_draws_the_chart(tmp_path: Path) -> None:
    common = ["--exercises-dir", str(PRACTICE), "--runs-dir", str(tmp_path / "runs"), "--quiet"]
    assert cli.main([*common, "--num-tests", "2", "--repeat", "2"]) == 0
    runs = sorted(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    from benchmark import stats

    text = stats.compare(runs)
    assert "oracle / diff: 100.0 ± 0.0 (100.0-100.0, n=2)" in text
    assert (tmp_path / "runs" / "stats.png").stat().st_size > 0
    assert (tmp_path / "runs" / "stats.svg").read_text().startswith("<?xml")


def test_stats_relate_rtc_to_passing_across_runs(tmp_path: Path) -> None:
    from benchmark import stats

    runs = []
    for n, (rtc, passed) in enumerate([(0.2, 10.0), (0.5, 40.0), (0.6, 35.0), (0.9, 80.0)]):
        run = tmp_path / f"run-{n}"
        (run / "results").mkdir(parents=True)
        summary = {"model": f"m{n}", "edit_format": "diff", "completed": 5, "selected": 5}
        summary |= {"percent_well_formed": 100.0, "pass_rate_1": passed, "pass_rate_2": passed}
        summary |= {"rtc_reference_mean_score": rtc, "rtc_reference_mean_lift": rtc / 2}
        summary |= {"rtc_reference_pass_rate": 100 * rtc, "rtc_reference_remakes_passing": "3/5"}
        summary["rtc_reference_vs_pass_1"] = {"n": 5, "note": "undefined: one side is constant"}
        (run / "summary.json").write_text(json.dumps(summary))
        runs.append(run)
    inconclusive = tmp_path / "run-4"
    (inconclusive / "results").mkdir(parents=True)
    summary = json.loads((runs[0] / "summary.json").read_text()) | {"model": "m4"}
    summary["rtc_reference_mean_score"] = summary["rtc_reference_mean_lift"] = None
    (inconclusive / "summary.json").write_text(json.dumps(summary))
    # A None score is left out; a wide terminal keeps each figure on one line.
    text = stats.compare([*runs, inconclusive], tmp_path / "chart", width=200)
    assert "run-0 (reference solutions): RTC pass 20.0%, mean RTC 0.2, mean lift 0.1" in text
    assert "RTC vs pass after try 1: undefined: one side is constant (n=5)" in text
    across = (
        "across runs, mean RTC of the reference solutions vs pass@1: Pearson r=+0.966 (p=0.0336),"
    )
    assert f"{across} Spearman rho=+0.800 (p=0.2000), n=4" in text
    assert (tmp_path / "chart-rtc-reference.svg").read_text().startswith("<?xml")
    assert (tmp_path / "chart-rtc-reference.png").stat().st_size > 0


def test_hashes_are_canonical_and_show_different_replies() -> None:
    request = Request((Message("user", "hi"),), temperature=0.0)
    assert request_hash("m", request) == request_hash("m", Request((Message("user", "hi"),)))
    assert request_hash("m", request) != request_hash("other", request)
    model = RecordingModel(ScriptedModel(["a", "b"]))
    model.complete(request)
    model.complete(request)
    first, second = model.records
    assert first["request"] == second["request"] and first["reply"] != second["reply"]
    assert first["reply"] == reply_hash(Completion(text="a"))
    assert first["kind"] == "edit" and first["temperature"] == 0.0 and first["model"] == "scripted"
    failing = RecordingModel(ScriptedModel([ConnectionError("down")]))
    failing.attempt = 2
    with pytest.raises(ConnectionError):
        failing.complete(request)
    (record,) = failing.records
    assert record["kind"] == "retry" and record["reply"] is None
    assert record["error"] == "ConnectionError"


def test_summary_denominators() -> None:
    """An exercise that ended in an error counts against the pass rate, and apart as an error;
    a reply with no edits is malformed."""
    results = [
        {
            "tests_outcomes": [True],
            "hashes": [{"request": "a", "reply": "b"}],
            "parse_errors": 0,
            "apply_failures": 0,
            "seconds": 1.0,
            "prompt_tokens": 10,
            "completion_tokens": 5,
            "cost": 0.01,
        },
        {
            "tests_outcomes": [False, True],
            "hashes": [{"request": "c", "reply": "d"}],
            "parse_errors": 1,
            "apply_failures": 0,
            "seconds": 3.0,
            "prompt_tokens": 10,
            "completion_tokens": 5,
            "cost": None,
        },
        {
            "tests_outcomes": [False],
            "hashes": [{"request": "e", "reply": "f"}],
            "no_edits": 1,
            "parse_errors": 0,
            "apply_failures": 0,
            "seconds": 1.0,
            "prompt_tokens": 10,
            "completion_tokens": 5,
            "cost": None,
        },
        {
            "tests_outcomes": [],
            "error": "ModelError: down",
            "parse_errors": 0,
            "apply_failures": 0,
            "seconds": 0.5,
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "cost": None,
        },
    ]
    summary = report.summarize(results, selected=5, tries=2)
    assert summary["completed"] == 3 and summary["errors"] == 1 and summary["not_run"] == 1
    assert summary["pass_rate_1"] == 20.0 and summary["pass_rate_2"] == 40.0
    assert summary["percent_well_formed"] == 33.3 and summary["percent_malformed"] == 66.7
    assert summary["no_edits"] == 1
    assert summary["cost"] == 0.01


@needs_exercises
def test_candidates_outvote_a_wrong_first_answer(tmp_path: Path) -> None:
    # oracle-retry's first call is wrong: with three parallel candidates, one of three is.
    summary = run(tmp_path, "--model", "oracle-retry", "--candidates", "3", "--num-tests", "3")
    assert summary["pass_rate_1"] == 100.0 and summary["candidates"] == 3
    assert summary["selections"] == summary["selections_with_a_passing_candidate"] == 3
    assert summary["selection_chose_passing"] == 3 and summary["selection_missed"] == 0
    # Two of three agree, so no selector is asked.
    assert summary["selection_by_rule"] == {"agreement": 3}
    assert summary["selector_fallbacks"] == 0
    (result, *_) = sorted((tmp_path / "runs").glob("*--c3/results/*.json"))
    selection = json.loads(result.read_text())["selections"][0]
    assert sorted(selection["votes"].values()) == [1, 2]
    assert sorted(selection["passed"].values()) == [False, True]
    assert selection["rule"] == "agreement" and selection["best_available"]


@needs_exercises
def test_candidate_tests_choose_by_the_exercises_tests(tmp_path: Path) -> None:
    summary = run(
        tmp_path,
        *("--model", "oracle-retry", "--candidates", "3", "--candidate-tests"),
        *("--num-tests", "2"),
    )
    assert summary["pass_rate_1"] == 100.0 and summary["candidate_tests"] is True
    # The wrong candidate fails the tests; the two right ones are one change.
    assert summary["selection_by_rule"] == {"tests": 2} and summary["selection_missed"] == 0
    (result, *_) = sorted((tmp_path / "runs").glob("*--c3t/results/*.json"))
    assert json.loads(result.read_text())["selections"][0]["best_available"] is True


@needs_exercises
def test_rtc_of_an_oracle_that_ignores_the_description_shows_no_lift(tmp_path: Path) -> None:
    summary = run(tmp_path, "--model", "oracle", "--rtc", "--num-tests", "2")
    # The oracle re-makes the change exactly from any description: every sample is the same
    # change (PASS), and so is the blind re-make from "Edit.": the descriptions add nothing.
    assert summary["rtc_verdicts"] == {"PASS": 2, "WEAK": 0, "FAIL": 0, "INCONCLUSIVE": 0}
    assert summary["rtc_mean_score"] == 1.0 and summary["rtc_mean_lift"] == 0.0
    assert summary["rtc_remakes_passing"] == "6/6"
    assert summary["rtc_vs_pass_1"]["note"] == "undefined: fewer than 3 points"
    (result, *_) = sorted((tmp_path / "runs").glob("*--rtc/results/*.json"))
    rtc = json.loads(result.read_text())["rtc"]
    assert rtc["tiers"] == ["exact"] * 3 and rtc["score"] == 1.0 and rtc["blind"] == "exact"
    assert rtc["tests"] == [True] * 3 and rtc["original_tests"] is True


@needs_exercises
def test_rtc_of_the_reference_solutions_alone_sends_no_edit_request(tmp_path: Path) -> None:
    argv = ["--model", "oracle", "--rtc-reference", "--num-tests", "3", "--rtc-samples", "2"]
    argv += ["--rtc-threshold", "0.5", "--rtc-request", "--consistency-prompt"]
    summary = run(tmp_path, *argv)
    assert "pass_rate_1" not in summary and summary["rtc_reference_mean_score"] == 1.0
    assert summary["rtc_samples"] == 2 and summary["rtc_threshold"] == 0.5
    assert summary["rtc_request"] is True and summary["consistency_prompt"] is True
    (folder,) = (tmp_path / "runs").glob("*--rtc-reference--consistent")
    for path in (folder / "results").glob("*.json"):
        result = json.loads(path.read_text())
        assert result["tests_outcomes"] == [] and result["rtc"] is None
        assert result["rtc_reference"]["tiers"] == ["exact", "exact"]
        # Only the round trip's requests: two descriptions, two re-makes and the blind one.
        kinds = [r["kind"] for r in result["requests"]]
        assert sorted(kinds) == ["rtc-describe"] * 2 + ["rtc-remake"] * 3


def test_selection_and_round_trip_figures() -> None:
    base = {"parse_errors": 0, "apply_failures": 0, "seconds": 1.0}
    base |= {"prompt_tokens": 0, "completion_tokens": 0, "cost": None}

    def rtc(verdict: str) -> dict:
        score = {"PASS": 1.0, "WEAK": 0.5, "FAIL": 0.0, "INCONCLUSIVE": 0.0}[verdict]
        return {
            "verdict": verdict,
            "score": score,
            "lift": score / 2,
            "tests": [True, False],
            "prompt_tokens": 3,
            "completion_tokens": 1,
        }

    def pick(chosen: str, passed: dict, fallback=None) -> dict:
        rule = "fallback" if fallback else "selector"
        return {"chosen": chosen, "passed": passed, "fallback": fallback, "rule": rule}

    results = [
        base | {"tests_outcomes": [True], "rtc": rtc("PASS")},
        base | {"tests_outcomes": [True], "rtc": rtc("PASS")},
        base | {"tests_outcomes": [False, False], "rtc": rtc("FAIL")},
        base | {"tests_outcomes": [False, True], "rtc": rtc("WEAK")},
        base | {"tests_outcomes": [True], "rtc": rtc("INCONCLUSIVE")},
    ]
    results[0]["selections"] = [pick("A", {"A": True, "B": False})]
    results[2]["selections"] = [pick("B", {"A": True, "B": False}, "invalid twice")]
    results[3]["selections"] = [pick("A", {"A": False, "B": False})]
    summary = report.summarize(results, selected=5, tries=2)
    assert summary["selections"] == 3 and summary["selections_with_a_passing_candidate"] == 2
    assert summary["selection_chose_passing"] == 1 and summary["selection_missed"] == 1
    assert summary["selection_by_rule"] == {"fallback": 1, "selector": 2}
    assert summary["selection_missed_by_rule"] == {"fallback": 1, "selector": 0}
    assert summary["selector_fallbacks"] == 1
    assert summary["rtc_pass_rate"] == 50.0  # of the four conclusive verdicts
    assert summary["rtc_pass_rate_among_pass"] == 100.0
    assert summary["rtc_pass_rate_among_fail"] == 50.0  # WEAK counts as not passing RTC
    assert summary["rtc_tokens"] == 20
    assert summary["rtc_mean_score"] == 0.625 and summary["rtc_mean_lift"] == 0.312
    assert summary["rtc_remakes_passing"] == "4/8"
    # Scores 1, 1, 0, 0.5 against passing after try 1: 1, 1, 0, 0.
    figures = summary["rtc_vs_pass_1"]
    assert figures["n"] == 4 and figures["pearson"] == 0.905 and figures["spearman"] == 0.943


HOSTILE = """conftest.py
```python
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().outcome = "passed"
```

two_fer.py
```python
import os


def _steal():
    found = []
    for pid in os.listdir("/proc"):
        try:
            found.append(open(f"/proc/{pid}/environ", "rb").read().decode(errors="replace"))
        except OSError:
            pass
    return " ".join(found)


def two_fer(name="you"):
    return _steal() + os.environ.get("OPENAI_API_KEY", "")
```
"""


@needs_exercises
def test_a_hostile_solution_neither_passes_nor_leaks(tmp_path: Path, monkeypatch) -> None:
    from benchmark.runner import RunSettings, run_exercise
    from exercism import load

    canary = "sk-canary-0b1c2d3e4f5a6b7c"
    monkeypatch.setenv("OPENAI_API_KEY", canary)
    exercise = load(PRACTICE / "two-fer")
    replies = [HOSTILE] * 20
    settings = RunSettings(edit_format="whole", tries=2)
    result = run_exercise(exercise, lambda _: ScriptedModel(replies), settings, tmp_path / "w")
    assert (tmp_path / "w" / "conftest.py").exists()  # written, but never tested with
    assert result.tests_outcomes == [False, False], result.error
    assert canary not in json.dumps(result.to_json())
