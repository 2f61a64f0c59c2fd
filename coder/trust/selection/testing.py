"""Running the test command on candidate changes, all at once, each in its own temporary copy
of the repository (copy-on-write where it can be, sandboxed when asked), compared test by test
with the unedited code through pytest's JUnit report (else by exit status)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from coder.errors import SandboxFailure
from coder.trust.selection.candidates import TestEvidence
from sandbox import MAX_OUTPUT, Limits, Refused, Sandbox, readback, redact, scratch, secret_values

REPORT = "coder-junit.xml"
FICLONE = 0x40049409
"""Linux's ioctl that makes a file share another's blocks until either is written."""
MAX_PARALLEL = 8
"""Test runs at one time."""
WAIT = 0.2
"""Seconds between two looks at whether a plain test run was cancelled."""


@dataclass(frozen=True)
class TestSetup:
    """How candidates are tested."""

    cmd: str
    files: tuple[str, ...]
    """The repository's files, copied into each temporary test folder."""
    timeout: float = 600.0
    sandbox: Sandbox | None = None
    """Where the tests run; None: a plain subprocess with the user's environment."""
    ready: bool = False
    """In the sandbox, the command says when its runner is ready (sandbox.READY_VARIABLE)."""
    secrets: tuple[str, ...] = ()
    """Values redacted from what the command prints (the environment's are always)."""
    pristine: Path | None = None
    """Copy the files but the writable ones from this folder instead of the repository (the
    benchmark's pristine exercise), and write only the changes to writable files: nothing
    else a candidate wrote (a pytest.py, a conftest.py) reaches its tests."""
    writable: tuple[str, ...] = ()
    """With pristine, the files copied from the repository and that a change may write (the
    solution's)."""


@dataclass(frozen=True)
class TestRun:
    """One run of the test command: its exit status and the outcome of each test it named."""

    status: int
    outcomes: dict[str, bool]
    """Test id -> passed; empty when the command gave no JUnit report."""
    output: str = ""
    """What the command printed (capped, secrets redacted)."""


def run_all(root: Path, tests: TestSetup, changes: Sequence[Mapping[str, str]]) -> list[TestRun]:
    """The test command run on each set of changes (path -> text, written over a copy of the
    repository's files), all at once; the runs in the order of changes. Ctrl-C stops every
    run at once (their processes killed) and is raised again."""
    if not changes:
        return []
    cancel = threading.Event()
    pool = ThreadPoolExecutor(min(MAX_PARALLEL, len(changes)))
    try:
        return list(pool.map(lambda c: run_in_copy(root, tests, c, cancel), changes))
    except KeyboardInterrupt:
        cancel.set()
        raise
    finally:
        pool.shutdown(wait=not cancel.is_set(), cancel_futures=True)


def run_in_copy(
    root: Path,
    tests: TestSetup,
    changes: Mapping[str, str | None],
    cancel: threading.Event | None = None,
) -> TestRun:
    """Copy the files from root to a temporary folder, write changes over them (None: remove
    the file), run the test command there (in the sandbox, when there is one) until it ends
    or cancel is set."""
    if tests.pristine is not None:
        changes = {p: t for p, t in changes.items() if p in tests.writable}
    with scratch.folder("coder-tests-") as folder:
        copy = folder / "repo"
        copy.mkdir()
        for rel in tests.files:
            # The solution files as the work folder has them; the rest as the exercise has.
            pristine = tests.pristine is not None and rel not in tests.writable
            source = (tests.pristine if pristine else root) / rel
            if source.is_file() and not source.is_symlink():
                (copy / rel).parent.mkdir(parents=True, exist_ok=True)
                _clone(source, copy / rel)
        for rel, text in changes.items():
            (copy / rel).parent.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(FileNotFoundError):
                (copy / rel).unlink()  # never write through a clone or a link
            if text is not None:
                (copy / rel).write_text(text, encoding="utf-8", newline="")
        if tests.sandbox is not None:
            return _contained(copy, tests, cancel)
        return _run(copy, folder / REPORT, tests, cancel)


def _clone(source: Path, target: Path) -> None:
    """A copy of source that costs no disk blocks where the file system shares them
    (btrfs, XFS), else a plain copy; the mode bits are kept either way."""
    with open(source, "rb") as src, open(target, "wb") as dst:
        try:
            import fcntl

            fcntl.ioctl(dst.fileno(), FICLONE, src.fileno())
        except (ImportError, OSError):
            shutil.copyfileobj(src, dst)
    shutil.copymode(source, target)


SANDBOX_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "VIRTUAL_ENV", "PYTHONPATH", "TZ")
"""What a sandboxed test command keeps of the user's environment: no keys, tokens or passwords."""


def _contained(folder: Path, tests: TestSetup, cancel) -> TestRun:
    env = {k: v for k, v in os.environ.items() if k in SANDBOX_ENV}
    # The report goes in the copy, the only place the sandbox may write.
    env["PYTEST_ADDOPTS"] = f"--junitxml={REPORT}"
    sandbox, limits = tests.sandbox, Limits(seconds=tests.timeout)
    assert sandbox is not None
    command = ["/bin/sh", "-c", tests.cmd]
    outcome = sandbox.run(command, folder, limits, env, cancel, ready=tests.ready)
    secrets = secret_values(os.environ, tests.secrets)
    if outcome.not_started is not None and outcome.exceeded != "cancelled":
        reason = redact(outcome.not_started, secrets)
        raise SandboxFailure(f"the {sandbox.kind} sandbox could not run `{tests.cmd}`: {reason}")
    output = redact(outcome.output, secrets)
    if outcome.exceeded:
        output += f"\n(stopped: the tests passed the sandbox's limit on {outcome.exceeded})"
    status = -1 if outcome.status is None else outcome.status
    return _judged(status, folder / REPORT, output)


def _run(folder: Path, report: Path, tests: TestSetup, cancel) -> TestRun:
    # The tests see the user's environment, as /test does, plus one pytest option.
    env = dict(os.environ)
    env["PYTEST_ADDOPTS"] = f"{env.get('PYTEST_ADDOPTS', '')} --junitxml={report}".strip()
    cmd, timeout = tests.cmd, tests.timeout
    proc = subprocess.Popen(
        cmd,
        shell=True,
        cwd=folder,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + timeout
    try:
        while True:
            try:
                printed, _ = proc.communicate(timeout=WAIT)
                status = proc.returncode
                break
            except subprocess.TimeoutExpired:
                stopped = cancel is not None and cancel.is_set()
                if not stopped and time.monotonic() < deadline:
                    continue
                _kill_session(proc)
                printed, _ = proc.communicate()
                ended = "(stopped)" if stopped else f"(stopped after {timeout:g} s)"
                printed += f"\n{ended}".encode()
                status = -1
                break
    except BaseException:  # Ctrl-C: its own session does not get the terminal's
        _kill_session(proc)
        proc.wait()
        raise
    output = printed[:MAX_OUTPUT].decode(errors="replace")
    output = redact(output, secret_values(os.environ, tests.secrets))
    return _judged(status, report, output)


def _kill_session(proc: subprocess.Popen) -> None:
    """Kill the command's whole session: a test may have started processes that hold the
    output open."""
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)


def _judged(status: int, report: Path, output: str) -> TestRun:
    """The run, with the outcomes its report gives; a report that is not read says why."""
    try:
        outcomes = read_junit(report)
    except Refused as exc:
        outcomes, output = {}, f"{output}\n{exc}"
    return TestRun(status, outcomes, output.strip())


def read_junit(path: Path) -> dict[str, bool]:
    """Test id -> passed, from a JUnit XML report (read as hostile data: see sandbox.readback);
    empty when there is none, Refused when it is not read."""
    return {
        f"{case.classname}::{case.name}": case.outcome == "passed"
        for case in readback.junit_cases(path.parent, path.name)
        if case.outcome != "skipped"
    }


def evidence(base: TestRun, run: TestRun) -> TestEvidence:
    """How a candidate's run compares with the unedited code's, test by test."""
    fixed = sum(1 for t, ok in run.outcomes.items() if ok and base.outcomes.get(t) is False)
    broken = sum(1 for t, ok in run.outcomes.items() if not ok and base.outcomes.get(t))
    broken += sum(1 for t, ok in base.outcomes.items() if ok and t not in run.outcomes)
    passing = sum(run.outcomes.values())
    passed = run.status == 0
    # A test the unedited code ran that this run lacks (a collection error, say) fails too.
    missing = sum(1 for t in base.outcomes if t not in run.outcomes)
    failing = max(len(run.outcomes) - passing + missing, int(not passed))
    return TestEvidence(passed, fixed, broken, passing, failing, run.output)


def tree_files(root: Path) -> list[str]:
    """Every file under root outside .git, relative to it, for a folder that is not a repository."""
    return [
        str(path.relative_to(root))
        for path in sorted(root.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(root).parts
    ]
