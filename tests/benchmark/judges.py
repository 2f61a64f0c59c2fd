"""A stand-in for the harness's judge of tampering, for tests of what the benchmark does with
its verdict: exercism's own judge decides what tampering is, and has tests of its own."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from exercism import Exercise, TestRun, TestSetup, run_tests

CLAIM = "Tests: 23 passed, 23 total"
"""What a tampering solution makes its tests' run print: a success it did not earn."""


@dataclass(frozen=True)
class FakeJudge:
    """exercism's run_tests, except that a solution holding `sign` is caught tampering (its
    run fails, saying `seen`); every other solution is tested for real."""

    sign: str = "# print the summary at exit"
    seen: str = "a status written after the last test"

    def __call__(
        self, exercise: Exercise, solution: Mapping[str, str], setup: TestSetup | None = None
    ) -> TestRun:
        if any(self.sign in text for text in solution.values()):
            return TestRun(False, f"{CLAIM}\n", tampering=self.seen)
        return run_tests(exercise, solution, setup)
