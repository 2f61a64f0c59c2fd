"""A run of the tests caught tampering with them: its own outcome, the exercise's end, a
failure in every pass rate, counted in the summary, --stats and the charts."""

from __future__ import annotations

import json
from pathlib import Path

import exercism
from benchmark import report, stats
from benchmark.oracle import reply_for
from benchmark.result import ExerciseResult
from benchmark.runner import RunSettings, run_exercise
from coder.seams.model import ScriptedModel
from exercism import discover
from tests.benchmark.judges import CLAIM, FakeJudge

PRACTICE = Path(__file__).resolve().parents[1] / "exercism" / "practice"


def initials():
    return next(e for e in discover(PRACTICE) if e.name == "initials")


def reply(text: str) -> str:
    """A reply in the whole format that makes initials.py text."""
    exercise = initials()
    stub = (exercise.folder / "initials.py").read_text()
    return reply_for("whole", {"initials.py": stub}, {"initials.py": text}).text


def test_a_run_caught_tampering_ends_the_exercise_and_is_not_sent_back(tmp_path: Path) -> None:
    wrong = 'def initials(name):\n    return "?"\n'
    tampering = wrong + FakeJudge().sign + "\n"
    model = ScriptedModel([reply(wrong), reply(tampering), reply("never asked for")])
    settings = RunSettings("whole", tries=3, tester=FakeJudge())
    result = run_exercise(initials(), lambda _: model, settings, tmp_path / "w", "scripted")
    assert result.tampering == FakeJudge().seen and result.tampering_try == 2
    assert result.tests_outcomes == [False, False] and result.error is None
    assert [r["kind"] for r in result.requests] == ["edit", "retry"] and model.remaining == 1
    # The first try's failure went back to the model; what the tampering run printed did not.
    assert "AssertionError" in result.chat and CLAIM not in result.chat


def test_a_run_caught_tampering_never_passes_even_when_it_says_so(tmp_path: Path) -> None:
    def claims(exercise, solution, setup=None) -> exercism.TestRun:
        return exercism.TestRun(True, CLAIM, tampering="tests skipped: 22 of 23")

    model = ScriptedModel([reply("def initials(name):\n    return ''\n")])
    settings = RunSettings("whole", tester=claims)
    result = run_exercise(initials(), lambda _: model, settings, tmp_path / "w", "scripted")
    assert result.tests_outcomes == [False] and result.tampering == "tests skipped: 22 of 23"


def caught(name: str, language: str = "python") -> dict:
    result = ExerciseResult(name, "whole", "m", language, tests_outcomes=[False])
    return result.to_json() | {"tampering": "tests filtered out", "tampering_try": 1}


def passing(name: str, language: str = "python") -> dict:
    return ExerciseResult(name, "whole", "m", language, tests_outcomes=[True]).to_json()


def test_the_summary_counts_tampering_as_failures_apart_from_errors() -> None:
    results = [caught("a"), passing("b"), caught("c", "go")]
    summary = report.summarize(results, selected=4, tries=2)
    assert (summary["tampering"], summary["errors"], summary["completed"]) == (2, 0, 3)
    assert summary["pass_rate_2"] == 25.0
    languages = report.by_language(results, ["python"] * 3 + ["go"], tries=2)
    assert languages["python"]["tampering"] == 1 and languages["go"]["pass_rate_2"] == 0.0
    assert "tampering 1" in report.language_line(languages["go"])
    assert "tampering" not in report.language_line(report.summarize([passing("b")], 1, 2))


def test_stats_and_the_charts_show_tampering(tmp_path: Path) -> None:
    folder = tmp_path / "2026-11-25--m--whole"
    (folder / "results" / "go").mkdir(parents=True)
    results = [caught("a"), passing("b"), caught("c", "go")]
    for r in results:
        where = folder / "results" / ("" if r["language"] == "python" else r["language"])
        (where / f"{r['exercise']}.json").write_text(json.dumps(r))
    summary = report.summarize(results, selected=3, tries=2)
    summary["languages"] = report.by_language(results, ["python", "python", "go"], tries=2)
    fields = {"model": "m", "edit_format": "whole", "date": "2026-11-25", "tries": 2}
    (folder / "summary.json").write_text(json.dumps(summary | fields))
    text = stats.compare([folder], tmp_path / "chart.svg", width=80)
    assert "tampered" in text and max(len(line) for line in text.splitlines()) <= 80
    joined = " ".join(text.split())
    assert (
        "run 1: 2 exercises caught tampering with their tests (they count as not passed): a,"
        " tests filtered out"
    ) in joined
    assert "go: try 1 0.0%, try 2 0.0% of 1; errors 0 (0 harness); tampering 1" in joined
    for chart in ("chart.svg", "chart-languages.svg"):
        assert "caught tampering (failed)" in (tmp_path / chart).read_text()


def test_a_run_made_before_the_check_shows_no_count(tmp_path: Path) -> None:
    fields = {"model": "m", "edit_format": "whole", "tries": 2}
    for name, results in (("old", [passing("b")]), ("new", [caught("a")])):
        (tmp_path / name / "results").mkdir(parents=True)
        summary = report.summarize(results, selected=1, tries=2)
        if name == "old":
            del summary["tampering"]
        (tmp_path / name / "summary.json").write_text(json.dumps(summary | fields))
    text = stats.compare([tmp_path / "old", tmp_path / "new"], tmp_path / "c.svg", width=80)
    rows = [line.split() for line in text.splitlines() if line.lstrip()[:2] in ("1 ", "2 ")]
    assert [row[-2:] for row in rows[:2]] == [["-", "1/1"], ["1", "1/1"]]
    clean = stats.compare([tmp_path / "old"], tmp_path / "c.svg", width=80)
    assert "tampered" not in clean


def test_the_real_judge_catches_a_run_that_exits_0_before_its_tests(tmp_path: Path) -> None:
    exiting = 'import os\n\nos._exit(0)\n\n\ndef initials(name):\n    return "?"\n'
    model = ScriptedModel([reply(exiting), reply("never asked for")])
    result = run_exercise(initials(), lambda _: model, RunSettings("whole"), tmp_path / "w", "s")
    assert result.tampering and "canary tests never ran" in result.tampering, result.tampering
    assert result.tests_outcomes == [False] and result.tampering_try == 1
    assert model.remaining == 1 and result.error is None
