"""The harness checks itself before any model is asked anything: for each language of the run,
the sandbox starts, the toolchain and the test runner start inside it, and a reference
solution passes its tests there. A harness that fails this would score every exercise as the
model's failure, so the run stops instead."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from exercism import Exercise, HarnessError, TestSetup, run_tests
from exercism.testrun import default_sandbox
from sandbox import Limits

TRIES = 3
"""Reference solutions tried at most: one that fails may be the exercise's fault, not the
harness's; three that fail are not."""
OUTPUT_LINES = 20
"""Lines of a failing reference solution's test output quoted."""


def check(exercises: Sequence[Exercise], setup: TestSetup) -> list[str]:
    """check_language() for each language of the exercises, in their order; the warnings of
    all."""
    languages = dict.fromkeys(e.language for e in exercises)
    return [
        warning
        for language in languages
        for warning in check_language([e for e in exercises if e.language == language], setup)
    ]


def check_language(exercises: Sequence[Exercise], setup: TestSetup) -> list[str]:
    """Run the reference solutions of the first selected exercises that have one, as every
    test run of the benchmark runs, until one passes; HarnessError with the sandbox's or the
    toolchain's own words when the tests could not run, or when every solution tried failed.
    Returns a warning for each exercise whose reference solution failed before one passed."""
    with_reference = [e for e in exercises if e.example_files][:TRIES]
    if not with_reference:
        # Nothing known to pass: the stubs' tests must at least run.
        run_tests(exercises[0], {}, setup)
        return []
    failures: list[tuple[str, str]] = []
    for exercise in with_reference:
        try:
            solution = exercise.example_solution()
        except (OSError, UnicodeDecodeError) as exc:
            failures.append((exercise.name, f"its reference solution cannot be read: {exc}"))
            continue
        run = run_tests(exercise, solution, setup)
        if run.passed:
            return [
                f"the reference solution of {name} fails here ({why.splitlines()[0]}), so no"
                " model can pass it: the exercise, or what its tests need, is at fault"
                for name, why in failures
            ]
        shown = "\n".join(run.output.splitlines()[-OUTPUT_LINES:])
        failures.append((exercise.name, f"its tests fail:\n{shown}"))
    names = ", ".join(name for name, _ in failures)
    raise HarnessError(
        f"the reference solutions of {names} all fail their tests here, so no result of this"
        f" run could be trusted. The first: {failures[0][1]}"
    )


def exposed(exercises: Sequence[Exercise], setup: TestSetup) -> list[str]:
    """A warning when a test run can read a reference solution where it lies (the sandbox
    does not hide the exercises folder: the fallback's does not), found by trying it in the
    sandbox; none when it cannot, or no exercise has one."""
    reference = next((e.folder / f for e in exercises for f in e.example_files), None)
    if reference is None:
        return []
    sandbox = setup.sandbox or default_sandbox()
    with tempfile.TemporaryDirectory(prefix="coder-preflight-") as scratch:
        folder = Path(scratch) / "probe"
        folder.mkdir()
        command = ["cat", str(reference.resolve())]
        run = sandbox.run(command, folder, Limits(seconds=30), {"PATH": "/usr/bin:/bin"})
    if run.status != 0 or not run.output:
        return []
    return [
        f"the tests can read the exercises' reference solutions ({reference.resolve()}) in"
        f" the {sandbox.kind} sandbox, so a solution could copy them: keep the exercises where"
        " no other user may read them (chmod -R o-rwx), with coder run as root, or use"
        " bubblewrap"
    ]
