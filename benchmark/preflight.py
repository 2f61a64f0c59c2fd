"""The harness checks itself before any model is asked anything: the sandbox starts, the test
runner starts inside it, and a reference solution passes its tests there. A harness that fails
this would score every exercise as the model's failure, so the run stops instead."""

from __future__ import annotations

from collections.abc import Sequence

from exercism import Exercise, HarnessError, TestSetup, run_tests

OUTPUT_LINES = 20
"""Lines of the reference solution's test output quoted when it fails."""


def check(exercises: Sequence[Exercise], setup: TestSetup) -> None:
    """Run the first selected exercise that has a reference solution on it, as every test run
    of the benchmark runs; HarnessError with the sandbox's or the toolchain's own words when
    the tests could not run or that solution failed them."""
    exercise = next((e for e in exercises if e.example_files), None)
    if exercise is None:
        # Nothing known to pass: the stubs' tests must at least run.
        run_tests(exercises[0], {}, setup)
        return
    try:
        solution = exercise.example_solution()
    except (OSError, UnicodeDecodeError) as exc:
        raise HarnessError(
            f"cannot read the reference solution of {exercise.name}: {exc}"
        ) from None
    run = run_tests(exercise, solution, setup)
    if not run.passed:
        shown = "\n".join(run.output.splitlines()[-OUTPUT_LINES:])
        raise HarnessError(
            f"the reference solution of {exercise.name} fails its tests in the"
            f" {setup.sandbox.kind if setup.sandbox else 'default'} sandbox, so no result of"
            f" this run could be trusted:\n{shown}"
        )
