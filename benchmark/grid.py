"""The runs of one benchmark command: each model with each edit format, each repeat, in a
folder named for its settings (so that the same command resumes), and each run's summary."""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmark import report
from benchmark.runner import RunSettings
from exercism import LANGUAGES, Exercise


@dataclass(frozen=True)
class RunPlan:
    """One run: a model with an edit format, one repeat, and the folder its results go to."""

    model: str
    edit_format: str
    repeat: int
    folder: Path


def runs(args: argparse.Namespace, models: Sequence[str], formats: Sequence[str]) -> list[RunPlan]:
    """Every run of the command: each model with each format, each repeat (a model or format
    given twice counts once)."""
    return [
        RunPlan(model, fmt, repeat, run_folder(args, model, fmt, repeat))
        for model in dict.fromkeys(models)
        for fmt in dict.fromkeys(formats)
        for repeat in range(1, args.repeat + 1)
    ]


def run_folder(args: argparse.Namespace, model: str, fmt: str, repeat: int) -> Path:
    """The run's folder: the same for the same command on the same day, so that it resumes."""
    safe = re.sub(r"[^\w.-]+", "-", model_label(args, model))
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
    languages = getattr(args, "language_names", ["python"])
    if languages != ["python"]:
        name += "--" + ("polyglot" if len(languages) == len(LANGUAGES) else "-".join(languages))
    return args.runs_dir / (name if args.repeat == 1 else f"{name}--r{repeat}")


def result_path(folder: Path, exercise: Exercise) -> Path:
    """Where a run keeps an exercise's result: results/NAME.json for Python (as ever), and
    results/LANGUAGE/NAME.json for the others (five languages have a bowling)."""
    results = folder / "results"
    if exercise.language != "python":
        results = results / exercise.language
    return results / f"{exercise.name}.json"


def model_label(args: argparse.Namespace, model: str) -> str:
    """The model as results name it: `local` with its GGUF file's name when one was given."""
    if model == "local" and args.local_model:
        return f"local-{Path(args.local_model).stem}"
    return model


def summarize(
    run: RunPlan, exercises: Sequence[Exercise], args: argparse.Namespace, settings: RunSettings
) -> dict:
    """The run's summary from its saved results, also written to its folder."""
    # An exercise with no result (its Ray worker was lost, say) counts as not run.
    saved = [result_path(run.folder, e) for e in exercises]
    results = [json.loads(path.read_text()) for path in saved if path.exists()]
    tries = settings.tries if settings.attempts else 0
    summary = report.summarize(results, len(exercises), tries)
    languages = list(dict.fromkeys(e.language for e in exercises))
    if languages != ["python"]:
        summary["languages"] = report.by_language(results, [e.language for e in exercises], tries)
    summary |= {"model": model_label(args, run.model), "edit_format": run.edit_format}
    summary |= {"repeat": run.repeat}
    summary |= {"date": run.folder.name[:10], "candidates": args.candidates, "rtc": args.rtc}
    if args.rtc or args.rtc_reference:
        summary |= {"rtc_reference": args.rtc_reference, "rtc_samples": args.rtc_samples}
        summary |= {"rtc_threshold": args.rtc_threshold, "rtc_request": args.rtc_request}
    summary |= {"consistency_prompt": args.consistency_prompt}
    if args.candidates > 1:
        summary |= {"candidate_tests": args.candidate_tests, "refine": args.refine}
        summary |= {"plan": args.plan, "diverse": args.diverse}
    summary |= {"ray": args.ray, "rpm": args.rpm}
    summary |= {"tries": args.tries}
    summary |= {"command": " ".join(["benchmark", *sys.argv[1:]]), "coder_commit": coder_commit()}
    run.folder.mkdir(parents=True, exist_ok=True)
    (run.folder / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def coder_commit() -> str | None:
    """The commit of the code that runs, when it is a checkout."""
    from coder.seams.repo import Repo

    repo = Repo.find(Path(__file__).resolve().parent)
    return repo.head() if repo else None
