"""`benchmark --rescore RUN`: a finished run's recorded replies tested again under today's
harness, with no model request, in a new run beside it that names the one it re-scored; and
what changed between the two, exercise by exercise."""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from benchmark import replay, report, stats
from benchmark.grid import coder_commit
from benchmark.result import ExerciseResult
from benchmark.runner import RunSettings, run_exercise
from coder.errors import UsageError
from exercism import Exercise
from sandbox import scratch

CARRIED = ("prompt_tokens", "completion_tokens", "cost")
"""What the replies cost when the original run asked for them: the re-scored run keeps it, so
that it compares with other runs (it asked for nothing itself)."""
IDENTITY = ("model", "edit_format", "repeat", "candidates", "consistency_prompt", "tries")
"""The original's settings that the re-scored run's summary keeps."""
WAS = ("tests_outcomes", "tampering", "error", "error_cause")
"""The original's outcome, kept in each re-scored result under "rescore"."""


def rescore(
    original: Path, exercises: dict[tuple[str, str], Exercise], base: RunSettings, threads: int = 1
) -> Path:
    """Play back each exercise of the run in folder original on exercises ((language, name) ->
    exercise), tested as base tests them; the new run's folder. A result already there is kept
    (a re-scoring stopped halfway resumes). UsageError for a run that cannot be played back."""
    run = stats.load(original)
    why = replay.refusal(run.summary, run.tries)
    if why:
        raise UsageError(f"--rescore {original}: {why}")
    settings = replace(
        base,
        tries=run.tries,
        consistency_prompt=bool(run.summary.get("consistency_prompt")),
        candidates=1,
        candidate_tests=False,
        rtc=False,
        rtc_reference=False,
    )
    folder = original.with_name(f"{original.name}--rescored-{datetime.date.today()}")
    todo = [(p, old) for p, old in _results(original) if not _beside(folder, original, p).exists()]
    with scratch.folder("coder-rescore-") as work, ThreadPoolExecutor(max(1, threads)) as pool:
        futures = [(p, pool.submit(_one, old, exercises, settings, work)) for p, old in todo]
        for path, future in futures:
            _save(_beside(folder, original, path), future.result())
    _summarize(folder, run)
    return folder


def _results(run: Path) -> list[tuple[Path, dict]]:
    """Each result file of the run with what it holds."""
    return [(p, json.loads(p.read_text())) for p in sorted((run / "results").glob("**/*.json"))]


def _beside(folder: Path, original: Path, path: Path) -> Path:
    """Where the new run keeps the result that the original keeps at path."""
    return folder / path.relative_to(original)


def _save(path: Path, result: dict) -> None:
    """Written atomically, as a run's results are (a re-scoring resumes from these)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_suffix(".tmp")
    temp.write_text(json.dumps(result, indent=1))
    temp.replace(path)


def _one(
    old: dict, exercises: dict[tuple[str, str], Exercise], settings: RunSettings, work: Path
) -> dict:
    """One exercise played back, with the original's outcome and cost kept beside the new."""
    language = old.get("language", "python")
    exercise = exercises.get((language, old["exercise"]))
    if exercise is None:
        result = ExerciseResult(old["exercise"], old["edit_format"], old["model"], language)
        result.error, result.error_cause = f"ExerciseError: no {language} exercise here", "other"
        new, stopped = result.to_json(), None
    else:
        new, stopped = _played(old, exercise, settings, work)
    new |= {key: old.get(key, new[key]) for key in CARRIED}
    new["rescore"] = {"stopped": stopped} | {key: old.get(key) for key in WAS}
    return new


def _played(
    old: dict, exercise: Exercise, settings: RunSettings, work: Path
) -> tuple[dict, str | None]:
    """The exercise's recorded replies through the chat and its tests, try by try as the
    original went; and, when they ran out before it ended, where."""
    model = replay.replayed(old)
    workdir = Path(tempfile.mkdtemp(dir=work)) / exercise.name
    settings = replace(settings, edit_format=old["edit_format"])
    new = run_exercise(exercise, lambda _: model, settings, workdir, old["model"]).to_json()
    if not replay.ran_out(model):
        return new, None
    # The original ended here: with its own error when it had one (a request that failed, the
    # harness), else as it was (it had passed, or had no tries left).
    error = old.get("error")
    new |= {"error": error, "error_cause": old.get("error_cause") if error else None}
    new["requests"] = new["requests"][:-1]  # the request that no reply was recorded for
    return new, f"its replies ran out at try {len(new['tests_outcomes']) + 1}"


def _summarize(folder: Path, run: stats.Run) -> dict:
    """The new run's summary over the original's selection and languages, written there."""
    results = [result for _, result in _results(folder)]
    original = run.summary
    summary = report.summarize(results, original["selected"], run.tries)
    if "languages" in original:
        each = [name for name, f in original["languages"].items() for _ in range(f["selected"])]
        summary["languages"] = report.by_language(results, each, run.tries)
    summary |= {key: original[key] for key in IDENTITY if key in original}
    summary |= {"date": str(datetime.date.today()), "rescored_from": str(run.path)}
    summary |= {"command": " ".join(["benchmark", *sys.argv[1:]]), "coder_commit": coder_commit()}
    (folder / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def changes(original: Path, folder: Path) -> list[str]:
    """A headline, then each exercise whose outcome changed (old -> new) or that was caught
    tampering."""
    before = {p.relative_to(original): r for p, r in _results(original)}
    lines = []
    for path, new in _results(folder):
        old = before.get(path.relative_to(folder), {})
        if _verdict(old) != _verdict(new) or new.get("tampering"):
            name = f"{new.get('language', 'python')}/{new['exercise']}"
            lines.append(f"  {name}: {outcome(old)} -> {outcome(new)}")
    results = [r for _, r in _results(folder)]
    caught = sum(1 for r in results if r.get("tampering"))
    ended = sum(1 for r in results if r["rescore"]["stopped"] and r.get("error"))
    head = (
        f"re-scored {len(results)} exercises of {original}: {len(lines)} changed or caught,"
        f" {caught} caught tampering, {ended} ended where the original's error ended them"
    )
    return [head, *lines]


def _verdict(result: dict) -> tuple:
    outcomes = tuple(result.get("tests_outcomes", []))
    return outcomes, result.get("tampering"), result.get("error_cause")


def outcome(result: dict) -> str:
    """An exercise's outcome in words: passed, failed, caught tampering; and its error."""
    tries = result.get("tests_outcomes", [])
    if result.get("tampering"):
        text = f"caught tampering at try {result.get('tampering_try')}: {result['tampering']}"
    elif any(tries):
        text = f"passed at try {tries.index(True) + 1}"
    else:
        text = f"failed after {len(tries)} tries" if tries else "not tested"
    if result.get("error"):
        text += f" ({result.get('error_cause')} error: {result['error'].splitlines()[0]})"
    return text


def main(args: argparse.Namespace) -> int:
    """The command: the run played back on this machine, its summary and what changed
    printed; the exit status (2, said why, when it cannot be done)."""
    from benchmark import jobs, polyglot
    from sandbox import SandboxError

    try:
        folders, exercises = _exercises(args)
        tests = jobs.test_setup(args)
    except (UsageError, SandboxError) as exc:
        print(f"benchmark: --rescore: {exc}", file=sys.stderr)
        return 2
    if polyglot.refused(list(folders)) or polyglot.prepare_for(args, folders):
        return 2
    print(f"benchmark: the tests run in {tests.sandbox.description}", file=sys.stderr)
    try:
        folder = rescore(args.rescore, exercises, RunSettings(tests=tests), args.threads)
    except UsageError as exc:
        print(f"benchmark: {exc}", file=sys.stderr)
        return 2
    summary = json.loads((folder / "summary.json").read_text())
    print(f"\n{folder}\n{report.table(summary)}\n")
    print("\n".join(changes(args.rescore, folder)))
    return 0


def _exercises(
    args: argparse.Namespace,
) -> tuple[dict[str, Path], dict[tuple[str, str], Exercise]]:
    """The folders of the languages the run has results of, and their exercises by (language,
    name); UsageError for a run that is not one, or a language that --exercises-dir lacks."""
    from benchmark import polyglot

    run = stats.load(args.rescore)
    languages = sorted({r.get("language", "python") for r in run.results}) or ["python"]
    folders = polyglot.chosen(args.exercises_dir, ",".join(languages))
    exercises = polyglot.exercises(folders, (), None)
    return folders, {(e.language, e.name): e for e in exercises}
