"""`benchmark --ray [ADDRESS]`: every job a Ray task, on a local Ray runtime started here or on
an existing cluster; one rate limiter actor shared by all the workers; results come back to
this process, which saves them in the same run folders as a local run would.

A task carries its exercise's files (a cluster's nodes need not share a disk) and makes its
sandbox and model where it runs, from that node's environment: an API key is never sent
through Ray. Ray is an optional extra (`pip install 'coder[ray]'`), imported only here.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import socket
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from benchmark import jobs, preflight
from benchmark.jobs import Job, OnDone
from benchmark.limiter import RateLimiter
from benchmark.runner import RunSettings
from coder.errors import UsageError
from exercism import HarnessError, load
from sandbox import SandboxError

LOCAL = "local"
"""The --ray value that starts a Ray runtime on this machine (what `--ray` alone means)."""
PACKAGES = ("benchmark", "coder", "editformats", "exercism", "sandbox")
"""This project's packages, shipped to a cluster so that it runs the code of this checkout."""


def run_on_ray(
    work: Sequence[Job], args: argparse.Namespace, settings: RunSettings, on_done: OnDone
) -> None:
    """The jobs as Ray tasks; on_done gets each result in this process as it arrives. A task
    lost to Ray itself (its worker or node died) is reported and left unsaved, so that a rerun
    of the same command resumes it."""
    ray = _ray()
    started = _connect(ray, args.ray)
    try:
        limiters = {}
        if args.rpm:
            limiter = ray.remote(num_cpus=0)(RateLimiter)
            models = dict.fromkeys(job.run.model for job in work)
            limiters = {m: _RemoteLimiter(limiter.remote(args.rpm)) for m in models}
        portable = replace(settings, tests=None)
        if work:
            check = ray.remote(num_cpus=1, max_retries=0)(_preflight)
            failure, warnings = ray.get(check.remote(_checked(work), args))
            if failure is not None:
                raise HarnessError(f"on a Ray worker: {failure}")
            for warning in warnings:
                print(f"benchmark: on a Ray worker: {warning}", file=sys.stderr)
        task = ray.remote(num_cpus=1, max_retries=0)(_attempt)
        pending = {
            task.remote(_packed(job), args, portable, limiters.get(job.run.model)): job
            for job in work
        }
        while pending:
            (done,), _ = ray.wait(list(pending), num_returns=1)
            job = pending.pop(done)
            try:
                result = ray.get(done)
            except ray.exceptions.RayError as exc:
                name = f"{job.run.folder.name}/{job.exercise.name}"
                print(f"benchmark: {name} lost on Ray, not saved: {exc}", file=sys.stderr)
                continue
            on_done(job, result)
    finally:
        if started:
            ray.shutdown()


def _ray():
    try:
        import ray
    except ImportError:
        raise UsageError("--ray needs Ray, an optional extra: pip install 'coder[ray]'") from None
    return ray


def _connect(ray, address: str) -> bool:
    """Join the runtime this process already has, or start or join the one asked for; whether
    this call started it (and must shut it down)."""
    if ray.is_initialized():
        return False
    options: dict = {"log_to_driver": False, "logging_level": logging.WARNING}
    if address == LOCAL:
        options |= {"include_dashboard": False}
    else:
        _reachable(address)
        modules = [importlib.import_module(name) for name in PACKAGES]
        options |= {"address": address, "runtime_env": {"py_modules": modules}}
    try:
        ray.init(**options)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise UsageError(f"--ray {address}: cannot start or reach Ray: {exc}") from None
    return True


def _reachable(address: str) -> None:
    """UsageError unless a cluster address answers within seconds (Ray itself retries an
    unreachable one for minutes)."""
    if address == "auto":
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except (OSError, ValueError) as exc:
        raise UsageError(f"--ray {address}: no Ray cluster answers there: {exc}") from None


class _RemoteLimiter:
    """The limiter actor, seen from a task as a plain limiter."""

    def __init__(self, actor):
        self.actor = actor

    def reserve(self) -> float:
        """The seconds until this call's turn, as the shared actor hands them out."""
        import ray

        return ray.get(self.actor.reserve.remote())


def _packed(job: Job) -> tuple[Job, dict[str, bytes]]:
    """The job with every file of its exercise's folder, for a node that cannot read it."""
    folder = job.exercise.folder
    files = {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }
    return job, files


def _checked(work: Sequence[Job]) -> list[tuple[Job, dict[str, bytes]]]:
    """The jobs whose exercises the harness's check may try, packed: one per exercise, those
    with a reference solution first, at most preflight.TRIES of each language."""
    jobs_by_exercise = {(job.exercise.language, job.exercise.name): job for job in work}
    ordered = sorted(jobs_by_exercise.values(), key=lambda job: not job.exercise.example_files)
    languages = dict.fromkeys(job.exercise.language for job in ordered)
    return [
        _packed(job)
        for language in languages
        for job in [j for j in ordered if j.exercise.language == language][: preflight.TRIES]
    ]


def _preflight(
    packed: list[tuple[Job, dict[str, bytes]]], args: argparse.Namespace
) -> tuple[str | None, list[str]]:
    """A Ray task: the harness's own check (benchmark/preflight.py) on the worker's machine;
    why it failed (or None), and its warnings."""
    with tempfile.TemporaryDirectory() as scratch:
        exercises = [
            _unpacked(job, files, Path(scratch) / str(n)).exercise
            for n, (job, files) in enumerate(packed)
        ]
        try:
            return None, preflight.check(exercises, jobs.test_setup(args))
        except (HarnessError, SandboxError) as exc:
            return str(exc), []


def _unpacked(job: Job, files: dict[str, bytes], scratch: Path) -> Job:
    """The job, its exercise's files written under scratch."""
    folder = scratch / "exercise" / job.exercise.name
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    return replace(job, exercise=load(folder, job.exercise.language))


def _attempt(
    packed: tuple[Job, dict[str, bytes]],
    args: argparse.Namespace,
    settings: RunSettings,
    limiter: _RemoteLimiter | None,
) -> dict:
    """A Ray task: unpack the exercise, make the sandbox here, attempt the job."""
    job, files = packed
    with tempfile.TemporaryDirectory() as scratch:
        here = _unpacked(job, files, Path(scratch))
        try:
            tests = jobs.test_setup(args)
        except SandboxError as exc:
            return jobs.failed(job, f"sandbox on the Ray worker: {exc}", "harness")
        work = Path(scratch) / "work"
        work.mkdir()
        result = jobs.attempt(here, args, replace(settings, tests=tests), work, limiter)
    return result
