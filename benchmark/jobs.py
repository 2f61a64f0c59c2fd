"""The jobs of a benchmark command, one per (run, exercise): attempted on a pool of threads
here, or as Ray tasks (benchmark/scaleout.py); each result is handed back to be saved in its
run's folder as it arrives."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from pathlib import Path

from benchmark.grid import RunPlan, model_label, result_path
from benchmark.limiter import LimitedModel, Limiter
from benchmark.result import ExerciseResult
from benchmark.runner import RunSettings, run_exercise
from coder.seams.model import Model
from exercism import Exercise
from sandbox import scratch

FAKE_MODELS = ("oracle", "oracle-retry")
"""Built-in scripted models: the reference solution at once, or only at the second try."""


@dataclass(frozen=True)
class Job:
    """One exercise of one run."""

    run: RunPlan
    exercise: Exercise

    @property
    def path(self) -> Path:
        """Where the job's result is saved."""
        return result_path(self.run.folder, self.exercise)


OnDone = Callable[[Job, dict], None]


def attempt(
    job: Job,
    args: argparse.Namespace,
    settings: RunSettings,
    scratch: Path,
    limiter: Limiter | None = None,
) -> dict:
    """Run one job in a fresh folder under scratch; its result, ready to save (never raises)."""
    try:
        workdir = Path(tempfile.mkdtemp(dir=scratch)) / job.exercise.name
    except OSError as exc:
        return failed(job, f"HarnessError: no work folder for the exercise: {exc}", "harness")
    fmt = replace(settings, edit_format=job.run.edit_format)
    make = model_factory(args, job, limiter)
    name = model_label(args, job.run.model)
    return run_exercise(job.exercise, make, fmt, workdir, name).to_json()


def failed(job: Job, error: str, cause: str = "other") -> dict:
    """The result of a job that could not run at all."""
    result = ExerciseResult(
        job.exercise.name, job.run.edit_format, job.run.model, error=error, error_cause=cause
    )
    return result.to_json()


def run_local(
    jobs: Sequence[Job],
    args: argparse.Namespace,
    settings: RunSettings,
    limiters: Mapping[str, Limiter],
    on_done: OnDone,
) -> None:
    """The jobs on a pool of args.threads threads; on_done gets each result in this thread.
    Stopped early (Ctrl-C), the jobs not started yet are dropped: a rerun resumes them."""
    pool = ThreadPoolExecutor(max(1, args.threads))
    with scratch.folder("coder-benchmark-") as folder:
        try:
            running = {
                pool.submit(attempt, job, args, settings, folder, limiters.get(job.run.model)): job
                for job in jobs
            }
            for future in as_completed(running):
                on_done(running[future], future.result())
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def save(job: Job, result: dict) -> None:
    """Write the result where the job's run keeps it, atomically (a run resumes from these)."""
    job.path.parent.mkdir(parents=True, exist_ok=True)
    temp = job.path.with_suffix(".tmp")
    temp.write_text(json.dumps(result, indent=1))
    temp.replace(job.path)


def model_factory(
    args: argparse.Namespace, job: Job, limiter: Limiter | None
) -> Callable[[Path], Model]:
    """What makes the job's model for its work folder, behind the limiter if any. Nothing is
    started here: a model that fails to start fails inside the exercise's runner, recorded."""
    model_name, fmt, exercise = job.run.model, job.run.edit_format, job.exercise

    def make(workdir: Path) -> Model:
        if model_name in FAKE_MODELS:
            from benchmark.oracle import oracle_factory

            oracle = oracle_factory(model_name == "oracle-retry", args.oracle_latency)
            model = oracle(fmt, workdir, exercise.example_solution(), exercise.language)
        else:
            model = _hosted(args, model_name)
        return LimitedModel(model, limiter) if limiter else model

    return make


def _hosted(args: argparse.Namespace, name: str) -> Model:
    """A model through litellm: a hosted one, one behind --api-base, or the local server."""
    from coder.seams.llm import LiteLLMModel, ModelSettings

    if name != "local":
        return LiteLLMModel(ModelSettings(name, api_base=args.api_base))
    from coder.seams import local

    served = local.serve(args.local_model, on_status=lambda text: print(text, file=sys.stderr))
    settings = ModelSettings(
        served.model,
        served.api_base,
        api_key="local",
        max_tokens=local.MAX_REPLY,
        context_window=local.INPUT_WINDOW,
    )
    return LiteLLMModel(settings)


NO_FALLBACK = (
    "The benchmark does not fall back to --sandbox rlimit by itself: without namespaces the"
    " tests are not cut off from the file system (a solution could read the exercises'"
    " reference solutions), and, unless run as root, they run as you: they can read your"
    " files, kill the harness and leave processes running. Pass --sandbox rlimit to run so"
    " anyway"
)
"""Why --sandbox auto stops where bubblewrap cannot run, rather than taking the fallback."""


def test_setup(args: argparse.Namespace):
    """The sandbox, limits, secrets and prepared cache of the test runs, made where the tests
    run (on a Ray worker: that worker's machine and environment): auto is bubblewrap, never
    the fallback. SandboxError if the sandbox is unusable."""
    from exercism import TestSetup
    from sandbox import Limits, SandboxError, get_sandbox, secret_values

    try:
        sandbox = get_sandbox("bwrap" if args.sandbox == "auto" else args.sandbox)
    except SandboxError as exc:
        if args.sandbox != "auto":
            raise
        raise SandboxError(f"{exc}. {NO_FALLBACK}") from None
    limits = Limits(seconds=args.test_timeout)
    return TestSetup(sandbox, limits, secret_values(os.environ), cache_dir(args))


def cache_dir(args: argparse.Namespace) -> Path:
    """The prepared cache: --cache-dir, else $CODER_POLYGLOT_CACHE, else the user's cache."""
    from exercism.prepare import default_cache

    return args.cache_dir or default_cache(os.environ)
