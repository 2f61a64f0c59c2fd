"""Exercism exercises: load them, run their tests, clean the test output. No model."""

from exercism.exercise import Exercise, ExerciseError, copy_to, discover, load
from exercism.testrun import TestRun, TestSetup, clean, run_tests, solution_of

__all__ = [
    "Exercise",
    "ExerciseError",
    "TestRun",
    "TestSetup",
    "clean",
    "copy_to",
    "discover",
    "load",
    "run_tests",
    "solution_of",
]
