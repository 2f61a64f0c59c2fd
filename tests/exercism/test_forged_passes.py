"""Wrong solutions that go after the tests instead of the exercise: each one, run through the
benchmark's own test runner in the sandbox, is a failure, and says why when its tests exited
with status 0. Runs on an exercise that ships with the tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from exercism import Exercise, load, run_tests, testrun
from sandbox import SandboxError, get_sandbox
from tests.harness_faults import fallback_kind

PRACTICE = Path(__file__).resolve().parent / "practice"
WRONG = "def initials(name):\n    return ''\n"

ATTACKS = {
    "the test method is never called": """
import unittest
unittest.TestCase._callTestMethod = lambda self, method: None
""",
    "every assertion is a no-op": """
import unittest
for name in dir(unittest.TestCase):
    if name.startswith(("assert", "fail")):
        setattr(unittest.TestCase, name, lambda *args, **kwargs: None)
""",
    "pytest's report says passed": """
import _pytest.reports
made = _pytest.reports.TestReport.from_item_and_call.__func__
def passing(cls, item, call):
    report = made(cls, item, call)
    report.outcome, report.longrepr = "passed", None
    return report
_pytest.reports.TestReport.from_item_and_call = classmethod(passing)
""",
    "unittest.TestCase swapped before the tests subclass it": """
import unittest
class Lenient(unittest.TestCase):
    def __getattribute__(self, name):
        if name.startswith("assert"):
            return lambda *args, **kwargs: None
        return super().__getattribute__(name)
unittest.TestCase = Lenient
""",
    "AssertionError swapped for what unittest swallows": """
import builtins, unittest
class Swallowed(unittest.case._ShouldStop):
    pass
builtins.AssertionError = Swallowed
unittest.TestCase.failureException = Swallowed
""",
    "an exit hook forges the report and exits 0": """
import atexit, os
NAMES = ("test_two_words", "test_hyphenated_name", "test_extra_spaces")
CASES = "".join(
    f'<testcase classname="initials_test.InitialsTest" name="{name}" time="0.001"/>'
    for name in NAMES
)
def forge():
    with open(".coder-junit.xml", "w") as report:
        report.write(f'<testsuites><testsuite name="pytest">{CASES}</testsuite></testsuites>')
    os._exit(0)
atexit.register(forge)
""",
    "a str equal to everything": """
class Anything(str):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = str.__hash__
def initials(name):
    return Anything("")
""",
    "answers read from the test file beside it": """
import os, re
here = os.path.dirname(os.path.abspath(__file__))
def initials(name):
    with open(os.path.join(here, "initials_test.py")) as tests:
        answers = dict(re.findall(r'initials\\("([^"]*)"\\), "([^"]*)"', tests.read()))
    return answers[name]
""",
}
DISABLED = (
    "the test method is never called",
    "every assertion is a no-op",
    "pytest's report says passed",
    "unittest.TestCase swapped before the tests subclass it",
    "AssertionError swapped for what unittest swallows",
)


def _kinds() -> list:
    try:
        get_sandbox("bwrap")
        kinds: list = ["bwrap"]
    except SandboxError as exc:
        kinds = [pytest.param("bwrap", marks=pytest.mark.skip(reason=str(exc)))]
    return [*kinds, fallback_kind()]


@pytest.fixture(scope="module")
def exercise() -> Exercise:
    return load(PRACTICE / "initials")


@pytest.mark.parametrize("kind", _kinds())
@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_solution_that_defeats_the_tests_fails(
    exercise: Exercise, attack: str, kind: str
) -> None:
    code = ATTACKS[attack] + ("" if "def initials" in ATTACKS[attack] else WRONG)
    setup = testrun.TestSetup(sandbox=get_sandbox(kind))
    run = run_tests(exercise, {"initials.py": code}, setup)
    assert not run.passed, run.output
    if attack in DISABLED:
        assert "the tests' own checks were disabled" in run.output


def test_the_reference_solution_still_passes_and_prints_no_canary(exercise: Exercise) -> None:
    run = run_tests(exercise, exercise.example_solution())
    assert run.passed, run.output
    assert run.output.endswith("3 passed")


def test_a_failing_test_shows_its_line_though_the_file_is_emptied(exercise: Exercise) -> None:
    run = run_tests(exercise, {"initials.py": WRONG})
    assert not run.passed
    assert 'self.assertEqual(initials("ada lovelace"), "AL")' in run.output
    assert "???" not in run.output
