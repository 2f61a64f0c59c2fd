"""`benchmark --stats`: the charts, the nondeterminism of repeats, tables that fit, the grid."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from benchmark import cli, determinism
from tests.coder.fake_openai import FakeOpenAI, Text

PRACTICE = Path(__file__).resolve().parents[3] / "shared" / "exercism-python" / "practice"
needs_exercises = pytest.mark.skipif(not PRACTICE.is_dir(), reason=f"{PRACTICE} is not there")
SMALL = Path(__file__).resolve().parents[1] / "exercism" / "practice"
"""Two small exercises that ship with the tests, for what needs exercises but not those."""


def bench(tmp_path: Path, *args: str) -> list[Path]:
    """Run the benchmark; the run folders it made, in name order."""
    runs = tmp_path / "runs"
    common = ["--exercises-dir", str(PRACTICE), "--runs-dir", str(runs), "--quiet"]
    assert cli.main([*common, *args]) == 0
    return sorted(p for p in runs.iterdir() if (p / "summary.json").exists())


def stats(capsys, *args: str) -> str:
    capsys.readouterr()
    assert cli.main(["--stats", *args]) == 0
    return capsys.readouterr().out


@needs_exercises
def test_the_chart_of_a_wrong_then_right_run_with_repeats(tmp_path: Path, capsys) -> None:
    runs = bench(tmp_path, "--model", "oracle-retry", "--repeat", "2", "--num-tests", "2")
    svg = tmp_path / "chart.svg"
    out = stats(capsys, *map(str, runs), "--chart", str(svg))
    text = svg.read_text()
    # The values are text on the bars: 0.0 after try 1, 100.0 after try 2.
    assert ">0.0</text>" in text and ">100.0</text>" in text
    for words in (
        "passed at try 1",
        "passed only at a later try (by try 2)",
        "2 exercises",
        "2 repeats",
        "oracle-retry",
    ):
        assert words in text
    assert "Pass rates by model and edit format" in text
    # A path longer than the terminal is folded onto an indented line.
    assert f"chart: {svg}" in out.replace("\n    ", "")
    assert (tmp_path / "chart-spread.svg").exists()
    png = tmp_path / "chart.png"
    stats(capsys, *map(str, runs), "--chart", str(png))
    assert png.read_bytes().startswith(b"\x89PNG") and not (tmp_path / "chart.svg.png").exists()
    assert (tmp_path / "chart-spread.png").read_bytes().startswith(b"\x89PNG")


@needs_exercises
def test_a_deterministic_model_repeats_with_no_differing_reply(tmp_path: Path, capsys) -> None:
    runs = bench(tmp_path, "--model", "oracle", "--repeat", "2", "--num-tests", "2")
    out = stats(capsys, *map(str, runs), "--chart", str(tmp_path / "c.png"))
    assert "oracle / diff, 2 run(s): 2 requests sent more than once (4 sends), 0 with" in out
    assert "flips (passed in some repeats only): none" in out


def two_fer_server(right: str) -> FakeOpenAI:
    """A provider that answers the first request with the right solution and every later one,
    the same request included, with a wrong one."""
    wrong = 'def two_fer(name="you"):\n    return "wrong"\n'

    def answer(body: dict) -> Text:
        first = server.requests[0] is body
        return Text(f"two_fer.py\n```python\n{right if first else wrong}```\n")

    server = FakeOpenAI(answer)
    return server


@needs_exercises
def test_a_provider_that_answers_a_repeat_differently(tmp_path: Path, capsys) -> None:
    right = (PRACTICE / "two-fer" / ".meta" / "example.py").read_text()
    with two_fer_server(right) as server:
        runs = bench(
            tmp_path,
            *("--model", "openai/fake-model", "--api-base", server.base_url),
            *("--edit-format", "whole", "--keywords", "two-fer", "--repeat", "2"),
        )
    assert not server.rejected
    out = stats(capsys, *map(str, runs), "--chart", str(tmp_path / "c.svg"))
    joined = " ".join(out.split())
    assert (
        "fake-model / whole, 2 run(s): 1 requests sent more than once (2 sends), 1 with"
        " different replies (in two-fer)"
    ) in joined
    assert "flips (passed in some repeats only): two-fer (1 of 2)" in joined
    records = [
        json.loads((run / "results" / "two-fer.json").read_text())["requests"] for run in runs
    ]
    kinds = sorted([(r["kind"], r["temperature"]) for rs in records for r in rs])
    assert kinds == [("edit", 0.0), ("edit", 0.0), ("retry", 0.0)]


def fake_run(root: Path, name: str, model: str, outcomes: dict[str, bool]) -> Path:
    run = root / name
    (run / "results").mkdir(parents=True)
    rate = 100 * sum(outcomes.values()) / len(outcomes)
    summary = {"model": model, "edit_format": "diff", "selected": 2, "completed": 2}
    summary |= {"percent_well_formed": 50.0, "pass_rate_1": rate, "pass_rate_2": rate}
    summary |= {"rtc_mean_score": 0.5, "rtc_mean_lift": 0.1, "rtc_pass_rate": 50.0}
    summary |= {"rtc_remakes_passing": "1/2"}
    (run / "summary.json").write_text(json.dumps(summary))
    for exercise, passed in outcomes.items():
        result = {"exercise": exercise, "tests_outcomes": [passed]}
        (run / "results" / f"{exercise}.json").write_text(json.dumps(result))
    return run


def test_no_stats_line_is_wider_than_an_80_column_terminal(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    long = "openrouter/anthropic/claude-3.5-sonnet-20241022-with-a-very-long-suffix-indeed"
    runs = [
        fake_run(tmp_path, f"2026-11-23--{long.replace('/', '-')}--diff--r{n}", long, outcomes)
        for n, outcomes in ((1, {"a": True, "b": False}), (2, {"a": False, "b": False}))
    ]
    out = stats(capsys, *map(str, runs), "--chart", str(tmp_path / "c.svg"))
    assert max(len(line) for line in out.splitlines()) <= 80
    # The full names are in the legends, folded across lines where they must be.
    unfolded = out.replace("\n", "")
    assert long in unfolded and runs[0].name in unfolded
    assert "a (1 of 2)" in out


def test_stats_refuses_a_chart_of_another_kind_and_unfinished_runs(tmp_path: Path, capsys) -> None:
    run = fake_run(tmp_path, "run", "m", {"a": True})
    assert cli.main(["--stats", str(run), "--chart", str(tmp_path / "c.pdf")]) == 2
    assert "--chart takes a .png or .svg file" in capsys.readouterr().err
    assert cli.main(["--stats", str(run), str(tmp_path / "nothing")]) == 2
    assert "not a finished run" in capsys.readouterr().err
    assert not list(tmp_path.glob("c.*"))


@needs_exercises
def test_a_grid_of_models_and_formats_in_one_command(tmp_path: Path, capsys) -> None:
    runs = bench(
        tmp_path,
        *("--model", "oracle", "oracle-retry", "--edit-format", "diff", "whole"),
        *("--num-tests", "1", "--threads", "2"),
    )
    assert [r.name.split("--", 1)[1] for r in runs] == [
        "oracle--diff",
        "oracle--whole",
        "oracle-retry--diff",
        "oracle-retry--whole",
    ]
    out = capsys.readouterr().out
    # After the runs, the grid side by side.
    assert "oracle-retry / whole: 100.0" in out and "oracle / diff: 100.0" in out
    formats = {json.loads((r / "summary.json").read_text())["edit_format"] for r in runs}
    assert formats == {"diff", "whole"}


def test_unknown_edit_format_in_a_grid_is_refused_before_any_run(tmp_path: Path, capsys) -> None:
    argv = ["--exercises-dir", str(SMALL), "--runs-dir", str(tmp_path / "runs")]
    assert cli.main([*argv, "--edit-format", "diff", "dif"]) == 2
    assert "unknown --edit-format dif; choose from" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_flips_count_errors_as_failures_and_older_records_apart() -> None:
    one = [{"exercise": "a", "tests_outcomes": [True]}, {"exercise": "b", "tests_outcomes": [True]}]
    two = [
        {"exercise": "a", "tests_outcomes": [], "error": "ModelError: down"},
        {
            "exercise": "b",
            "tests_outcomes": [False, True],
            "hashes": [{"request": "x", "reply": "y"}],
        },
    ]
    found = determinism.repeats([one, two])
    assert found.flips == {"a": (1, 2)}
    assert found.unknown == 1 and found.repeated == 0
    assert determinism.passes_per_exercise([one, two]) == [1, 2]


def test_only_temperature_0_edits_retries_and_reflections_are_watched() -> None:
    def result(*records: tuple[str, float, str]) -> dict:
        calls = [
            {"kind": k, "temperature": t, "request": "r-" + k, "reply": r} for k, t, r in records
        ]
        return {"exercise": "e", "tests_outcomes": [True], "requests": calls}

    one = result(("edit", 0.0, "a"), ("candidate", 0.7, "a"), ("selector", 0.0, "a"))
    two = result(("edit", 0.0, "a"), ("candidate", 0.7, "b"), ("selector", 0.0, "b"))
    found = determinism.repeats([[one], [two]])
    assert (found.repeated, found.sends, found.varied) == (1, 2, 0)
    three = result(("edit", 0.0, "c"), ("reflection", 0.0, None))
    found = determinism.repeats([[one], [two], [three]])
    assert (found.repeated, found.sends, found.varied, found.varied_in) == (1, 3, 1, ["e"])


@needs_exercises
def test_runs_of_different_settings_are_not_repeats_and_a_run_twice_counts_once(
    tmp_path: Path, capsys
) -> None:
    plain = bench(tmp_path / "a", "--model", "oracle", "--num-tests", "2")[0]
    reference = bench(tmp_path / "b", "--model", "oracle", "--num-tests", "2", "--rtc-reference")
    out = stats(
        capsys, str(plain), str(plain), str(reference[0]), "--chart", str(tmp_path / "c.png")
    )
    assert "flips" not in out  # no model and variant has two runs
    assert "oracle / diff, 1 run(s)" in out and "oracle / diff +rtc-ref, 1 run(s)" in out
    legend = [line.split()[-1] for line in out.splitlines() if line.startswith("  ")]
    assert legend.count(plain.name) == 1 and len(re.findall(r"(?m)^\d+ .* 2/2$", out)) == 2


def test_a_summary_that_is_not_one_is_a_clear_error(tmp_path: Path, capsys) -> None:
    run = fake_run(tmp_path, "run", "m", {"a": True})
    for text in ("{not json", "[]", '{"model": "m"}'):
        (run / "summary.json").write_text(text)
        assert cli.main(["--stats", str(run)]) == 2
        assert "is not a benchmark run's summary" in capsys.readouterr().err or text == "{not json"
    run = fake_run(tmp_path, "other", "m", {"a": True})
    (run / "results" / "a.json").write_text("{")
    assert cli.main(["--stats", str(run)]) == 2
    assert "cannot read" in capsys.readouterr().err
    good = fake_run(tmp_path, "good", "m", {"a": True})
    assert cli.main(["--stats", str(good), "--chart", str(tmp_path / "nowhere" / "c.png")]) == 2
    assert cli.main(["--stats", str(good), "--chart", str(tmp_path / "Out.PNG")]) == 0
    assert (tmp_path / "Out.PNG").read_bytes().startswith(b"\x89PNG")


def test_wide_characters_and_look_alike_names_fit_and_stay_apart(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    names = [
        "模型" * 20,
        "openrouter/anthropic/claude-3-5-sonnet-20241022-extended",
        "bedrock/anthropic/claude-3-5-sonnet-20241022-extended",
    ]
    runs = [fake_run(tmp_path, f"r{n}", name, {"a": True}) for n, name in enumerate(names)]
    out = stats(capsys, *map(str, runs), "--chart", str(tmp_path / "c.svg"))
    from rich.cells import cell_len

    assert max(cell_len(line) for line in out.splitlines()) <= 80
    shown = re.findall(r"(?m)^[123] +(\S+)", out)
    assert len(set(shown)) == 3, shown


@needs_exercises
def test_an_empty_selection_is_refused(tmp_path: Path, capsys) -> None:
    argv = ["--exercises-dir", str(PRACTICE), "--runs-dir", str(tmp_path / "runs")]
    assert cli.main([*argv, "--keywords", "zzzz", "--model", "oracle", "oracle-retry"]) == 2
    assert "no exercise" in capsys.readouterr().err and not (tmp_path / "runs").exists()


@needs_exercises
def test_an_exercise_that_cannot_run_is_an_error_and_the_others_are_saved(tmp_path: Path) -> None:
    import shutil

    exercises = tmp_path / "exercises"
    for name in ("two-fer", "leap", "hello-world"):
        shutil.copytree(PRACTICE / name, exercises / name)
    (exercises / "leap" / ".meta" / "example.py").unlink()  # the oracle has nothing to answer
    runs = tmp_path / "runs"
    argv = ["--exercises-dir", str(exercises), "--runs-dir", str(runs), "--quiet"]
    assert cli.main([*argv, "--threads", "2"]) == 0
    (summary,) = runs.glob("*/summary.json")
    figures = json.loads(summary.read_text())
    assert figures["selected"] == 3 and figures["errors"] == 1 and figures["completed"] == 2
    leap = json.loads((summary.parent / "results" / "leap.json").read_text())
    assert leap["error"] and leap["tests_outcomes"] == []
