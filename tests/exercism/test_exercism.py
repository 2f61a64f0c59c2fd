"""Loading exercises and running their tests, against the real exercise folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from exercism import exercise, testrun

PRACTICE = Path(__file__).resolve().parents[3] / "shared" / "exercism-python" / "practice"
needs_exercises = pytest.mark.skipif(not PRACTICE.is_dir(), reason=f"{PRACTICE} is not there")


@pytest.fixture
def two_fer(tmp_path: Path) -> tuple[exercise.Exercise, Path]:
    ex = exercise.load(PRACTICE / "two-fer")
    return ex, exercise.copy_to(ex, tmp_path / "work")


@needs_exercises
def test_every_exercise_loads() -> None:
    exercises = exercise.discover(PRACTICE)
    assert len(exercises) == 140
    for ex in exercises:
        assert ex.instructions and ex.solution_files and ex.test_files
        assert len(ex.example_solution()) == len(ex.solution_files)


@needs_exercises
def test_discover_filters_by_keyword() -> None:
    names = [ex.name for ex in exercise.discover(PRACTICE, keywords=("resistor",), limit=2)]
    assert names == ["resistor-color", "resistor-color-duo"]


@needs_exercises
def test_the_stub_fails_and_the_example_passes(two_fer) -> None:
    ex, work = two_fer
    assert not (work / ".meta").exists()
    first = testrun.run_tests(ex, work)
    assert not first.passed and "FAILED" in first.output
    for name, text in ex.example_solution().items():
        (work / name).write_text(text)
    assert testrun.run_tests(ex, work).passed


@needs_exercises
def test_output_is_the_same_from_run_to_run(two_fer) -> None:
    ex, work = two_fer
    outputs = {testrun.run_tests(ex, work).output for _ in range(2)}
    assert len(outputs) == 1
    assert str(work) not in outputs.pop()


@needs_exercises
def test_a_hanging_solution_times_out(two_fer) -> None:
    ex, work = two_fer
    (work / "two_fer.py").write_text("def two_fer(name='you'):\n    while True:\n        pass\n")
    run = testrun.run_tests(ex, work, timeout=3)
    assert run.timed_out and not run.passed
    assert "did not finish within 3 seconds" in run.output


@needs_exercises
def test_the_tests_do_not_see_the_users_secrets(two_fer, monkeypatch) -> None:
    ex, work = two_fer
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    (work / "two_fer.py").write_text(
        "import os\n\ndef two_fer(name='you'):\n"
        "    return os.environ.get('OPENAI_API_KEY', 'none')\n"
    )
    run = testrun.run_tests(ex, work)
    assert "sk-secret" not in run.output and "none" in run.output


@needs_exercises
def test_restore_tests_undoes_changes_to_the_tests(two_fer) -> None:
    ex, work = two_fer
    (work / "two_fer_test.py").write_text("# emptied\n")
    exercise.restore_tests(ex, work)
    assert (work / "two_fer_test.py").read_text() == (ex.folder / "two_fer_test.py").read_text()


def test_clean_removes_timings_and_paths(tmp_path: Path) -> None:
    raw = f"FAILED {tmp_path}/x_test.py::test_a\n1 failed, 2 passed in 0.12s\nat 0xdeadbeef12"
    assert (
        testrun.clean(raw, tmp_path) == "FAILED ./x_test.py::test_a\n1 failed, 2 passed\nat 0x..."
    )
