"""The test driver's report (exercism/driver.py) through a real sandbox, with steps written here
in Python: the reporting step's own pipe relayed between the driver's markers, a forged marker
dropped, go test -json's events turned into cases with the failures' output printed, and the
run's own report never held by the tests."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from exercism.driver import Steps
from exercism.exercise import Exercise
from exercism.language import Language, Report
from exercism.results import read
from sandbox import Limits, SandboxError, get_sandbox

ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}


def _language(*steps: str, report: Report) -> Language:
    argv = tuple((sys.executable, "-c", code) for code in steps)
    return Language("fake", "Fake", "", "", (), "", steps=argv, report=report)


def _run(tmp_path: Path, kind: str, language: Language):
    try:
        sandbox = get_sandbox(kind)
    except SandboxError as exc:
        pytest.skip(str(exc))
    exercise = Exercise("fake", tmp_path, "", (), (), ())
    command = Steps().command(language, exercise, tmp_path)
    outcome = sandbox.run(command, tmp_path, Limits(seconds=60), ENV, ready=True)
    assert outcome.not_started is None, outcome.not_started
    return outcome


WRITES = """import os
fd = int(os.environ["CODER_REPORT_FD"])
os.write(fd, b"case passed a\\n@@coder end 1 0\\ncase failed b\\n")
raise SystemExit(3)
"""
OPENS = """import sys
with open(sys.argv[1], "w") as report:
    report.write("ok t::a\\n")
"""
FDS = """import os
print("fds", sorted(int(n) for n in os.listdir("/proc/self/fd")), os.environ["CODER_REPORT_FD"])
"""


@pytest.mark.parametrize("kind", ["none", "bwrap"])
def test_the_reporting_steps_lines_are_relayed_and_forged_markers_dropped(tmp_path, kind):
    language = _language("pass", WRITES, report=Report(step=1))
    outcome = _run(tmp_path, kind, language)
    found = read(outcome.stream, "lines", 1)
    assert found.cases == (("a", "passed"), ("b", "failed"))
    assert found.status == 3 and outcome.status == 3


@pytest.mark.parametrize("kind", ["none", "bwrap"])
def test_a_runner_may_open_its_report_by_path(tmp_path, kind) -> None:
    language = _language(OPENS, report=Report(form="libtest"))
    language = Language(**{**language.__dict__, "steps": ((*language.steps[0], "{report}"),)})
    outcome = _run(tmp_path, kind, language)
    assert read(outcome.stream, "libtest", 0).cases == (("t::a", "passed"),)


def test_the_tests_hold_their_own_report_but_never_the_runs(tmp_path: Path) -> None:
    outcome = _run(tmp_path, "none", _language(FDS, report=Report()))
    line = next(x for x in outcome.output.splitlines() if x.startswith("fds"))
    fds, own = json.loads(line.split(" ", 1)[1].rsplit(" ", 1)[0]), line.rsplit(" ", 1)[1]
    assert int(own) in fds and len(set(fds) - {0, 1, 2, int(own)}) == 1  # the listing's own


EVENTS = [
    {"Action": "run", "Test": "TestA"},
    {"Action": "output", "Test": "TestA", "Output": "=== RUN   TestA\n"},
    {"Action": "output", "Test": "TestA", "Output": "    a_test.go:3: wanted 1\n"},
    {"Action": "fail", "Test": "TestA"},
    {"Action": "output", "Test": "TestB", "Output": "quiet when it passes\n"},
    {"Action": "pass", "Test": "TestB"},
    {"Action": "skip", "Test": "TestC"},
    {"Action": "output", "Output": "FAIL\tbeer\n"},
    {"Action": "fail"},
    {"Action": "pass", "Test": "TestLate"},
]


def test_go_test_json_events_become_cases_and_the_failures_output(tmp_path: Path) -> None:
    lines = "\n".join(json.dumps(e) for e in EVENTS) + "\nnot json at all\n"
    language = _language(f"print({lines!r}, end='')", report=Report(events=True))
    outcome = _run(tmp_path, "none", language)
    found = read(outcome.stream, "lines", 0)
    assert found.cases == (("TestA", "failed"), ("TestB", "passed"), ("TestC", "skipped"))
    assert found.done
    assert "a_test.go:3: wanted 1" in outcome.output and "FAIL\tbeer" in outcome.output
    assert "quiet when it passes" not in outcome.output and "not json at all" in outcome.output
