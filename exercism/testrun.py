"""Running an exercise's tests in a subprocess: a timeout, resource limits, a scrubbed
environment, and output cleaned so that identical results print identical text."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from exercism.exercise import Exercise

MEMORY_LIMIT = 2 * 1024**3
"""Bytes of address space the tests may use."""
CPU_SECONDS = 120
"""Processor seconds the tests may use."""


@dataclass(frozen=True)
class TestRun:
    """The outcome of one run of an exercise's tests."""

    passed: bool
    output: str
    """pytest's output, cleaned of timings and temporary paths."""
    timed_out: bool = False
    seconds: float = 0.0


def run_tests(exercise: Exercise, workdir: Path, timeout: float = 60.0) -> TestRun:
    """Run the exercise's tests in workdir with pytest, in a subprocess that cannot run long,
    grow large, or see the user's environment."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--tb=short"]
    command += exercise.test_files
    began = time.perf_counter()
    try:
        done = subprocess.run(
            command,
            cwd=workdir,
            env=_scrubbed_env(workdir),
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            preexec_fn=_limit if os.name == "posix" else None,
        )
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else ""
        seconds = time.perf_counter() - began
        text = clean(out, workdir) + f"\nThe tests did not finish within {timeout:.0f} seconds."
        return TestRun(False, text.strip(), timed_out=True, seconds=seconds)
    seconds = time.perf_counter() - began
    return TestRun(done.returncode == 0, clean(done.stdout + done.stderr, workdir), False, seconds)


def clean(output: str, workdir: Path) -> str:
    """The output without the parts that change from run to run: timings, paths, addresses."""
    text = output.replace(str(workdir), ".")
    text = re.sub(r" in \d+(\.\d+)?s( \([0-9:]+\))?", "", text)
    text = re.sub(r"0x[0-9a-fA-F]{6,}", "0x...", text)
    text = re.sub(r"/tmp/[^\s:'\"]+", "<tmp>", text)
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def _scrubbed_env(workdir: Path) -> dict[str, str]:
    """Only what Python needs: no API keys or other secrets of the user reach the tests."""
    return {
        "PATH": os.defpath,
        "HOME": str(workdir),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        # The user's pytest plugins would slow every run by a second or more, and change it.
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }


def _limit() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
