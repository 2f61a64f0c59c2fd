"""Benchmark: the benchmark harness's own cost, and what --threads buys.

1. The 140 exercises' test suites run alone (reference solutions copied in), against
   `benchmark --model oracle --threads 1` (an instant model): target, within 20%.
2. `benchmark --model oracle --oracle-latency 2` (a model taking 2 s per reply) with
   --threads 1 and --threads 8 on N exercises, next to the speed-up that 8 threads on this
   machine's cores allow (the 2 s waits overlap; the test runs share the cores). Target: 4x.

Run: python tests/perf/harness_cost.py [--exercises-dir DIR] [--latency-exercises 16]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import tempfile
import time
from pathlib import Path

from benchmark import cli
from exercism import TestSetup, discover, run_tests
from sandbox import get_sandbox

DEFAULT = Path(__file__).resolve().parents[3] / "shared" / "exercism-python" / "practice"


def tests_alone(exercises_dir: Path) -> float:
    """The reference solutions' tests, one after the other, outside any sandbox."""
    setup = TestSetup(get_sandbox("none"))
    began = time.perf_counter()
    for exercise in discover(exercises_dir):
        assert run_tests(exercise, exercise.example_solution(), setup).passed, exercise.name
    return time.perf_counter() - began


def bench(exercises_dir: Path, *args: str) -> tuple[float, dict]:
    with tempfile.TemporaryDirectory() as runs:
        common = ["--exercises-dir", str(exercises_dir), "--runs-dir", runs, "--quiet"]
        began = time.perf_counter()
        assert cli.main([*common, *args]) == 0
        elapsed = time.perf_counter() - began
        (summary,) = Path(runs).glob("*/summary.json")
        results = [json.loads(p.read_text()) for p in Path(runs).glob("*/results/*.json")]
        return elapsed, {"summary": json.loads(summary.read_text()), "results": results}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exercises-dir", type=Path, default=DEFAULT)
    parser.add_argument("--latency-exercises", type=int, default=16)
    args = parser.parse_args()

    alone = tests_alone(args.exercises_dir)
    total, run = bench(
        args.exercises_dir, "--model", "oracle", "--threads", "1", "--sandbox", "none"
    )
    own = sum(r["test_seconds"] for r in run["results"])
    print("140 exercises, instant oracle, --threads 1:")
    print(f"  test suites alone: {alone:.1f} s; benchmark: {total:.1f} s ({total / alone:.2f}x)")
    print(f"  benchmark minus its tests' own time: {total - own:.1f} s")

    n = args.latency_exercises
    cores = os.cpu_count() or 1
    one, _ = bench(args.exercises_dir, "--num-tests", str(n), "--oracle-latency", "2")
    eight, _ = bench(
        args.exercises_dir, "--num-tests", str(n), "--oracle-latency", "2", "--threads", "8"
    )
    per_test = own / 140
    bound = one / max(math.ceil(n / 8) * (2 + per_test), n * per_test / cores)
    print(f"{n} exercises, oracle answering in 2 s, {cores} cores:")
    print(f"  --threads 1: {one:.1f} s; --threads 8: {eight:.1f} s; speed-up {one / eight:.1f}x")
    print(f"  speed-up these cores allow at most: {bound:.1f}x")


if __name__ == "__main__":
    main()
