"""Loading exercises and running their tests, against the real exercise folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from exercism import exercise, testrun
from sandbox import Limits

PRACTICE = Path(__file__).resolve().parents[3] / "shared" / "exercism-python" / "practice"
needs_exercises = pytest.mark.skipif(not PRACTICE.is_dir(), reason=f"{PRACTICE} is not there")


@pytest.fixture
def two_fer() -> exercise.Exercise:
    return exercise.load(PRACTICE / "two-fer")


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
    stub = (two_fer.folder / "two_fer.py").read_text()
    first = testrun.run_tests(two_fer, {"two_fer.py": stub})
    assert not first.passed and "FAILED" in first.output
    assert testrun.run_tests(two_fer, two_fer.example_solution()).passed


@needs_exercises
def test_output_is_the_same_from_run_to_run(two_fer) -> None:
    stub = {"two_fer.py": (two_fer.folder / "two_fer.py").read_text()}
    outputs = {testrun.run_tests(two_fer, stub).output for _ in range(2)}
    assert len(outputs) == 1
    assert "/tmp/" not in outputs.pop()


@needs_exercises
def test_a_hanging_solution_is_stopped(two_fer) -> None:
    spin = {"two_fer.py": "def two_fer(name='you'):\n    while True:\n        pass\n"}
    setup = testrun.TestSetup(limits=Limits(seconds=3))
    run = testrun.run_tests(two_fer, spin, setup)
    assert run.timed_out and not run.passed
    assert "passed the limit on wall time" in run.output


@needs_exercises
def test_the_tests_do_not_see_the_users_secrets(two_fer, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-canary")
    leak = (
        "import os\n\ndef two_fer(name='you'):\n"
        "    return os.environ.get('OPENAI_API_KEY', 'none')\n"
    )
    run = testrun.run_tests(two_fer, {"two_fer.py": leak})
    assert "sk-secret-canary" not in run.output and "none" in run.output


@needs_exercises
def test_a_secret_printed_anyway_is_redacted(two_fer) -> None:
    printed = "print('sk-secret-canary')\n\ndef two_fer(name='you'):\n    return 1\n"
    setup = testrun.TestSetup(secrets=("sk-secret-canary",))
    run = testrun.run_tests(two_fer, {"two_fer.py": printed}, setup)
    assert "sk-secret-canary" not in run.output


@needs_exercises
@pytest.mark.parametrize(
    "forgery",
    [
        "import os\nos._exit(0)\n",
        "import sys\nsys.exit(0)\n",
        "import unittest\n\ndef two_fer(name='you'):\n    raise unittest.SkipTest('no')\n",
        "import atexit, os\natexit.register(lambda: os._exit(0))\ndef two_fer(name='you'):\n"
        "    return 1\n",
        "open('.coder-junit.xml', 'w').write('<testsuite><testcase classname=\"a.B\" name=\"t\"/>"
        "</testsuite>')\nimport os\nos._exit(0)\n",
    ],
    ids=["exit-at-import", "sys-exit", "skip-every-test", "exit-0-at-the-end", "forged-report"],
)
def test_a_forged_pass_counts_as_a_failure(two_fer, forgery: str) -> None:
    assert not testrun.run_tests(two_fer, {"two_fer.py": forgery}).passed


@needs_exercises
def test_a_skipped_test_of_the_pristine_file_does_not_count() -> None:
    alphametics = exercise.load(PRACTICE / "alphametics")
    assert testrun.run_tests(alphametics, alphametics.example_solution()).passed


def test_clean_removes_timings_and_paths(tmp_path: Path) -> None:
    raw = f"FAILED {tmp_path}/x_test.py::test_a\n1 failed, 2 passed in 0.12s\nat 0xdeadbeef12"
    assert (
        testrun.clean(raw, tmp_path) == "FAILED ./x_test.py::test_a\n1 failed, 2 passed\nat 0x..."
    )
