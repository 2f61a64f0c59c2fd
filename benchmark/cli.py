"""`benchmark --edit-format diff --model M`: run Exercism exercises against a model.

Results go to one JSON file per exercise in a run folder named by date, model and format, so
re-running the same command resumes. `benchmark --stats RUN...` compares finished runs;
`benchmark --rescore RUN` tests a finished run's replies again, asking no model.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from benchmark import report
from benchmark.limiter import RateLimiter
from benchmark.runner import RunSettings
from exercism import LANGUAGES
from exercism.prepare import VARIABLE
from sandbox import KINDS

DEFAULT_EXERCISES = Path("..") / "shared" / "exercism-python" / "practice"


def build_parser() -> argparse.ArgumentParser:
    """The benchmark's arguments."""
    p = argparse.ArgumentParser(prog="benchmark", description=__doc__.splitlines()[0])
    p.add_argument(
        "--model",
        nargs="+",
        action="extend",
        help="litellm model name, or local, oracle, oracle-retry (default oracle); several make"
        " a grid with the formats",
    )
    p.add_argument("--api-base", help="URL of an OpenAI-compatible server")
    p.add_argument("--local-model", metavar="PATH.gguf", help="with --model local: this file")
    p.add_argument(
        "--edit-format", nargs="+", action="extend", help="default diff; several make a grid"
    )
    p.add_argument("--tries", type=int, default=2, help="attempts per exercise (default 2)")
    p.add_argument("--threads", type=int, default=1, help="exercises at once, on this machine")
    p.add_argument(
        "--ray",
        nargs="?",
        const="local",
        metavar="ADDRESS",
        help="run each exercise as a Ray task: alone on a Ray runtime started here, or on a"
        " cluster (auto, ray://host:10001); needs pip install 'coder[ray]'",
    )
    p.add_argument(
        "--rpm",
        type=float,
        metavar="N",
        help="at most N model calls a minute, across threads and Ray workers",
    )
    p.add_argument("--num-tests", type=int, help="run only the first N exercises")
    p.add_argument("--keywords", help="comma-separated parts of exercise names to select")
    p.add_argument(
        "--exercises-dir",
        type=Path,
        default=DEFAULT_EXERCISES,
        help="a folder of practice exercises, or aider's polyglot set"
        " (<language>/exercises/practice/ for each language)",
    )
    p.add_argument(
        "--languages",
        metavar="LANGUAGES",
        help=f"comma-separated, of {', '.join(LANGUAGES)} (default: every one found)",
    )
    p.add_argument(
        "--prepare",
        metavar="LANGUAGES",
        help="fetch what these languages' tests need (jars, crates, jest, Go's build cache)"
        " into the cache where it is not there yet, then stop; a run does it on first use",
    )
    p.add_argument(
        "--prepare-again",
        action="store_true",
        help="with --prepare: fetch anew what is in the cache already",
    )
    p.add_argument(
        "--cache-dir",
        type=Path,
        help=f"where --prepare puts what it fetches (default: ${VARIABLE}, else"
        " ~/.cache/coder/polyglot)",
    )
    p.add_argument("--runs-dir", type=Path, default=Path("benchmark-runs"))
    p.add_argument("--repeat", type=int, default=1, help="run everything N times")
    p.add_argument(
        "--test-timeout",
        type=float,
        default=60.0,
        help="seconds per test run (a compiled language's runs get at least what it needs)",
    )
    p.add_argument(
        "--sandbox",
        default="auto",
        choices=KINDS,
        help="how the model's code is contained (auto: bwrap, and a refusal where it cannot"
        " run; rlimit only when asked for, saying what it does not contain)",
    )
    p.add_argument(
        "--candidates", type=int, default=1, metavar="N", help="N candidates per request"
    )
    p.add_argument(
        "--candidate-tests",
        action="store_true",
        help="test candidates with the exercise's tests before choosing (and refine failing ones)",
    )
    p.add_argument("--refine", type=int, default=1, metavar="N", help="refinement rounds (1)")
    p.add_argument("--plan", action="store_true", help="each candidate plans before its edit")
    p.add_argument("--diverse", action="store_true", help="candidates from different angles")
    p.add_argument("--rtc", action="store_true", help="round-trip check each final edit")
    p.add_argument(
        "--rtc-reference",
        action="store_true",
        help="round-trip check each reference solution (alone: no edit requests at all)",
    )
    p.add_argument("--rtc-samples", type=int, default=3, metavar="N", help="descriptions (3)")
    p.add_argument(
        "--rtc-threshold", type=float, default=0.8, metavar="X", help="score to pass (0.8)"
    )
    p.add_argument("--rtc-request", action="store_true", help="the describer also sees the request")
    p.add_argument(
        "--consistency-prompt",
        action="store_true",
        help="ask the model for consistent answers (Patched RTC)",
    )
    p.add_argument("--stats", nargs="+", type=Path, metavar="RUN", help="compare finished runs")
    p.add_argument(
        "--rescore",
        type=Path,
        metavar="RUN",
        help="test a finished run's recorded replies again under today's harness, asking no"
        " model, into a new run beside it; print what changed",
    )
    p.add_argument(
        "--chart",
        type=Path,
        metavar="FILE",
        help="with --stats: the chart's file, PNG or SVG by its suffix (default: stats.png and"
        " stats.svg beside the first run)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--oracle-latency", type=float, default=0.0, help="seconds the oracles wait per reply"
    )
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    from coder.seams.local import stopped_on_exit

    with stopped_on_exit():
        return _main(args)


def _main(args: argparse.Namespace) -> int:
    if args.stats:
        return _stats(args.stats, args.chart)
    if not args.exercises_dir.is_dir():
        print(
            f"benchmark: no exercises at {args.exercises_dir}: pass --exercises-dir with a folder"
            " of Exercism practice exercises (exercism/python's exercises/practice)",
            file=sys.stderr,
        )
        return 2
    if args.rescore:
        from benchmark import rescore

        return rescore.main(args)
    from benchmark import polyglot
    from coder.errors import UsageError

    try:
        folders = polyglot.chosen(args.exercises_dir, args.prepare or args.languages)
    except UsageError as exc:
        print(f"benchmark: {exc}", file=sys.stderr)
        return 2
    args.language_names = list(folders)
    if args.prepare:
        return polyglot.refused(list(folders)) or polyglot.prepare_for(args, folders, asked=True)
    keywords = tuple(k for k in (args.keywords or "").split(",") if k)
    exercises = polyglot.exercises(folders, keywords, args.num_tests)
    if not exercises:
        print(
            f"benchmark: no exercise in {args.exercises_dir} matches --keywords"
            f" {args.keywords or '(none)'} and --num-tests {args.num_tests}",
            file=sys.stderr,
        )
        return 2
    from coder.trust.selection.candidates import MAX_CANDIDATES

    if not 1 <= args.candidates <= MAX_CANDIDATES:
        print(
            f"benchmark: --candidates takes 1 to {MAX_CANDIDATES}, not {args.candidates}",
            file=sys.stderr,
        )
        return 2
    if args.refine < 0:
        print(f"benchmark: --refine takes 0 or more, not {args.refine}", file=sys.stderr)
        return 2
    if args.rtc_samples < 1 or not 0 < args.rtc_threshold <= 1:
        print(
            "benchmark: --rtc-samples takes 1 or more and --rtc-threshold a number in (0, 1],"
            f" not {args.rtc_samples} and {args.rtc_threshold}",
            file=sys.stderr,
        )
        return 2
    models, formats = args.model or ["oracle"], args.edit_format or ["diff"]
    from editformats import FORMATS

    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        print(
            f"benchmark: unknown --edit-format {', '.join(unknown)}; choose from"
            f" {', '.join(FORMATS)}",
            file=sys.stderr,
        )
        return 2
    if args.rpm is not None and args.rpm <= 0:
        print(f"benchmark: --rpm takes a number above 0, not {args.rpm}", file=sys.stderr)
        return 2
    if args.candidate_tests and args.language_names != ["python"]:
        print("benchmark: --candidate-tests runs Python's tests only", file=sys.stderr)
        return 2
    languages = list(dict.fromkeys(e.language for e in exercises))
    return (
        polyglot.refused(languages)
        or polyglot.prepare_for(args, {n: folders[n] for n in languages})
        or _run_all(args, exercises, models, formats)
    )


def _run_all(args: argparse.Namespace, exercises, models: list[str], formats: list[str]) -> int:
    """Every run of the grid (models x formats x repeats), its jobs on threads or on Ray, then
    each run's summary, and the runs side by side when there are several."""
    from benchmark import grid
    from coder.errors import UsageError
    from exercism import HarnessError

    settings = _settings(args, formats[0])
    if settings is None:
        return 2
    runs = grid.runs(args, models, formats)
    try:
        _work(args, settings, runs, exercises)
    except UsageError as exc:
        print(f"benchmark: {exc}", file=sys.stderr)
        return 2
    except HarnessError as exc:
        print(
            "benchmark: the harness cannot test solutions here, so no model was asked anything:"
            f" {exc}",
            file=sys.stderr,
        )
        return 2
    for run in runs:
        summary = grid.summarize(run, exercises, args, settings)
        print(f"\n{run.folder}\n{report.table(summary)}")
    if len(runs) > 1:
        print()
        _stats([run.folder for run in runs], None)
    return 0


def _settings(args: argparse.Namespace, fmt: str) -> RunSettings | None:
    """How every exercise is attempted; None (said why) when the sandbox cannot be made."""
    from benchmark.jobs import test_setup
    from coder.trust.rtc import RtcSettings
    from sandbox import SandboxError

    try:
        tests = test_setup(args)
    except SandboxError as exc:
        print(f"benchmark: --sandbox {args.sandbox}: {exc}", file=sys.stderr)
        return None
    where = f"Ray ({args.ray})" if args.ray else "this machine"
    print(f"benchmark: the tests run in {tests.sandbox.description}, on {where}", file=sys.stderr)
    return RunSettings(
        fmt,
        args.tries,
        tests=tests,
        candidates=args.candidates,
        candidate_tests=args.candidate_tests,
        refine=args.refine,
        plan=args.plan,
        diverse=args.diverse,
        rtc=args.rtc,
        rtc_reference=args.rtc_reference,
        rtc_settings=RtcSettings(
            args.rtc_samples, args.rtc_threshold, with_request=args.rtc_request
        ),
        consistency_prompt=args.consistency_prompt,
    )


def _work(args: argparse.Namespace, settings: RunSettings, runs, exercises) -> None:
    """The jobs not done yet, on threads or on Ray, each result saved as it arrives."""
    from benchmark import jobs, preflight
    from benchmark.progress import Progress

    todo = [jobs.Job(run, e) for run in runs for e in exercises]
    todo = [job for job in todo if not job.path.exists()]
    if todo and not args.ray:  # on Ray, a worker checks its own machine
        exercises = list({job.exercise.name: job.exercise for job in todo}.values())
        warnings = preflight.check(exercises, settings.tests)
        warnings += preflight.exposed(exercises, settings.tests)
        for warning in warnings:
            print(f"benchmark: {warning}", file=sys.stderr)
    with Progress(args.quiet, len(runs) * len(exercises)) as bar:
        bar.advance(len(runs) * len(exercises) - len(todo))

        def done(job: jobs.Job, result: dict) -> None:
            jobs.save(job, result)
            bar.advance(1)

        if args.ray:
            from benchmark.scaleout import run_on_ray

            run_on_ray(todo, args, settings, done)
        else:
            # One limiter per model: each provider has its own rate limit.
            limiters = {run.model: RateLimiter(args.rpm) for run in runs} if args.rpm else {}
            jobs.run_local(todo, args, settings, limiters, done)


def _stats(runs: list[Path], chart: Path | None) -> int:
    from benchmark import stats

    if chart is not None and chart.suffix.lower() not in stats.CHART_SUFFIXES:
        print(f"benchmark: --chart takes a .png or .svg file, not {chart}", file=sys.stderr)
        return 2
    missing = [str(r) for r in runs if not (r / "summary.json").is_file()]
    if missing:
        print(
            f"benchmark: not a finished run (no summary.json): {', '.join(missing)}",
            file=sys.stderr,
        )
        return 2
    if chart is not None and not chart.parent.is_dir():
        print(f"benchmark: --chart {chart}: no folder {chart.parent}", file=sys.stderr)
        return 2
    from coder.errors import UsageError

    try:
        text = stats.compare(runs, chart, shutil.get_terminal_size().columns)
    except UsageError as exc:
        print(f"benchmark: --stats: {exc}", file=sys.stderr)
        return 2
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
