"""Exercism exercises: load them, run their tests, clean the test output. No model."""

from exercism.exercise import Exercise, ExerciseError, copy_to, discover, load, restore_tests
from exercism.testrun import TestRun, clean, run_tests

__all__ = [
    "Exercise",
    "ExerciseError",
    "TestRun",
    "clean",
    "copy_to",
    "discover",
    "load",
    "restore_tests",
    "run_tests",
]
