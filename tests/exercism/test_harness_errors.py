"""Where the harness's part of a test run ends and the solution's begins: pytest is ready once
its session starts, with nothing of the run's folder loaded before; what fails before that is
a HarnessError, what fails after it is the solution's. Runs on the exercises that ship with
the tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from exercism import HarnessError, discover, load, pytest_command, run_tests
from sandbox import Limits, get_sandbox

PRACTICE = Path(__file__).resolve().parent / "practice"
ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}


def test_a_file_of_the_run_named_like_a_module_pytest_imports_is_not_loaded_first(
    tmp_path: Path,
) -> None:
    # pytest imports random (and json, string, ...) as it starts; a solution's own random.py
    # must not be the one it gets, or the solution could stop pytest before it is ready.
    (tmp_path / "random.py").write_text('raise SystemExit("the run\'s own random.py ran")\n')
    (tmp_path / "test_start.py").write_text("def test_it():\n    assert True\n")
    command = pytest_command("test_start.py")
    outcome = get_sandbox("auto").run(command, tmp_path, Limits(), ENV, ready=True)
    assert outcome.not_started is None and outcome.status == 0, outcome.output


def test_a_runner_that_cannot_start_is_the_harnesss_error(tmp_path: Path) -> None:
    # The exercise's own settings stop pytest before its session starts: not the solution's.
    shutil.copytree(PRACTICE / "initials", tmp_path / "initials")
    (tmp_path / "initials" / "pytest.ini").write_text("[pytest]\naddopts = --no-such-option\n")
    exercise = load(tmp_path / "initials")
    with pytest.raises(HarnessError, match="ended before it was ready") as raised:
        run_tests(exercise, exercise.example_solution())
    assert "unrecognized arguments: --no-such-option" in str(raised.value)


def test_a_solution_that_breaks_at_import_is_a_failed_run_not_a_harness_error() -> None:
    exercise = next(e for e in discover(PRACTICE) if e.name == "initials")
    for code in ("import os\nos._exit(1)\n", "raise SystemExit(0)\n", "def initials(:\n"):
        run = run_tests(exercise, {"initials.py": code})
        assert not run.passed
