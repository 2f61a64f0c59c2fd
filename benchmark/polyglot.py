"""The languages of a benchmark command: which are found and asked for (--languages), their
exercises, their toolchains checked before anything else, what their tests need from the
registries prepared and their tests counted from the reference solutions (--prepare, or on
first use, saying what and where)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from coder.errors import UsageError
from exercism import LANGUAGES, Exercise, discover, get_language, layout
from exercism.prepare import default_cache, is_prepared, prepare
from exercism.toolchain import ToolchainMissing, check


def found(root: Path) -> dict[str, Path]:
    """Each language under root -> its folder of exercises (see exercism.layout)."""
    return layout(root, tuple(LANGUAGES))


def chosen(root: Path, asked: str | None) -> dict[str, Path]:
    """The languages asked for (comma-separated; None: every one found), each with its
    folder; UsageError naming a language that is unknown or not under root."""
    there = found(root)
    if not asked:
        return there
    names = [n.strip() for n in asked.split(",") if n.strip()]
    for name in names:
        try:
            get_language(name)
        except ValueError as exc:
            raise UsageError(f"--languages: {exc}") from None
        if name not in there:
            raise UsageError(
                f"--languages: no {name} exercises in {root} (found: {', '.join(there)})"
            )
    return {name: there[name] for name in dict.fromkeys(names)}


def exercises(
    folders: dict[str, Path], keywords: tuple[str, ...], limit: int | None
) -> list[Exercise]:
    """The exercises of each language whose names contain any of keywords, the first limit
    of each language, languages in the order given."""
    return [
        exercise
        for language, folder in folders.items()
        for exercise in discover(folder, keywords, limit, language)
    ]


def refusals(languages: Sequence[str]) -> list[str]:
    """Why each language whose toolchain is incomplete here cannot be tested, with the
    install hint; empty when every one can."""
    found = []
    for name in languages:
        try:
            check(get_language(name))
        except ToolchainMissing as exc:
            found.append(str(exc))
    return found


def prepared(
    folders: dict[str, Path], cache: Path, force: bool = False, asked: bool = False
) -> None:
    """Fetch what the languages' tests need into cache, for those that lack it (every one,
    with force), saying what it fetches and where, and, when the user asked for it, which had
    it already; OSError when a fetch fails. What a language fetches serves all its exercises
    under its folder, whichever are selected."""
    for name, folder in folders.items():
        language = get_language(name)
        if language.prepare is None:
            continue
        if is_prepared(language, cache) and not force:
            if asked:
                _say(f"{language.title}'s tests are prepared in {cache / name} already")
            continue
        began = time.perf_counter()
        _say(f"preparing {language.title}'s tests in {cache / name}")
        prepare(language, cache, discover(folder, language=name), _say)
        _say(f"{language.title} prepared in {time.perf_counter() - began:.1f} s")


def refused(languages: list[str]) -> int:
    """2 when a language's toolchain is incomplete here (said which, with how to install
    it), before any model is asked anything; else 0."""
    reasons = refusals(languages)
    for why in reasons:
        print(f"benchmark: {why}", file=sys.stderr)
    if reasons:
        print(
            "benchmark: nothing was run and no model was asked anything; install it, or leave"
            " the language out with --languages",
            file=sys.stderr,
        )
    return 2 if reasons else 0


def prepare_for(args: argparse.Namespace, folders: dict[str, Path], asked: bool = False) -> int:
    """What the languages' tests need, fetched into the cache where it is missing (anew, with
    --prepare-again); asked: by --prepare (which says what is there already). 2 (said why)
    when a fetch fails."""
    from benchmark.jobs import cache_dir

    cache = cache_dir(args)
    try:
        prepared(folders, cache, force=args.prepare_again, asked=asked)
    except OSError as exc:
        print(f"benchmark: preparing the tests into {cache} failed: {exc}", file=sys.stderr)
        return 2
    return counted(args, folders) if asked else 0


def counted(args: argparse.Namespace, folders: dict[str, Path]) -> int:
    """The tests of every exercise of the languages counted from their reference solutions'
    runs in the harness (kept for the runs to come), --threads at once; 2 when a reference
    solution does not pass in the harness (said which and why): the harness's fault."""
    from concurrent.futures import ThreadPoolExecutor

    from benchmark.jobs import test_setup
    from exercism import HarnessError, count_tests
    from sandbox import SandboxError

    try:
        setup = test_setup(args)
    except SandboxError as exc:
        print(f"benchmark: {exc}", file=sys.stderr)
        return 2
    failed = []

    def count(exercise: Exercise) -> None:
        try:
            count_tests(exercise, setup)
        except HarnessError as exc:
            failed.append(f"{exercise.language}/{exercise.name}: {exc}")

    for name, folder in folders.items():
        if get_language(name).report is None:
            continue
        found = discover(folder, language=name)
        began = time.perf_counter()
        title = get_language(name).title
        _say(f"counting the tests of {len(found)} {title} exercises from their reference solutions")
        with ThreadPoolExecutor(max(1, args.threads)) as pool:
            list(pool.map(count, found))
        _say(f"{title} counted in {time.perf_counter() - began:.1f} s")
    for why in failed:
        print(f"benchmark: {why}", file=sys.stderr)
    return 2 if failed else 0


def _say(text: str) -> None:
    print(f"benchmark: {text}", file=sys.stderr, flush=True)


def main(argv: Sequence[str]) -> int:
    """`python -m benchmark.polyglot EXERCISES_DIR LANGUAGES`: `benchmark --prepare` with the
    standard library alone (none of the project's dependencies are imported), so that it can
    run while they install (CI does). The exit statuses are benchmark's."""
    if len(argv) != 2:
        print("usage: python -m benchmark.polyglot EXERCISES_DIR LANGUAGES", file=sys.stderr)
        return 2
    try:
        folders = chosen(Path(argv[0]), argv[1])
    except UsageError as exc:
        print(f"benchmark: {exc}", file=sys.stderr)
        return 2
    if refused(list(folders)):
        return 2
    try:
        prepared(folders, default_cache(os.environ), asked=True)
    except OSError as exc:
        print(f"benchmark: preparing the tests failed: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
