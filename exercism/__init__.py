"""Exercism exercises in six languages: load them, run their tests, clean the test output.
No model."""

from exercism.exercise import Exercise, ExerciseError, copy_to, discover, layout, load
from exercism.languages import LANGUAGES, Language, get_language
from exercism.pytests import pytest_command
from exercism.testrun import (
    HarnessError,
    TestRun,
    TestSetup,
    clean,
    count_tests,
    run_tests,
    solution_of,
)
from exercism.toolchain import ToolchainMissing

__all__ = [
    "LANGUAGES",
    "Exercise",
    "ExerciseError",
    "HarnessError",
    "Language",
    "TestRun",
    "TestSetup",
    "clean",
    "copy_to",
    "count_tests",
    "discover",
    "get_language",
    "layout",
    "load",
    "pytest_command",
    "run_tests",
    "solution_of",
    "ToolchainMissing",
]
