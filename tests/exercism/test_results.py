"""Counting a pass (exercism/results.py): the run's report read between the driver's markers and
up to the runner's `done`, and each way a run can fall short of the reference solution's tests:
an ordinary failure, or tampering when the tests were changed or the run claimed success."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exercism.language import Expected
from exercism.results import Results, count, expected_of, read

EXPECTED = Expected({"a": 1, "b": 1, "c": 2})


def _stream(*lines: str, step: int = 0, status: int | None = 0) -> str:
    end = [] if status is None else [f"@@coder end {step} {status}"]
    return "\n".join(["R", f"@@coder step {step}", *lines, *end, ""])


def _cases(*pairs: str) -> tuple[str, ...]:
    return tuple(f"case {pair}" for pair in pairs)


ALL_PASS = _cases("passed a", "passed b", "passed c", "passed c")


def test_only_the_reporting_steps_lines_count_and_none_after_done() -> None:
    stream = "\n".join(
        [
            "R",
            "@@coder step 0",
            "case passed x",
            "@@coder end 0 0",
            "@@coder step 1",
            *ALL_PASS,
            "done",
            "case passed extra",
            "@@coder end 1 0",
            "case failed a",
        ]
    )
    found = read(stream, "lines", 1)
    assert found.done and found.status == 0
    assert [name for name, _ in found.cases] == ["a", "b", "c", "c"]
    assert count(found, EXPECTED, 0).passed


def test_libtests_log_lines_are_read_as_cases() -> None:
    found = read(_stream("ok tests::a", "failed b", "ignored c", "running 3 tests"), "libtest", 0)
    assert found.cases == (("tests::a", "passed"), ("b", "failed"), ("c", "skipped"))


def test_every_expected_test_passing_as_often_is_a_pass() -> None:
    assert count(read(_stream(*ALL_PASS), "lines", 0), EXPECTED, 0).passed


def test_a_pass_needs_exit_status_0() -> None:
    verdict = count(read(_stream(*ALL_PASS, status=1), "lines", 0), EXPECTED, 1)
    assert not verdict.passed and verdict.tampering is None


@pytest.mark.parametrize(
    ("lines", "status", "seen"),
    [
        (("case skipped a", "case passed b", "case passed c", "case passed c"), 0, "skipped"),
        (("case aborted a", "case passed b", "case passed c", "case passed c"), 1, "aborted"),
        ((*ALL_PASS, "case passed zzz"), 0, "not the exercise's"),
        (("case failed a", "case passed b", "case passed c", "case passed c"), 0, "status 0"),
        (("case passed a", "case passed b", "case passed c"), 0, "never ran"),
        (("case passed a", "done"), 0, "never ran"),
        ((*ALL_PASS, "tamper expect was replaced"), 0, "expect was replaced"),
    ],
)
def test_tests_changed_or_success_claimed_over_them_is_tampering(lines, status, seen) -> None:
    verdict = count(read(_stream(*lines, status=status), "lines", 0), EXPECTED, status)
    assert not verdict.passed and verdict.tampering and seen in verdict.tampering


@pytest.mark.parametrize(
    ("lines", "status"),
    [
        (("case failed a", "case passed b", "case passed c", "case passed c"), 1),
        (("case passed a",), 134),  # a crash: the rest never ran
        ((), None),  # stopped at a limit
        (("error SomeTest",), 1),  # a test class that did not load
    ],
)
def test_failures_crashes_and_limits_are_ordinary_failures(lines, status) -> None:
    verdict = count(read(_stream(*lines, status=status), "lines", 0), EXPECTED, status)
    assert not verdict.passed and verdict.tampering is None


def test_what_the_reference_reports_is_what_every_run_must() -> None:
    found = read(_stream(*ALL_PASS, "case skipped d"), "lines", 0)
    assert expected_of(found, 0) == Expected({"a": 1, "b": 1, "c": 2}, frozenset({"d"}))
    failing = read(_stream("case failed a", *ALL_PASS), "lines", 0)
    assert expected_of(failing, 1) is None and expected_of(Results(), 0) is None
    assert expected_of(found, 1) is None
    none = read(_stream("done"), "lines", 0)  # an exercise without tests
    assert expected_of(none, 0) == Expected() and count(none, Expected(), 0).passed


@given(st.text(max_size=2000), st.integers(0, 3))
def test_any_report_is_read_without_error(stream: str, step: int) -> None:
    found = read(stream, "lines", step)
    verdict = count(found, EXPECTED, 0)
    assert verdict.passed in (True, False)
