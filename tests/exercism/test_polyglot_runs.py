"""A few exercises of each language of aider's polyglot set through the real sandbox: the
reference solution passes, the stub does not, a compile error is the solution's, what the
harness lacks (the prepared cache, a toolchain that cannot start) is the harness's, and a
solution cannot write to what runs share (test_tampering.py has the solutions that game their
tests). Skipped when ../shared, a toolchain, or what `benchmark --prepare` fetches is not
there."""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path

import pytest

import exercism
from exercism import LANGUAGES, HarnessError, discover, get_language, layout, run_tests
from exercism.prepare import default_cache, is_prepared
from exercism.toolchain import ToolchainMissing, check
from sandbox import Limits

POLYGLOT = Path(__file__).resolve().parents[3] / "shared" / "polyglot-benchmark"
CACHE = default_cache(os.environ)
SAMPLES = {
    "cpp": ("gigasecond",),  # Boost's date_time; C++ builds take half a minute each
    "go": ("beer-song", "dnd-character"),  # the slices package: Go 1.21 or newer
    "java": ("bowling", "hangman"),  # a helper class; RxJava
    "javascript": ("grep", "affine-cipher"),  # xit( as well as xtest(
    "python": ("beer-song",),
    "rust": ("gigasecond", "acronym"),  # the time crate, from the vendored crates
}
"""Exercises per language, each chosen for something its language needs."""


def usable(name: str) -> str | None:
    """Why the language's exercises cannot run here, or None."""
    if not POLYGLOT.is_dir():
        return f"{POLYGLOT} is not there"
    try:
        check(get_language(name))
    except ToolchainMissing as exc:
        return str(exc)
    if not is_prepared(get_language(name), CACHE):
        return f"run `benchmark --prepare {name}` first (nothing in {CACHE / name})"
    return None


def exercise(language: str, name: str):
    folder = layout(POLYGLOT, tuple(LANGUAGES))[language] if POLYGLOT.is_dir() else POLYGLOT
    reason = usable(language)
    if reason:
        pytest.skip(reason)
    (found,) = [e for e in discover(folder, (name,), language=language) if e.name == name]
    return found


SETUP = exercism.TestSetup(cache=CACHE)
CASES = [(language, name) for language, names in SAMPLES.items() for name in names]


@pytest.mark.parametrize(("language", "name"), CASES, ids=[f"{a}-{b}" for a, b in CASES])
def test_the_reference_solution_passes(language: str, name: str) -> None:
    found = exercise(language, name)
    run = run_tests(found, found.example_solution(), SETUP)
    assert run.passed, run.output[-3000:]


@pytest.mark.parametrize("language", list(SAMPLES))
def test_the_stub_fails_as_the_solutions_failure(language: str) -> None:
    found = exercise(language, SAMPLES[language][0])
    stubs = {f: (found.folder / f).read_text() for f in found.solution_files}
    run = run_tests(found, stubs, SETUP)
    assert not run.passed and run.output


@pytest.mark.parametrize("language", ["go", "rust", "java", "javascript"])
def test_a_compile_error_is_the_solutions_and_counted_as_one(language: str) -> None:
    found = exercise(language, SAMPLES[language][0])
    broken = found.example_solution()
    main = next(f for f in found.solution_files if not f.endswith(".toml"))
    broken[main] += "\nthis is not code\n"
    run = run_tests(found, broken, SETUP)
    pattern = get_language(language).compile_error
    assert not run.passed
    assert re.search(pattern, run.output), run.output[-2000:]


def test_without_the_prepared_cache_the_tests_cannot_run(tmp_path: Path) -> None:
    found = exercise("go", "beer-song")
    with pytest.raises(HarnessError, match=r"benchmark --prepare go"):
        run_tests(found, found.example_solution(), exercism.TestSetup(cache=tmp_path))


def test_a_toolchain_that_cannot_start_in_the_sandbox_is_the_harnesss(monkeypatch) -> None:
    found = exercise("go", "beer-song")
    broken = dataclasses.replace(get_language("go"), probe=("go", "no-such-command"))
    monkeypatch.setitem(LANGUAGES, "go", broken)
    with pytest.raises(HarnessError, match=r"could not run .*go no-such-command failed"):
        run_tests(found, found.example_solution(), SETUP)


def test_a_program_missing_in_the_sandbox_is_the_harnesss(monkeypatch) -> None:
    found = exercise("go", "beer-song")
    broken = dataclasses.replace(get_language("go"), steps=(("no-such-program", "test"),))
    monkeypatch.setitem(LANGUAGES, "go", broken)
    with pytest.raises(HarnessError, match=r"no-such-program is not on the tests' PATH"):
        run_tests(found, found.example_solution(), SETUP)


def test_a_solution_cannot_write_to_the_shared_cache() -> None:
    found = exercise("javascript", "affine-cipher")
    target = CACHE / "javascript" / "node_modules" / "jest" / "written-by-a-solution"
    writing = found.example_solution()
    writing["affine-cipher.js"] = (
        f"require('fs').writeFileSync({str(target)!r}, 'x');\n" + writing["affine-cipher.js"]
    )
    run = run_tests(found, writing, SETUP)
    assert not run.passed and not target.exists()
    assert "EROFS" in run.output or "EACCES" in run.output, run.output[-2000:]


def test_a_hanging_solution_is_stopped_at_the_limit(monkeypatch) -> None:
    found = exercise("go", "beer-song")
    spinning = found.example_solution()
    spinning["beer_song.go"] += "\nfunc init() {\n\tfor {\n\t}\n}\n"
    quicker = dataclasses.replace(get_language("go"), needs=Limits(20, 40, 0, 512, 0))
    monkeypatch.setitem(LANGUAGES, "go", quicker)
    run = run_tests(found, spinning, dataclasses.replace(SETUP, limits=Limits(seconds=1)))
    assert run.timed_out and not run.passed
