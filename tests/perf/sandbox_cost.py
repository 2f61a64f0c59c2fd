"""Benchmark: what the sandbox costs the benchmark.

1. Every exercise's reference solution tested once per sandbox (none, rlimit, bwrap), the
   sandboxes taking turns exercise by exercise so that the machine's drifts hit all alike;
   every run must pass. Printed: the seconds per sandbox and the extra over none.
2. `benchmark --model oracle --threads 1` on every exercise, timed whole, the sandboxes taking
   turns run by run, --rounds times; printed: each kind's median and the extra over none.
Target: bwrap costs at most 10% of the benchmark's wall time.

Run: python tests/perf/sandbox_cost.py [--exercises-dir DIR] [--kinds none,rlimit,bwrap]
[--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from benchmark import cli
from exercism import HarnessError, TestSetup, discover, run_tests
from sandbox import SandboxError, get_sandbox

DEFAULT = Path(__file__).resolve().parents[3] / "shared" / "exercism-python" / "practice"


def timed_run(exercises_dir: Path, kind: str) -> tuple[float, dict]:
    """Seconds of one whole oracle benchmark with that sandbox, and its summary."""
    with tempfile.TemporaryDirectory() as runs:
        argv = ["--model", "oracle", "--edit-format", "whole", "--threads", "1"]
        argv += ["--sandbox", kind, "--exercises-dir", str(exercises_dir), "--runs-dir", runs]
        began = time.perf_counter()
        assert cli.main([*argv, "--quiet"]) == 0
        elapsed = time.perf_counter() - began
        (summary,) = Path(runs).glob("*/summary.json")
        return elapsed, json.loads(summary.read_text())


def interleaved(exercises_dir: Path, kinds: list[str]) -> dict[str, float]:
    """Seconds of testing every reference solution, per sandbox, the sandboxes taking turns."""
    setups = {kind: TestSetup(get_sandbox(kind)) for kind in kinds}
    seconds = dict.fromkeys(kinds, 0.0)
    for n, exercise in enumerate(discover(exercises_dir)):
        for kind in kinds[n % len(kinds) :] + kinds[: n % len(kinds)]:
            began = time.perf_counter()
            run = run_tests(exercise, exercise.example_solution(), setups[kind])
            seconds[kind] += time.perf_counter() - began
            assert run.passed, (kind, exercise.name, run.output[-2000:])
    return seconds


def usable(exercises_dir: Path, kind: str) -> bool:
    """Whether the sandbox runs tests on this machine; if not, the reason is printed (the
    fallback as root runs each test as a user of its own, which may not reach an interpreter
    under /root, say)."""
    exercise = discover(exercises_dir)[0]
    try:
        run_tests(exercise, exercise.example_solution(), TestSetup(get_sandbox(kind)))
    except (HarnessError, SandboxError) as exc:
        print(f"  --sandbox {kind}: left out, it cannot run tests here: {exc}")
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exercises-dir", type=Path, default=DEFAULT)
    parser.add_argument("--kinds", default="none,rlimit,bwrap")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    kinds = [kind for kind in args.kinds.split(",") if usable(args.exercises_dir, kind)]
    tested = interleaved(args.exercises_dir, kinds)
    print("the 140 reference solutions tested, the sandboxes taking turns:")
    for kind, seconds in tested.items():
        extra = (seconds / tested["none"] - 1) * 100 if "none" in tested else 0.0
        print(f"  --sandbox {kind:<7} {seconds:6.1f} s ({extra:+.1f}% over none)")
    print(f"whole benchmark runs, the sandboxes taking turns, {args.rounds} rounds:")
    times: dict[str, list[float]] = {kind: [] for kind in kinds}
    for _ in range(args.rounds):
        for kind in kinds:
            seconds, summary = timed_run(args.exercises_dir, kind)
            assert summary["pass_rate_1"] == 100.0, (kind, summary["pass_rate_1"])
            times[kind].append(seconds)
    medians = {kind: statistics.median(runs) for kind, runs in times.items()}
    for kind, runs in times.items():
        shown = ", ".join(f"{t:.1f}" for t in runs)
        extra = (medians[kind] / medians["none"] - 1) * 100 if "none" in medians else 0.0
        print(
            f"  --sandbox {kind:<7} median {medians[kind]:5.1f} s ({shown});"
            f" {extra:+.1f}% over none (target for bwrap: at most +10%)"
        )


if __name__ == "__main__":
    main()
