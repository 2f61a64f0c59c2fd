"""The benchmark on aider's polyglot layout: every language goes from 0% to 100% with the
oracle that is right only at its second try, a missing toolchain is a refusal before any
request, what the tests need is prepared on first use, the oracle's replies make every
reference solution in every edit format, and the flat Python layout asks exactly what it
asked before. The exercises come from ../shared (skipped without it)."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from pathlib import Path

import pytest

from benchmark import cli
from benchmark.oracle import OracleModel
from benchmark.runner import INSTRUCTIONS, RunSettings, _session
from editformats import FORMATS
from exercism import LANGUAGES, copy_to, discover, get_language, layout, solution_of
from exercism.prepare import default_cache, is_prepared
from exercism.toolchain import ToolchainMissing, check
from tests.coder.fake_openai import FakeOpenAI, Text

ROOT = Path(__file__).resolve().parents[2]
POLYGLOT = ROOT.parent / "shared" / "polyglot-benchmark"
needs_polyglot = pytest.mark.skipif(not POLYGLOT.is_dir(), reason=f"{POLYGLOT} is not there")
CACHE = default_cache(os.environ)
ONE_EACH = {
    "cpp": "queen-attack",
    "go": "beer-song",
    "java": "bowling",
    "javascript": "grep",
    "python": "beer-song",
    "rust": "gigasecond",
}
"""An exercise per language for the runs through the command line."""


def usable() -> list[str]:
    """The languages whose toolchain is here and whose tests are prepared."""
    found = []
    for name in ONE_EACH:
        try:
            check(get_language(name))
        except ToolchainMissing:
            continue
        if is_prepared(get_language(name), CACHE):
            found.append(name)
    return found


def small_set(root: Path, languages: list[str]) -> Path:
    """Aider's layout with one exercise of each language."""
    for name in languages:
        source = POLYGLOT / name / "exercises" / "practice" / ONE_EACH[name]
        shutil.copytree(source, root / name / "exercises" / "practice" / ONE_EACH[name])
    return root


def argv(tmp_path: Path, exercises: Path, *more: str) -> list[str]:
    runs = ["--runs-dir", str(tmp_path / "runs"), "--cache-dir", str(CACHE), "--quiet"]
    return ["--exercises-dir", str(exercises), *runs, *more]


@needs_polyglot
def test_every_language_goes_from_nothing_to_everything(tmp_path: Path, capsys) -> None:
    languages = usable()
    if not languages:
        pytest.skip(f"no language is usable here (toolchains, or nothing prepared in {CACHE})")
    exercises = small_set(tmp_path / "set", languages)
    more = ("--model", "oracle-retry", "--edit-format", "whole", "--threads", "2")
    assert cli.main(argv(tmp_path, exercises, *more)) == 0
    (summary,) = (tmp_path / "runs").glob("*/summary.json")
    figures = json.loads(summary.read_text())
    assert figures["selected"] == figures["completed"] == len(languages)
    assert figures["pass_rate_1"] == 0.0 and figures["pass_rate_2"] == 100.0
    for name in languages:
        own = figures["languages"][name]
        assert (own["selected"], own["pass_rate_1"], own["pass_rate_2"]) == (1, 0.0, 100.0)
    named = "polyglot" if len(languages) == len(LANGUAGES) else "-".join(languages)
    assert summary.parent.name.endswith(f"--{named}")
    results = sorted(p.relative_to(summary.parent) for p in summary.parent.rglob("*.json"))
    if "python" in languages:  # Python's results keep their place
        assert Path("results/beer-song.json") in results
    assert "try 1 0.0%, try 2 100.0% of 1" in capsys.readouterr().out


@pytest.mark.parametrize("program", ["go", "cargo"])
def test_a_missing_toolchain_is_refused_before_any_request(
    tmp_path: Path, monkeypatch, capsys, program: str
) -> None:
    language = "go" if program == "go" else "rust"
    exercises = tmp_path / "set" / language / "exercises" / "practice" / "hello"
    exercises.joinpath(".meta").mkdir(parents=True)
    exercises.joinpath(".meta", "config.json").write_text(
        json.dumps({"files": {"solution": ["a"], "test": ["b"]}})
    )
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with FakeOpenAI([Text("never asked")] * 4) as server:
        more = ("--model", "openai/fake", "--api-base", server.base_url)
        status = cli.main(argv(tmp_path, tmp_path / "set", *more))
    err = capsys.readouterr().err
    assert status == 2
    assert f"{get_language(language).title} cannot be tested here: {program}" in err
    assert "To install it:" in err and "no model was asked anything" in err
    assert server.requests == [] and not (tmp_path / "runs").exists()


def test_unknown_or_absent_languages_are_named(tmp_path: Path, capsys) -> None:
    (tmp_path / "set" / "go" / "exercises" / "practice").mkdir(parents=True)
    assert cli.main(argv(tmp_path, tmp_path / "set", "--languages", "cobol")) == 2
    assert "unknown language 'cobol': choose from cpp, go" in capsys.readouterr().err
    assert cli.main(argv(tmp_path, tmp_path / "set", "--languages", "rust")) == 2
    assert "no rust exercises in" in capsys.readouterr().err


@needs_polyglot
def test_what_the_tests_need_is_prepared_on_first_use(tmp_path: Path, monkeypatch, capsys):
    if "go" not in usable():
        pytest.skip("Go is not usable here")
    fetched = []

    def offline(folder: Path, exercises, say) -> None:
        fetched.append(len(exercises))
        say("fetching nothing: no network in tests")
        raise OSError("the registry cannot be reached")

    row = dataclasses.replace(get_language("go"), prepare=offline)
    monkeypatch.setitem(LANGUAGES, "go", row)
    exercises = small_set(tmp_path / "set", ["go"])
    cache = tmp_path / "cache"
    more = ("--cache-dir", str(cache), "--model", "oracle")
    assert cli.main([*argv(tmp_path, exercises), *more]) == 2
    err = capsys.readouterr().err
    assert f"preparing Go's tests in {cache / 'go'}" in err
    assert "fetching nothing: no network in tests" in err
    assert "failed: the registry cannot be reached" in err
    assert fetched == [1] and not (cache / "go").exists()
    assert not (tmp_path / "runs").exists()


@needs_polyglot
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_the_oracle_writes_every_reference_solution(tmp_path: Path, fmt: str) -> None:
    folders = layout(POLYGLOT, tuple(LANGUAGES))
    for name, folder in folders.items():
        for n, exercise in enumerate(discover(folder, language=name)):
            workdir = copy_to(exercise, tmp_path / f"{name}-{n}" / exercise.name)
            reference = exercise.example_solution()
            read = lambda p, w=workdir: (w / p).read_text() if (w / p).is_file() else None  # noqa: E731
            model = OracleModel(fmt, read, reference, language=name)
            session = _session(exercise, model, RunSettings(fmt), workdir)
            session.turn(INSTRUCTIONS.format(instructions="", files="", library=""))
            written = solution_of(exercise, workdir)
            assert {p: written.get(p, "").rstrip("\n") for p in reference} == {
                p: t.rstrip("\n") for p, t in reference.items()
            }, exercise.name
            for other in set(written) - set(reference):  # the exercise's own (a Java class)
                assert written[other] == (exercise.folder / other).read_text(), exercise.name


def test_the_flat_python_layout_asks_what_aiders_python_folder_asks(tmp_path: Path) -> None:
    flat = ROOT / "tests" / "exercism" / "practice"
    nested = tmp_path / "set" / "python" / "exercises" / "practice"
    shutil.copytree(flat, nested)
    hashes = []
    for where, exercises in (("flat", flat), ("nested", nested)):
        more = ("--runs-dir", str(tmp_path / where), "--quiet", "--model", "oracle-retry")
        assert cli.main(["--exercises-dir", str(exercises), *more]) == 0
        results = sorted((tmp_path / where).glob("*/results/*.json"))
        assert [p.name for p in results] == ["initials.json", "running-total.json"]
        hashes.append(
            [[r["request"] for r in json.loads(p.read_text())["requests"]] for p in results]
        )
        (summary,) = (tmp_path / where).glob("*/summary.json")
        assert summary.parent.name.endswith("--oracle-retry--diff")
        assert "languages" not in json.loads(summary.read_text())
    assert hashes[0] == hashes[1] and all(len(h) == 2 for h in hashes[0])


def test_the_python_instructions_are_word_for_word_as_before() -> None:
    library = get_language("python").library
    text = INSTRUCTIONS.format(instructions="Do it.", files="a.py", library=library)
    assert text == (
        "Do it.\n\nImplement the stubs in a.py so that they solve the exercise described above."
        " Use only the\nPython standard library. Keep the names of the functions and classes"
        " in the stubs: they are\nwhat the unit tests call."
    )


@needs_polyglot
@pytest.mark.parametrize("where", ["threads", "ray"])
def test_languages_and_keywords_compose_with_a_grid_and_repeats(tmp_path: Path, where: str):
    if where == "ray":
        pytest.importorskip("ray")
    if "go" not in usable():
        pytest.skip("Go is not usable here")
    exercises = small_set(tmp_path / "set", ["go", "python"])
    grid = ("--model", "oracle", "--edit-format", "whole", "diff", "--repeat", "2")
    chosen = ("--languages", "go,python", "--keywords", "beer")
    more = ("--ray",) if where == "ray" else ("--threads", "2")
    assert cli.main(argv(tmp_path, exercises, *chosen, *grid, *more)) == 0
    summaries = sorted((tmp_path / "runs").glob("*/summary.json"))
    assert [s.parent.name[12:] for s in summaries] == [
        f"oracle--{fmt}--go-python--r{n}" for fmt in ("diff", "whole") for n in (1, 2)
    ]
    for summary in summaries:
        figures = json.loads(summary.read_text())
        assert figures["selected"] == 2 and figures["pass_rate_1"] == 100.0
        assert {k: v["pass_rate_1"] for k, v in figures["languages"].items()} == {
            "go": 100.0,
            "python": 100.0,
        }
        assert (summary.parent / "results" / "go" / "beer-song.json").is_file()
        assert (summary.parent / "results" / "beer-song.json").is_file()


def test_prepare_counts_the_tests_and_a_failing_reference_is_the_harnesss(
    tmp_path: Path, capsys
) -> None:
    if "go" not in usable():
        pytest.skip("Go is not usable here")
    exercises = small_set(tmp_path / "set", ["go"])
    assert cli.main([*argv(tmp_path, exercises), "--prepare", "go"]) == 0
    assert "counting the tests of 1 Go exercises from their reference solutions" in (
        capsys.readouterr().err
    )
    example = exercises / "go" / "exercises" / "practice" / "beer-song" / ".meta" / "example.go"
    example.chmod(0o644)
    example.write_text(example.read_text().replace("bottles of beer on the wall", "bottles"))
    assert cli.main([*argv(tmp_path, exercises), "--prepare", "go"]) == 2
    err = capsys.readouterr().err
    assert "go/beer-song: the reference solution of beer-song (Go) does not pass" in err
