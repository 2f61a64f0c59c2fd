"""Running the test command on candidate changes, each in its own temporary copy of the
repository (in a sandbox when the user asks for one), and comparing per test with the
unedited code. The working tree is never touched.

Per-test results come from pytest's JUnit XML (asked for through PYTEST_ADDOPTS); for any
other test command only the exit status is compared.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from coder.candidates import TestEvidence
from sandbox import Limits, Sandbox, redact, secret_values

REPORT = "coder-junit.xml"


@dataclass(frozen=True)
class TestRun:
    """One run of the test command: its exit status and the outcome of each test it named."""

    status: int
    outcomes: dict[str, bool]
    """Test id -> passed; empty when the command gave no JUnit report."""
    output: str = ""
    """What the command printed (in a sandbox: secrets redacted, capped)."""


def run_in_copy(
    root: Path,
    files: list[str],
    changes: Mapping[str, str],
    cmd: str,
    timeout: float,
    sandbox: Sandbox | None = None,
) -> TestRun:
    """Copy files from root to a temporary folder, write changes over them, run cmd there (in
    sandbox, when given)."""
    with tempfile.TemporaryDirectory(prefix="coder-tests-") as scratch:
        copy = Path(scratch) / "repo"
        for rel in files:
            source = root / rel
            if source.is_file() and not source.is_symlink():
                (copy / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, copy / rel)
        for rel, text in changes.items():
            (copy / rel).parent.mkdir(parents=True, exist_ok=True)
            (copy / rel).write_text(text, encoding="utf-8", newline="")
        if sandbox is not None:
            return _contained(copy, cmd, timeout, sandbox)
        return _run(copy, Path(scratch) / REPORT, cmd, timeout)


SANDBOX_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "VIRTUAL_ENV", "PYTHONPATH", "TZ")
"""What a sandboxed test command keeps of the user's environment: no keys, tokens or passwords."""


def _contained(folder: Path, cmd: str, timeout: float, sandbox: Sandbox) -> TestRun:
    env = {k: v for k, v in os.environ.items() if k in SANDBOX_ENV}
    # The report goes in the copy, the only place the sandbox may write.
    env["PYTEST_ADDOPTS"] = f"--junitxml={REPORT}"
    outcome = sandbox.run(["/bin/sh", "-c", cmd], folder, Limits(seconds=timeout), env)
    output = redact(outcome.output, secret_values(os.environ))
    if outcome.exceeded:
        output += f"\n(stopped: the tests passed the sandbox's limit on {outcome.exceeded})"
    status = -1 if outcome.status is None else outcome.status
    return TestRun(status, read_junit(folder / REPORT), output.strip())


def _run(folder: Path, report: Path, cmd: str, timeout: float) -> TestRun:
    # The tests see the user's environment, as /test does, plus one pytest option.
    env = dict(os.environ)
    env["PYTEST_ADDOPTS"] = f"{env.get('PYTEST_ADDOPTS', '')} --junitxml={report}".strip()
    try:
        done = subprocess.run(
            cmd,
            shell=True,
            cwd=folder,
            env=env,
            capture_output=True,
            timeout=timeout,
            start_new_session=True,
        )
        status = done.returncode
    except subprocess.TimeoutExpired:
        status = -1
    return TestRun(status, read_junit(report))


def read_junit(path: Path) -> dict[str, bool]:
    """Test id -> passed, from a JUnit XML report; empty when there is none or it is unreadable."""
    try:
        tree = ET.parse(path)
    except (OSError, ET.ParseError):
        return {}
    outcomes = {}
    for case in tree.iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        failed = any(case.find(tag) is not None for tag in ("failure", "error"))
        skipped = case.find("skipped") is not None
        if not skipped:
            outcomes[name] = not failed
    return outcomes


def evidence(base: TestRun, run: TestRun) -> TestEvidence:
    """How a candidate's run compares with the unedited code's, test by test."""
    fixed = sum(1 for t, ok in run.outcomes.items() if ok and base.outcomes.get(t) is False)
    broken = sum(1 for t, ok in run.outcomes.items() if not ok and base.outcomes.get(t))
    broken += sum(1 for t, ok in base.outcomes.items() if ok and t not in run.outcomes)
    passing = sum(run.outcomes.values())
    return TestEvidence(run.status == 0, fixed, broken, passing)


def tree_files(root: Path) -> list[str]:
    """Every file under root outside .git, relative to it, for a folder that is not a repository."""
    return [
        str(path.relative_to(root))
        for path in sorted(root.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(root).parts
    ]
