"""The work of one benchmark command: a job per (model, format, repeat, exercise), run on a
thread pool here or as Ray tasks (benchmark/scaleout.py), each result saved in its run's
folder as it arrives; then each run's summary."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import sys
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from pathlib import Path

from benchmark import report
from benchmark.limiter import LimitedModel, Limiter
from benchmark.runner import ExerciseResult, RunSettings, run_exercise
from exercism import Exercise

FAKE_MODELS = ("oracle", "oracle-retry")
"""Built-in scripted models: the reference solution at once, or only at the second try."""


@dataclass(frozen=True)
class RunPlan:
    """One run: a model with an edit format, one repeat, and the folder its results go to."""

    model: str
    edit_format: str
    repeat: int
    folder: Path


@dataclass(frozen=True)
class Job:
    """One exercise of one run."""

    run: RunPlan
    exercise: Exercise

    @property
    def path(self) -> Path:
        """Where the job's result is saved."""
        return self.run.folder / "results" / f"{self.exercise.name}.json"


OnDone = Callable[[Job, dict], None]


def plan(args: argparse.Namespace, models: Sequence[str], formats: Sequence[str]) -> list[RunPlan]:
    """Every run of the command: each model with each format, each repeat."""
    return [
        RunPlan(model, fmt, repeat, run_folder(args, model, fmt, repeat))
        for model in models
        for fmt in formats
        for repeat in range(1, args.repeat + 1)
    ]


def run_folder(args: argparse.Namespace, model: str, fmt: str, repeat: int) -> Path:
    """The run's folder: the same for the same command on the same day, so that it resumes."""
    given = model
    if given == "local" and args.local_model:
        given = f"local-{Path(args.local_model).stem}"
    safe = re.sub(r"[^\w.-]+", "-", given)
    name = f"{datetime.date.today()}--{safe}--{fmt}"
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


def attempt(
    job: Job,
    args: argparse.Namespace,
    settings: RunSettings,
    scratch: Path,
    limiter: Limiter | None = None,
) -> dict:
    """Run one job in a fresh folder under scratch; its result, ready to save. Never raises:
    a model that cannot even be made (a local server that does not start) is the job's error."""
    try:
        make = model_factory(args, job, limiter)
    except Exception as exc:  # part of the per-exercise runner: recorded, not raised
        return failed(job, f"{type(exc).__name__}: {exc}")
    workdir = Path(tempfile.mkdtemp(dir=scratch)) / job.exercise.name
    fmt = replace(settings, edit_format=job.run.edit_format)
    return run_exercise(job.exercise, make, fmt, workdir).to_json()


def failed(job: Job, error: str) -> dict:
    """The result of a job that could not run at all (its worker failed, say)."""
    result = ExerciseResult(job.exercise.name, job.run.edit_format, job.run.model, error=error)
    return result.to_json()


def run_local(
    jobs: Sequence[Job],
    args: argparse.Namespace,
    settings: RunSettings,
    limiter: Limiter | None,
    on_done: OnDone,
) -> None:
    """The jobs on a pool of args.threads threads; on_done gets each result in this thread."""
    threads = max(1, args.threads)
    with tempfile.TemporaryDirectory() as scratch, ThreadPoolExecutor(threads) as pool:
        running = {
            pool.submit(attempt, job, args, settings, Path(scratch), limiter): job for job in jobs
        }
        for future in as_completed(running):
            on_done(running[future], future.result())


def save(job: Job, result: dict) -> None:
    """Write the result where the job's run keeps it, atomically (a run resumes from these)."""
    job.path.parent.mkdir(parents=True, exist_ok=True)
    temp = job.path.with_suffix(".tmp")
    temp.write_text(json.dumps(result, indent=1))
    temp.replace(job.path)


def summarize(
    run: RunPlan, exercises: Sequence[Exercise], args: argparse.Namespace, settings: RunSettings
) -> dict:
    """The run's summary from its saved results, also written to its folder."""
    results = [
        json.loads((run.folder / "results" / f"{e.name}.json").read_text()) for e in exercises
    ]
    tries = settings.tries if settings.attempts else 0
    summary = report.summarize(results, len(exercises), tries)
    summary |= {"model": run.model, "edit_format": run.edit_format, "repeat": run.repeat}
    summary |= {"date": run.folder.name[:10], "candidates": args.candidates, "rtc": args.rtc}
    if args.rtc or args.rtc_reference:
        summary |= {"rtc_reference": args.rtc_reference, "rtc_samples": args.rtc_samples}
        summary |= {"rtc_threshold": args.rtc_threshold, "rtc_request": args.rtc_request}
    summary |= {"consistency_prompt": args.consistency_prompt}
    if args.candidates > 1:
        summary |= {"candidate_tests": args.candidate_tests, "refine": args.refine}
        summary |= {"plan": args.plan, "diverse": args.diverse}
    summary |= {"ray": args.ray, "rpm": args.rpm}
    summary |= {"command": " ".join(["benchmark", *sys.argv[1:]]), "coder_commit": _commit()}
    (run.folder / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def model_factory(args: argparse.Namespace, job: Job, limiter: Limiter | None):
    """What makes the job's model for its work folder, behind the shared limiter if any."""
    wrap = (lambda m: LimitedModel(m, limiter)) if limiter else (lambda m: m)
    model_name, fmt, exercise = job.run.model, job.run.edit_format, job.exercise
    if model_name in FAKE_MODELS:
        from benchmark.oracle import oracle_factory

        make = oracle_factory(model_name == "oracle-retry", args.oracle_latency)
        return lambda workdir: wrap(make(fmt, workdir, exercise.example_solution()))
    from coder.llm import LiteLLMModel, ModelSettings

    if model_name == "local":
        from coder import local

        served = local.serve(args.local_model, on_status=lambda text: print(text, file=sys.stderr))
        settings = ModelSettings(
            served.model, served.api_base, api_key="local", max_tokens=local.MAX_REPLY
        )
    else:
        settings = ModelSettings(model_name, api_base=args.api_base)
    model = wrap(LiteLLMModel(settings))
    return lambda workdir: model


def test_setup(args: argparse.Namespace):
    """The sandbox, limits and secrets of the test runs, made where the tests run (on a Ray
    worker: that worker's machine and environment). SandboxError if the sandbox is unusable."""
    from exercism import TestSetup
    from sandbox import Limits, get_sandbox, secret_values

    sandbox = get_sandbox(args.sandbox)
    return TestSetup(sandbox, Limits(seconds=args.test_timeout), secret_values(os.environ))


def _commit() -> str | None:
    from coder.repo import Repo

    repo = Repo.find(Path(__file__).resolve().parent)
    return repo.head() if repo else None


class Progress:
    """A rich progress bar (or nothing, when quiet) advanced as results arrive."""

    def __init__(self, quiet: bool, total: int):
        self.quiet, self.total = quiet, total

    def __enter__(self) -> Progress:
        if not self.quiet:
            from rich.progress import Progress as Bar

            self.bar = Bar(transient=True)
            self.bar.start()
            self.task = self.bar.add_task("exercises", total=self.total)
        return self

    def advance(self, n: int) -> None:
        """Count n more exercises done."""
        if not self.quiet and n:
            self.bar.advance(self.task, n)

    def __exit__(self, *exc) -> None:
        if not self.quiet:
            self.bar.stop()
