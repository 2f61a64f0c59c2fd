"""`benchmark --rescore RUN`: a finished run's replies tested again under today's harness, with
no model request; the same results for an unchanged harness, tampering found in old runs, and
the original's errors kept where they ended an exercise."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import exercism
from benchmark import cli, replay, rescore, stats
from benchmark.runner import RunSettings
from coder.errors import UsageError
from coder.seams.model import Message, transcript
from exercism import discover
from tests.benchmark.judges import FakeJudge
from tests.coder.fake_openai import FakeOpenAI, Text

SMALL = Path(__file__).resolve().parents[1] / "exercism" / "practice"
"""Two small Python exercises that ship with the tests: initials and running-total."""
EXERCISES = {("python", e.name): e for e in discover(SMALL)}


def bench(runs: Path, *args: str) -> Path:
    """A finished run of the benchmark on the small exercises; its folder."""
    argv = ["--exercises-dir", str(SMALL), "--runs-dir", str(runs), "--quiet", *args]
    assert cli.main(argv) == 0
    (summary,) = runs.glob("*/summary.json")
    return summary.parent


def results(run: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in (run / "results").glob("*.json")}


def summary(run: Path) -> dict:
    return json.loads((run / "summary.json").read_text())


def rescored(run: Path) -> Path:
    (folder,) = run.parent.glob(f"{run.name}--rescored-*")
    return folder


def test_an_oracle_run_rescored_gives_the_same_results(tmp_path: Path, capsys) -> None:
    original = bench(tmp_path / "runs", "--model", "oracle-retry", "--edit-format", "whole")
    capsys.readouterr()
    argv = ["--exercises-dir", str(SMALL), "--rescore", str(original), "--threads", "2"]
    assert cli.main(argv) == 0
    new = rescored(original)
    before, after = summary(original), summary(new)
    figures = ("selected", "completed", "errors", "pass_rate_1", "pass_rate_2", "model")
    assert {k: after[k] for k in figures} == {k: before[k] for k in figures}
    assert (after["pass_rate_1"], after["pass_rate_2"], after["tampering"]) == (0.0, 100.0, 0)
    assert after["rescored_from"] == str(original)
    assert stats.variant(after) == "whole rescored"  # --stats: no repeat of the original
    for name, old in results(original).items():
        now = results(new)[name]
        assert now["tests_outcomes"] == old["tests_outcomes"] == [False, True]
        # The same requests, byte for byte, and the same replies: the chat played back.
        assert [(r["kind"], r["request"], r["reply"]) for r in now["requests"]] == [
            (r["kind"], r["request"], r["reply"]) for r in old["requests"]
        ]
        assert now["rescore"] == {
            "stopped": None,
            "tests_outcomes": [False, True],
            "tampering": None,
            "error": None,
            "error_cause": None,
        }
    assert f"re-scored 2 exercises of {original}: 0 changed or caught," in capsys.readouterr().out


def initials_server() -> FakeOpenAI:
    """A provider that answers with the reference solution of initials, plus a line that the
    judge of tampering stands in for today (FakeJudge), which no judge looked for then."""
    right = (SMALL / "initials" / ".meta" / "example.py").read_text()
    return FakeOpenAI([Text(f"initials.py\n```python\n{right}{FakeJudge().sign}\n```\n")])


def test_a_run_rescored_asks_no_model_and_shows_the_tampering_found(tmp_path: Path, capsys) -> None:
    with initials_server() as server:
        model = ("--model", "openai/fake-model", "--api-base", server.base_url)
        original = bench(tmp_path / "runs", *model, "--edit-format", "whole", "--keywords", "ini")
        asked = len(server.requests)
        assert asked == 1 and results(original)["initials"]["tests_outcomes"] == [True]
        assert cli.main(["--exercises-dir", str(SMALL), "--rescore", str(original)]) == 0
        assert results(rescored(original))["initials"]["tests_outcomes"] == [True]
        shutil.rmtree(rescored(original))
        folder = rescore.rescore(original, EXERCISES, RunSettings(tester=FakeJudge()))
        assert len(server.requests) == asked and not server.rejected
    new = results(folder)["initials"]
    assert new["tampering"] == FakeJudge().seen and new["tests_outcomes"] == [False]
    assert new["error"] is None and new["model"] == "openai/fake-model"
    assert (summary(folder)["tampering"], summary(folder)["pass_rate_2"]) == (1, 0.0)
    assert rescore.changes(original, folder)[1:] == [
        "  python/initials: passed at try 1 -> caught tampering at try 1: a status written"
        " after the last test"
    ]


def failing(exercise, solution, setup=None) -> exercism.TestRun:
    return exercism.TestRun(False, "1 failed\n")


def test_where_the_replies_run_out_the_exercise_ends_with_the_originals_error(
    tmp_path: Path,
) -> None:
    original = bench(tmp_path / "runs", "--model", "oracle", "--edit-format", "diff")
    path = original / "results" / "initials.json"
    cut = json.loads(path.read_text()) | {"chat": "", "tests_outcomes": [], "requests": []}
    cut |= {"error": "ModelError: the provider did not answer", "error_cause": "request"}
    path.write_text(json.dumps(cut))
    (original / "summary.json").write_text(json.dumps(summary(original) | {"errors": 1}))
    folder = rescore.rescore(original, EXERCISES, RunSettings(tester=failing))
    initials, total = results(folder)["initials"], results(folder)["running-total"]
    # No reply at all: the request failed then, so the exercise ends as it did, its error kept.
    assert initials["tests_outcomes"] == [] and initials["requests"] == []
    assert (initials["error"], initials["error_cause"]) == (cut["error"], "request")
    assert initials["rescore"]["stopped"] == "its replies ran out at try 1"
    # Passed at try 1 then, failed today: the run has no reply for a retry, and no error.
    assert total["tests_outcomes"] == [False] and total["error"] is None
    assert total["rescore"]["stopped"] == "its replies ran out at try 2"
    figures = summary(folder)
    assert (figures["selected"], figures["errors"], figures["completed"]) == (2, 1, 1)
    assert figures["pass_rate_2"] == 0.0
    assert "1 ended where the original's error ended them" in rescore.changes(original, folder)[0]


def test_an_exercise_no_longer_there_is_an_error_of_its_own(tmp_path: Path) -> None:
    original = bench(tmp_path / "runs", "--model", "oracle", "--edit-format", "whole")
    only = {key: e for key, e in EXERCISES.items() if key[1] == "initials"}
    folder = rescore.rescore(original, only, RunSettings())
    gone = results(folder)["running-total"]
    assert gone["error_cause"] == "other" and "no python exercise" in gone["error"]
    assert (summary(folder)["selected"], summary(folder)["pass_rate_1"]) == (2, 50.0)


@pytest.mark.parametrize(
    ("settings", "why"),
    [
        ({"edit_format": "whole-func"}, "answers with function calls"),
        ({"candidates": 3}, "records only the chosen one's reply"),
        ({"pass_rate_1": None}, "asked the model for no edits"),
    ],
)
def test_runs_that_cannot_be_played_back_are_refused(
    tmp_path: Path, capsys, settings: dict, why: str
) -> None:
    run = tmp_path / "run"
    (run / "results").mkdir(parents=True)
    figures = {"model": "m", "edit_format": "diff", "selected": 1, "completed": 1}
    figures |= {"pass_rate_1": 0.0} | settings
    (run / "summary.json").write_text(
        json.dumps({k: v for k, v in figures.items() if v is not None})
    )
    with pytest.raises(UsageError, match=why):
        rescore.rescore(run, EXERCISES, RunSettings())
    assert cli.main(["--exercises-dir", str(SMALL), "--rescore", str(run)]) == 2
    assert why in capsys.readouterr().err


def test_the_replies_are_read_back_from_a_transcript() -> None:
    messages = [
        Message("user", "Implement it."),
        Message("assistant", "a.py\n```\n[x]\n\nsecond paragraph\n```"),
        Message("tool", "applied"),
        Message("assistant", ""),
        Message("user", "The tests printed this:\n\n[assistant] no"),
        Message("assistant", "fixed"),
    ]
    assert replay.replies(transcript(messages)) == [
        "a.py\n```\n[x]\n\nsecond paragraph\n```",
        "",
        "fixed",
    ]
