"""Exercism exercises: load them, run their tests, clean the test output. No model."""

from exercism.exercise import Exercise, ExerciseError, copy_to, discover, load
from exercism.testrun import (
    HarnessError,
    TestRun,
    TestSetup,
    clean,
    pytest_command,
    run_tests,
    solution_of,
)

__all__ = [
    "Exercise",
    "ExerciseError",
    "HarnessError",
    "TestRun",
    "TestSetup",
    "clean",
    "copy_to",
    "discover",
    "load",
    "pytest_command",
    "run_tests",
    "solution_of",
]
