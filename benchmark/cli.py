"""`benchmark --edit-format diff --model M`: run Exercism exercises against a model.

Results go to one JSON file per exercise in a run folder named by date, model and format, so
re-running the same command resumes. `benchmark --stats RUN...` compares finished runs.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from benchmark import report
from benchmark.runner import ExerciseResult, RunSettings, run_exercise
from sandbox import KINDS

DEFAULT_EXERCISES = Path("..") / "shared" / "exercism-python" / "practice"
FAKE_MODELS = ("oracle", "oracle-retry")
"""Built-in scripted models: the reference solution at once, or only at the second try."""


def build_parser() -> argparse.ArgumentParser:
    """The benchmark's arguments."""
    p = argparse.ArgumentParser(prog="benchmark", description=__doc__.splitlines()[0])
    p.add_argument("--model", default="oracle", help="litellm model name, or oracle/oracle-retry")
    p.add_argument("--api-base", help="URL of an OpenAI-compatible server")
    p.add_argument("--local-model", metavar="PATH.gguf", help="with --model local: this file")
    p.add_argument("--edit-format", default="diff")
    p.add_argument("--tries", type=int, default=2, help="attempts per exercise (default 2)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--num-tests", type=int, help="run only the first N exercises")
    p.add_argument("--keywords", help="comma-separated parts of exercise names to select")
    p.add_argument("--exercises-dir", type=Path, default=DEFAULT_EXERCISES)
    p.add_argument("--runs-dir", type=Path, default=Path("benchmark-runs"))
    p.add_argument("--repeat", type=int, default=1, help="run everything N times")
    p.add_argument("--test-timeout", type=float, default=60.0, help="seconds per test run")
    p.add_argument(
        "--sandbox",
        default="auto",
        choices=KINDS,
        help="how the model's code is contained (auto: bwrap where it works, else rlimit)",
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
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--oracle-latency", type=float, default=0.0, help="seconds the oracles wait per reply"
    )
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    from coder.local import stopped_on_exit

    with stopped_on_exit():
        return _main(args)


def _main(args: argparse.Namespace) -> int:
    if args.stats:
        from benchmark import stats

        print(stats.compare(args.stats))
        return 0
    if not args.exercises_dir.is_dir():
        print(
            f"benchmark: no exercises at {args.exercises_dir}: pass --exercises-dir with a folder"
            " of Exercism practice exercises (exercism/python's exercises/practice)",
            file=sys.stderr,
        )
        return 2
    from exercism import discover

    keywords = tuple(k for k in (args.keywords or "").split(",") if k)
    exercises = discover(args.exercises_dir, keywords, args.num_tests)
    from coder.selection.candidates import MAX_CANDIDATES

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
    from coder.rtc import RtcSettings
    from exercism import TestSetup
    from sandbox import Limits, SandboxError, get_sandbox, secret_values

    try:
        sandbox = get_sandbox(args.sandbox)
    except SandboxError as exc:
        print(f"benchmark: --sandbox {args.sandbox}: {exc}", file=sys.stderr)
        return 2
    print(f"benchmark: the tests run in {sandbox.description}", file=sys.stderr)
    limits = Limits(seconds=args.test_timeout)
    tests = TestSetup(sandbox, limits, secret_values(os.environ))
    settings = RunSettings(
        args.edit_format,
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
    for repeat in range(1, args.repeat + 1):
        folder = run_folder(args, repeat)
        summary = run(exercises, args, settings, folder)
        print(f"\n{folder}\n{report.table(summary)}")
    return 0


def run_folder(args: argparse.Namespace, repeat: int) -> Path:
    """The run's folder: the same for the same command on the same day, so that it resumes."""
    given = args.model
    if given == "local" and args.local_model:
        given = f"local-{Path(args.local_model).stem}"
    model = re.sub(r"[^\w.-]+", "-", given)
    name = f"{datetime.date.today()}--{model}--{args.edit_format}"
    if args.candidates > 1:
        name += f"--c{args.candidates}"
        name += "t" if args.candidate_tests else ""
        name += f"r{args.refine}" if args.candidate_tests and args.refine != 1 else ""
        name += "p" if args.plan else ""
        name += "d" if args.diverse else ""
    name += "--rtc" if args.rtc else ""
    name += "--rtc-reference" if args.rtc_reference else ""
    name += "--consistent" if args.consistency_prompt else ""
    return args.runs_dir / (name if args.repeat == 1 else f"{name}--r{repeat}")


def run(exercises, args: argparse.Namespace, settings: RunSettings, folder: Path) -> dict:
    """Run the exercises not yet done in folder, then write and return the summary."""
    results_dir = folder / "results"
    results_dir.mkdir(parents=True, exist_ok=True)
    todo = [ex for ex in exercises if not (results_dir / f"{ex.name}.json").exists()]
    with tempfile.TemporaryDirectory() as scratch, _progress(args.quiet, len(exercises)) as bar:
        bar.advance(len(exercises) - len(todo))

        def one(exercise):
            make = _model_factory(args, exercise)
            result = run_exercise(exercise, make, settings, Path(scratch) / exercise.name)
            _save(results_dir / f"{exercise.name}.json", result)
            bar.advance(1)

        with ThreadPoolExecutor(max_workers=max(1, args.threads)) as pool:
            list(pool.map(one, todo))
    results = [json.loads((results_dir / f"{ex.name}.json").read_text()) for ex in exercises]
    tries = settings.tries if settings.attempts else 0
    summary = report.summarize(results, len(exercises), tries)
    summary |= {"model": args.model, "edit_format": args.edit_format}
    summary |= {"candidates": args.candidates, "rtc": args.rtc}
    if args.rtc or args.rtc_reference:
        summary |= {"rtc_reference": args.rtc_reference, "rtc_samples": args.rtc_samples}
        summary |= {"rtc_threshold": args.rtc_threshold, "rtc_request": args.rtc_request}
    summary |= {"consistency_prompt": args.consistency_prompt}
    if args.candidates > 1:
        summary |= {"candidate_tests": args.candidate_tests, "refine": args.refine}
        summary |= {"plan": args.plan, "diverse": args.diverse}
    summary |= {"command": " ".join(["benchmark", *sys.argv[1:]]), "coder_commit": _commit()}
    (folder / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def _model_factory(args: argparse.Namespace, exercise):
    if args.model in FAKE_MODELS:
        from benchmark.oracle import oracle_factory

        make = oracle_factory(args.model == "oracle-retry", args.oracle_latency)
        return lambda workdir: make(args.edit_format, workdir, exercise.example_solution())
    from coder.llm import LiteLLMModel, ModelSettings

    if args.model == "local":
        from coder import local

        served = local.serve(args.local_model, on_status=lambda text: print(text, file=sys.stderr))
        settings = ModelSettings(
            served.model, served.api_base, api_key="local", max_tokens=local.MAX_REPLY
        )
    else:
        settings = ModelSettings(args.model, api_base=args.api_base)
    model = LiteLLMModel(settings)
    return lambda workdir: model


def _save(path: Path, result: ExerciseResult) -> None:
    temp = path.with_suffix(".tmp")
    temp.write_text(json.dumps(result.to_json(), indent=1))
    temp.replace(path)


def _commit() -> str | None:
    from coder.repo import Repo

    repo = Repo.find(Path(__file__).resolve().parent)
    return repo.head() if repo else None


class _progress:
    """A rich progress bar (or nothing, when quiet) that threads may advance."""

    def __init__(self, quiet: bool, total: int):
        self.quiet, self.total = quiet, total

    def __enter__(self):
        if not self.quiet:
            from rich.progress import Progress

            self.bar = Progress(transient=True)
            self.bar.start()
            self.task = self.bar.add_task("exercises", total=self.total)
        return self

    def advance(self, n: int) -> None:
        if not self.quiet and n:
            self.bar.advance(self.task, n)

    def __exit__(self, *exc) -> None:
        if not self.quiet:
            self.bar.stop()


if __name__ == "__main__":
    sys.exit(main())
