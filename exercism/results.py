"""A pass counted, never claimed: each test case as the runner reported it while the tests ran
(relayed by the driver on the run's report, exercism/driver.py), compared with the cases the
reference solution's run reports. A closing line or an exit status alone never makes a pass,
and what the run reports after its runner said it was done does not count."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from exercism.language import Expected, Verdict

PASSED, FAILED, SKIPPED, ABORTED = "passed", "failed", "skipped", "aborted"
LIBTEST = {"ok": PASSED, "failed": FAILED, "ignored": SKIPPED}
"""Rust's log lines (`ok NAME`) by their first word."""
MARK = "@@coder "
"""How the driver's own lines on the report begin (no relayed line does)."""
SHOWN = 3
"""Tests named at most in a reason."""


@dataclass(frozen=True)
class Results:
    """What one step's report said, in order, up to its runner's `done`."""

    cases: tuple[tuple[str, str], ...] = ()
    """(test, outcome) as each ended."""
    errors: tuple[str, ...] = ()
    """Failures outside any test (a test class that did not load, a file that did not run)."""
    tampering: tuple[str, ...] = ()
    """What the harness's own checks in the tests saw changed (a replaced assertion)."""
    done: bool = False
    """The runner said its run was over."""
    status: int | None = None
    """The step's exit status, as the driver saw it; None when it never ended."""


def read(stream: str, form: str, step: int) -> Results:
    """The results of step (an index of the steps) in the run's report, its lines read in
    form (see Report.form): only between the driver's markers of that step, and only up to
    the first `done`."""
    cases, errors, tampering = [], [], []
    done, status, state = False, None, "before"
    for line in stream.splitlines():
        if line.startswith(MARK):
            words = line[len(MARK) :].split()
            if state == "before" and words == ["step", str(step)]:
                state = "inside"
            elif state == "inside" and words[:2] == ["end", str(step)] and len(words) == 3:
                status = int(words[2]) if _integer(words[2]) else None
                state = "after"
            continue
        if state != "inside" or done:
            continue
        kind, outcome, name = _parsed(line, form)
        if kind == "case":
            cases.append((name, outcome))
        elif kind == "error":
            errors.append(name)
        elif kind == "tamper":
            tampering.append(name)
        elif kind == "done":
            done = True
    return Results(tuple(cases), tuple(errors), tuple(tampering), done, status)


def _integer(word: str) -> bool:
    return word.lstrip("-").isdigit()


def _parsed(line: str, form: str) -> tuple[str, str, str]:
    """(kind, outcome, name) of one relayed line; kind "" for a line that says nothing."""
    first, _, rest = line.partition(" ")
    if form == "libtest":
        outcome = LIBTEST.get(first)
        return ("case", outcome, rest.strip()) if outcome and rest.strip() else ("", "", "")
    if first == "case":
        outcome, _, name = rest.partition(" ")
        if outcome in (PASSED, FAILED, SKIPPED, ABORTED) and name:
            return "case", outcome, name
    elif first in ("error", "tamper"):
        return first, "", rest.strip()
    elif line.strip() == "done":
        return "done", "", ""
    return "", "", ""


def count(results: Results, expected: Expected, status: int | None) -> Verdict:
    """A pass when every expected test passed as often as for the reference, none was
    skipped, aborted or added, and the run exited 0; tampering when the report shows the tests
    changed, or the run claimed success (status 0) over tests that failed or never ran."""
    if results.tampering:
        return _tampered(results.tampering[0])
    outcomes = Counter(name for name, _ in results.cases)
    known = Counter(expected.passed) + Counter(expected.skipped)
    added = sorted((outcomes - known).keys())
    if added:
        return _tampered(f"tests that are not the exercise's ran ({_names(added)})")
    dropped = sorted(
        {n for n, o in results.cases if o in (SKIPPED, ABORTED) and n not in expected.skipped}
    )
    if dropped:
        return _tampered(f"tests were skipped or aborted ({_names(dropped)})")
    failed = [name for name, outcome in results.cases if outcome == FAILED]
    if failed or results.errors:
        if status == 0:
            return _tampered("tests failed, yet the run exited with status 0")
        return Verdict(False)
    passed = Counter(name for name, outcome in results.cases if outcome == PASSED)
    missing = sorted((Counter(expected.passed) - passed).keys())
    if missing and status == 0:
        return _tampered(
            f"{len(missing)} of the exercise's tests never ran ({_names(missing)}),"
            " yet the run exited with status 0"
        )
    if missing:
        return Verdict(False, f"{len(missing)} of the exercise's tests never ran")
    return Verdict(status == 0)


def _tampered(what: str) -> Verdict:
    return Verdict(False, f"the run tampered with its tests: {what}", tampering=what)


def _names(names: list[str]) -> str:
    """The first few names, JUnit's unique ids shortened to class/method."""
    short = [re.sub(r"\[[\w-]+:([^\]]*)\]", r"\1", n).removeprefix("junit-jupiter/") for n in names]
    shown = ", ".join(short[:SHOWN])
    return shown + (f" and {len(names) - SHOWN} more" if len(names) > SHOWN else "")


def expected_of(results: Results, status: int | None) -> Expected | None:
    """What a run of the reference solution says every run must report; None when it is no
    clean pass (a test failed, aborted or was changed, or the run did not exit 0), or when it
    reported no test without its runner saying its run was over (a reporter that never ran).
    An exercise without tests (Go's counter, which Exercism skips) then passes when its
    solution builds, as in aider's harness."""
    bad = (FAILED, ABORTED)
    if status != 0 or results.errors or results.tampering:
        return None
    if not results.cases and not results.done:
        return None
    if any(outcome in bad for _, outcome in results.cases):
        return None
    passed = Counter(name for name, outcome in results.cases if outcome == PASSED)
    skipped = frozenset(name for name, outcome in results.cases if outcome == SKIPPED)
    return Expected(dict(passed), skipped)
