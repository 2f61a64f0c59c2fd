"""Benchmark: what each reference solution of the polyglot set uses in the harness (the most
processes and threads alive at once, memory, wall and processor time, as the run's control
group counts them; what its folder holds at the end), and per language the most of each, which
exercise used it, the limit the harness sets and the margin it leaves.

--busy N runs N processes spinning on the processor meanwhile (a busy machine); --threads N
runs N exercises at once, as `benchmark --threads N` does. By default the runs get generous
limits, so that what they use is seen whole; --as-set gives them the benchmark's own (its
defaults raised to each language's needs), where a run that fails shows a limit too tight.

Run: python tests/perf/reference_needs.py [--exercises-dir DIR] [--cache-dir DIR]
     [--languages cpp,go] [--keywords bank,forth] [--threads 2] [--busy 2] [--as-set]
     [--json FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from benchmark import polyglot
from exercism import TestSetup, get_language, run_tests
from exercism.exercise import Exercise
from exercism.testrun import HarnessError, default_sandbox
from sandbox import Limits, Outcome
from sandbox.disk import walked

DEFAULT = Path(__file__).resolve().parents[3] / "shared" / "polyglot-benchmark"
AS_SET = Limits(seconds=60.0)
"""What `benchmark` gives a test run before a language's needs (--test-timeout's default)."""
GENEROUS = Limits(
    seconds=1800,
    cpu_seconds=3600,
    memory=16 * 1024**3,
    processes=16384,
    disk=8 * 1024**3,
    files=1_000_000,
)
"""Far above what any reference solution uses, so that none is stopped while measured."""
FIGURES = ("processes", "memory", "seconds", "cpu_seconds", "disk", "files")
"""What is measured of each run, and the field of Limits that bounds it."""


@dataclass(frozen=True)
class Need:
    """What one reference solution's test run used."""

    language: str
    exercise: str
    passed: bool
    exceeded: str | None
    processes: int | None
    memory: int | None
    seconds: float
    cpu_seconds: float | None
    disk: int
    """Bytes its folder held at the end (the sandbox's own /tmp not counted)."""
    files: int


class Recording:
    """A sandbox that runs each command in another and keeps, per thread, what the last run
    used and what its folder held at its end."""

    def __init__(self, inner):
        self.inner = inner
        self.kind, self.description = inner.kind, inner.description
        self.last = threading.local()

    def run(self, command, folder, limits, env, *args, **kwargs) -> Outcome:
        outcome = self.inner.run(command, folder, limits, env, *args, **kwargs)
        written = walked(folder)
        self.last.seen = (outcome, written.bytes, written.files)
        return outcome


def measure(exercise: Exercise, sandbox: Recording, setup: TestSetup) -> Need:
    """The reference solution's tests run once, and what they used."""
    try:
        run = run_tests(exercise, exercise.example_solution(), setup)
        passed, exceeded = run.passed, run.exceeded
    except HarnessError as exc:
        print(f"  harness error: {exercise.language}/{exercise.name}: {exc}", flush=True)
        passed, exceeded = False, "harness"
    outcome, disk, files = getattr(sandbox.last, "seen", (None, 0, 0))
    sandbox.last.seen = (None, 0, 0)
    peak = outcome.peak if outcome is not None else None
    return Need(
        exercise.language,
        exercise.name,
        passed,
        exceeded,
        peak.processes if peak else None,
        peak.memory if peak else None,
        outcome.seconds if outcome else 0.0,
        peak.cpu_seconds if peak else None,
        disk,
        files,
    )


@contextlib.contextmanager
def busy(spinners: int) -> Iterator[None]:
    """spinners processes spinning on the processor while the block runs."""
    spin = [sys.executable, "-c", "while True: pass"]
    procs = [subprocess.Popen(spin) for _ in range(spinners)]
    try:
        yield
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


def show(need: Need) -> None:
    status = "ok" if need.passed else f"FAILED ({need.exceeded or 'tests'})"
    print(
        f"  {need.language:<11}{need.exercise:<28}{_figure('processes', need.processes):>7}"
        f"{_figure('memory', need.memory):>9}{need.seconds:>8.1f}"
        f"{_figure('cpu_seconds', need.cpu_seconds):>8}{_figure('disk', need.disk):>9}"
        f"{need.files:>7}  {status}",
        flush=True,
    )


def summary(needs: list[Need]) -> None:
    """Per language: the most of each figure, its exercise, the limit set and the margin."""
    print("\nper language, the most any reference solution used (limit as set, margin):")
    for language in dict.fromkeys(n.language for n in needs):
        own = [n for n in needs if n.language == language]
        limits = get_language(language).limits(AS_SET)
        failed = [n.exercise for n in own if not n.passed]
        print(f"{language} ({len(own)} exercises; failed: {', '.join(failed) or 'none'})")
        for figure in FIGURES:
            known = [n for n in own if getattr(n, figure) is not None]
            if not known:
                print(f"  {figure:<12} not known")
                continue
            most = max(known, key=lambda n: getattr(n, figure))
            value, limit = getattr(most, figure), getattr(limits, figure)
            margin = f"{limit / value:.1f}x" if value else "-"
            print(
                f"  {figure:<12}{_figure(figure, value):>9} {most.exercise:<28}"
                f" limit {_figure(figure, limit):>8}  margin {margin}"
            )


def _figure(name: str, value: float | None) -> str:
    if value is None:
        return "?"
    if name in ("memory", "disk"):
        return f"{value / 1024**2:.0f}M"
    if name in ("seconds", "cpu_seconds"):
        return f"{value:.1f}"
    return str(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exercises-dir", type=Path, default=DEFAULT)
    parser.add_argument("--cache-dir", type=Path)
    parser.add_argument("--languages")
    parser.add_argument("--keywords", default="", help="only exercises whose names hold one")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--busy", type=int, default=0, metavar="N")
    parser.add_argument("--as-set", action="store_true", help="the benchmark's own limits")
    parser.add_argument("--json", type=Path, help="write every run's figures here")
    args = parser.parse_args()
    folders = polyglot.chosen(args.exercises_dir, args.languages)
    keywords = tuple(k for k in args.keywords.split(",") if k)
    exercises = polyglot.exercises(folders, keywords, None)
    sandbox = Recording(default_sandbox())
    given = AS_SET if args.as_set else GENEROUS
    setup = TestSetup(sandbox=sandbox, limits=given, cache=args.cache_dir)
    print(f"{len(exercises)} reference solutions, {sandbox.kind} sandbox, {args.threads} at once,")
    print(f"{args.busy} spinning processes beside them, {'as set' if args.as_set else 'generous'}")
    print(f"  {'language':<11}{'exercise':<28}{'tasks':>7}{'memory':>9}{'wall s':>8}", end="")
    print(f"{'cpu s':>8}{'disk':>9}{'files':>7}")
    began = time.perf_counter()
    with busy(args.busy), ThreadPoolExecutor(args.threads) as pool:
        needs = []
        for need in pool.map(lambda e: measure(e, sandbox, setup), exercises):
            show(need)
            needs.append(need)
    summary(needs)
    if args.json:
        args.json.write_text(json.dumps([dataclasses.asdict(n) for n in needs], indent=1))
    print(f"\n({(time.perf_counter() - began) / 60:.1f} min; {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
