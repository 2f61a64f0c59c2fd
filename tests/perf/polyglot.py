"""Benchmark: the polyglot benchmark's cost on this machine.

1. `benchmark --prepare` of all six languages into a fresh cache: wall time per language.
2. The harness's overhead per language: the same test commands (the harness's reporters
   planted, their report thrown away), on the reference solutions of N exercises per
   language, run bare (no sandbox, no driver, straight from here, one after the other) and
   through run_tests (bubblewrap, the driver and its relay, the limits, the count against the
   reference's tests, made once before), interleaved; with
   --repeats R, each R times, the least of each kept (what the machine's load adds is noise).
   Target: at most +15% per language. The median of the seconds added per exercise is
   printed too: one slow exercise whose tests' own time varies by more than the harness
   adds (Rust's alphametics: 32 to 52 s bare on a quiet machine) can swing the total.
3. The whole oracle run, `benchmark --model oracle --threads 2` on every exercise: its wall
   time, and every exercise passing at try 1 (in each format asked for).
4. With --retry-sample N, the wrong-then-right model (`--model oracle-retry`: a wrong answer
   first, the reference solution at try 2) on the first N exercises of each language: the pass
   rate after each try per language (0% then 100% expected).

Run: python tests/perf/polyglot.py [--exercises-dir DIR] [--per-language 4] [--repeats 1]
     [--formats whole,diff] [--skip-prepare --cache-dir DIR] [--skip-overhead]
     [--skip-oracle] [--languages go,rust] [--retry-sample N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmark import cli, polyglot
from exercism import LANGUAGES, TestSetup, count_tests, get_language, run_tests
from exercism.driver import Steps
from exercism.testrun import _environment, _prepared
from sandbox import Limits

DEFAULT = Path(__file__).resolve().parents[3] / "shared" / "polyglot-benchmark"


def prepare_all(exercises_dir: Path, cache: Path) -> None:
    """--prepare of every language into cache, timed by the command itself (it prints the
    time per language) and here in total."""
    began = time.perf_counter()
    argv = ["--exercises-dir", str(exercises_dir), "--cache-dir", str(cache)]
    assert cli.main([*argv, "--prepare", ",".join(LANGUAGES), "--prepare-again"]) == 0
    print(f"--prepare of all six languages: {time.perf_counter() - began:.1f} s in total")


def bare(exercise, cache: Path) -> tuple[float, bool]:
    """The language's test commands on the reference solution, outside any sandbox: the
    probe and steps straight from here (pytest as run_tests runs it, without a sandbox)."""
    language = get_language(exercise.language)
    env, _ = _environment(language, cache)
    with tempfile.TemporaryDirectory(prefix="coder-bare-") as scratch:
        folder = _prepared(exercise, language, exercise.example_solution(), Path(scratch), cache)
        if language.runner is not None:
            commands = [language.runner.command(language, exercise, cache)]
            cwd = folder
        else:
            spec = json.loads(Steps().spec(language, exercise, cache))
            cwd = folder / spec["cwd"]
            commands = [c for c in [spec["probe"], *spec["steps"]] if c]
            env = env | {k: v.replace("{here}", str(folder)) for k, v in spec["env"].items()}
        began = time.perf_counter()
        ok = True
        for command in commands:
            words = [
                w.replace("{here}", str(folder)).replace("{report}", os.devnull)
                for w in _globbed(command, cwd)
            ]
            done = subprocess.run(words, cwd=cwd, env=env, capture_output=True)
            ok = ok and done.returncode == 0
            if not ok:
                break
        return time.perf_counter() - began, ok


def _globbed(command: list[str], cwd: Path) -> list[str]:
    words = []
    for word in command:
        if word.startswith("glob:"):
            words += sorted(str(p.relative_to(cwd)) for p in cwd.glob(word[5:])) or [word[5:]]
        else:
            words.append(word)
    return words


def overhead(
    exercises_dir: Path,
    cache: Path,
    per_language: int,
    languages: str | None = None,
    repeats: int = 1,
) -> None:
    """Bare against run_tests, per language, interleaved so that the machine's load falls
    on both alike, which comes first alternating. The bare runs use a copy of the cache: as
    root they could write to it (Go's build cache), which the contained runs cannot."""
    setup = TestSetup(limits=Limits(seconds=600, cpu_seconds=1200), cache=cache)
    with tempfile.TemporaryDirectory(prefix="coder-bare-cache-") as copy:
        shutil.copytree(cache, copy, symlinks=True, dirs_exist_ok=True)
        found = polyglot.chosen(exercises_dir, languages)
        _overhead(found, cache, Path(copy), per_language, setup, repeats)


def _overhead(
    found: dict[str, Path],
    cache: Path,
    copy: Path,
    per_language: int,
    setup: TestSetup,
    repeats: int = 1,
) -> None:
    each = f", the least of {repeats} runs of each" if repeats > 1 else ""
    print(f"\noverhead per language ({per_language} reference solutions each{each}):")
    print(f"{'language':<12}{'bare s':>9}{'harness s':>11}{'overhead':>10}{'median added s':>16}")
    for name, folder in found.items():
        chosen = polyglot.exercises({name: folder}, (), None)[:per_language]
        alone = contained = 0.0
        added = []
        for n, exercise in enumerate(chosen):
            count_tests(exercise, setup)  # once per exercise and harness, kept: not timed
            bare_runs, contained_runs = [], []
            for r in range(repeats):
                if (n + r) % 2:
                    contained_runs.append(_contained(exercise, setup))
                seconds, ok = bare(exercise, copy)
                assert ok, f"{name}/{exercise.name} fails bare"
                bare_runs.append(seconds)
                if not (n + r) % 2:
                    contained_runs.append(_contained(exercise, setup))
            alone += min(bare_runs)
            contained += min(contained_runs)
            added.append(min(contained_runs) - min(bare_runs))
        extra = 100 * (contained - alone) / alone
        median = statistics.median(added)
        print(
            f"{name:<12}{alone:>9.1f}{contained:>11.1f}{extra:>+9.1f}%{median:>+16.2f}", flush=True
        )


def _contained(exercise, setup: TestSetup) -> float:
    began = time.perf_counter()
    assert run_tests(exercise, exercise.example_solution(), setup).passed, exercise.name
    return time.perf_counter() - began


def oracle_run(exercises_dir: Path, cache: Path, formats: list[str]) -> None:
    """The whole set with the oracle, two threads, each format: wall time and pass rates."""
    with tempfile.TemporaryDirectory(prefix="coder-polyglot-runs-") as runs:
        for fmt in formats:
            argv = ["--exercises-dir", str(exercises_dir), "--cache-dir", str(cache)]
            argv += ["--runs-dir", runs, "--quiet", "--model", "oracle", "--threads", "2"]
            began = time.perf_counter()
            assert cli.main([*argv, "--edit-format", fmt]) == 0
            elapsed = time.perf_counter() - began
            (summary,) = Path(runs).glob(f"*--{fmt}--*/summary.json")
            figures = json.loads(summary.read_text())
            print(
                f"\noracle, {fmt}, --threads 2: {figures['selected']} exercises in"
                f" {elapsed / 60:.1f} min; passed at try 1: {figures['pass_rate_1']}%"
                f" ({figures['errors']} errors, {figures['harness_errors']} of the harness)"
            )
            for language, own in figures["languages"].items():
                print(
                    f"  {language:<11} {own['pass_rate_1']:>5}% of {own['selected']:>2},"
                    f" {own['seconds_per_exercise']:>5} s per exercise"
                )


def retry_run(exercises_dir: Path, cache: Path, sample: int, languages: str | None) -> None:
    """The wrong-then-right model on the first `sample` exercises of each language."""
    print(f"\noracle-retry, whole, the first {sample} exercises of each language:")
    for language in polyglot.chosen(exercises_dir, languages):
        with tempfile.TemporaryDirectory(prefix="coder-polyglot-retry-") as runs:
            argv = ["--exercises-dir", str(exercises_dir), "--cache-dir", str(cache)]
            argv += ["--runs-dir", runs, "--quiet", "--model", "oracle-retry", "--threads", "2"]
            argv += ["--edit-format", "whole", "--languages", language]
            assert cli.main([*argv, "--num-tests", str(sample)]) == 0
            (summary,) = Path(runs).glob("*/summary.json")
            figures = json.loads(summary.read_text())
            print(
                f"  {language:<11} {figures['selected']} exercises: {figures['pass_rate_1']}%"
                f" after try 1, {figures['pass_rate_2']}% after try 2",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exercises-dir", type=Path, default=DEFAULT)
    parser.add_argument("--cache-dir", type=Path)
    parser.add_argument("--per-language", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=1, help="runs of each, the least kept")
    parser.add_argument("--formats", default="whole")
    parser.add_argument("--languages", help="the overhead and retries of these only (a,b)")
    parser.add_argument("--skip-prepare", action="store_true")
    parser.add_argument("--skip-overhead", action="store_true")
    parser.add_argument("--skip-oracle", action="store_true")
    parser.add_argument("--retry-sample", type=int, default=0, metavar="N")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="coder-polyglot-cache-") as fresh:
        cache = args.cache_dir or Path(fresh)
        if not args.skip_prepare:
            prepare_all(args.exercises_dir, cache)
        if not args.skip_overhead:
            overhead(args.exercises_dir, cache, args.per_language, args.languages, args.repeats)
        if not args.skip_oracle:
            oracle_run(args.exercises_dir, cache, args.formats.split(","))
        if args.retry_sample:
            retry_run(args.exercises_dir, cache, args.retry_sample, args.languages)
    print(f"\n(machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f})", file=sys.stderr)


if __name__ == "__main__":
    main()
