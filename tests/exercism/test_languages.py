"""The language table and what it decides without running anything: the layouts, the pairing
of reference files with solution files, un-skipping, the toolchain check and its refusal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from exercism import LANGUAGES, discover, get_language, layout, load
from exercism.exercise import pair_examples
from exercism.prepare import default_cache, is_prepared
from exercism.toolchain import ToolchainMissing, check, locate

POLYGLOT = Path(__file__).resolve().parents[3] / "shared" / "polyglot-benchmark"
needs_polyglot = pytest.mark.skipif(not POLYGLOT.is_dir(), reason=f"{POLYGLOT} is not there")
COUNTS = {"cpp": 26, "go": 39, "java": 47, "javascript": 49, "python": 34, "rust": 30}


def test_every_language_is_a_row_named_for_its_folder() -> None:
    assert list(LANGUAGES) == ["cpp", "go", "java", "javascript", "python", "rust"]
    for name, language in LANGUAGES.items():
        assert language.name == name and get_language(name) is language
        assert language.fence and language.library and language.install
    with pytest.raises(ValueError, match="unknown language 'cobol': choose from cpp, go"):
        get_language("cobol")


def exercise_folder(root: Path, config: dict, files: dict[str, str]) -> Path:
    (root / ".meta").mkdir(parents=True)
    (root / ".meta" / "config.json").write_text(json.dumps({"files": config}))
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_the_flat_layout_is_python_and_aiders_is_per_language(tmp_path: Path) -> None:
    flat = tmp_path / "flat"
    exercise_folder(flat / "two-fer", {"solution": ["a.py"], "test": ["a_test.py"]}, {})
    assert layout(flat, tuple(LANGUAGES)) == {"python": flat}
    polyglot = tmp_path / "polyglot"
    for name in ("go", "rust"):
        (polyglot / name / "exercises" / "practice").mkdir(parents=True)
    found = layout(polyglot, tuple(LANGUAGES))
    assert list(found) == ["go", "rust"]
    assert layout(found["rust"], tuple(LANGUAGES)) == {"rust": found["rust"]}


def test_examples_pair_by_extension_and_name_not_position() -> None:
    # C++'s meetup lists its example files in the other order than its solution files.
    pairs = pair_examples(("meetup.h", "meetup.cpp"), (".meta/example.cpp", ".meta/example.h"))
    assert pairs == {".meta/example.cpp": "meetup.cpp", ".meta/example.h": "meetup.h"}
    rust = pair_examples(
        ("src/lib.rs", "Cargo.toml"), (".meta/example.rs", ".meta/Cargo-example.toml")
    )
    assert rust == {".meta/example.rs": "src/lib.rs", ".meta/Cargo-example.toml": "Cargo.toml"}
    java = pair_examples(
        ("src/main/java/Bowling.java",),
        (".meta/src/reference/java/Bowling.java", ".meta/src/reference/java/Frame.java"),
    )
    assert java == {
        ".meta/src/reference/java/Bowling.java": "src/main/java/Bowling.java",
        ".meta/src/reference/java/Frame.java": "src/main/java/Frame.java",
    }
    assert pair_examples(("a.py",), (".meta/example.py",)) == {".meta/example.py": "a.py"}


def test_a_stub_no_example_replaces_is_part_of_the_reference(tmp_path: Path) -> None:
    folder = exercise_folder(
        tmp_path / "acronym",
        {
            "solution": ["src/lib.rs", "Cargo.toml"],
            "test": ["t.rs"],
            "example": [".meta/example.rs"],
        },
        {"src/lib.rs": "stub", "Cargo.toml": "[package]\n", ".meta/example.rs": "fn x() {}"},
    )
    reference = load(folder, "rust").example_solution()
    assert reference == {"Cargo.toml": "[package]\n", "src/lib.rs": "fn x() {}"}
    (folder / ".meta" / "Cargo-example.toml").write_text("[dependencies]\nrand = '0.8'\n")
    assert load(folder, "rust").example_solution()["Cargo.toml"].startswith("[dependencies]")


def test_every_skip_is_taken_out() -> None:
    java = get_language("java").unskipped(
        '@Disabled("Remove to run test")\n@Test\nvoid a() {}\n@Disabled\n@Test\nvoid b() {}\n'
    )
    assert "@Disabled" not in java and java.count("@Test") == 2
    js = get_language("javascript").unskipped("xtest('a', f);\nxit('b', g);\n  test('c', h);")
    assert js == "test('a', f);\nit('b', g);\n  test('c', h);"


def test_a_missing_program_is_a_refusal_with_the_install_hint(tmp_path: Path) -> None:
    with pytest.raises(ToolchainMissing, match=r"Go cannot be tested here: go not found.*go\.dev"):
        check(get_language("go"), search_path=str(tmp_path))
    with pytest.raises(ToolchainMissing, match="cargo, rustc not found"):
        locate(get_language("rust"), search_path=str(tmp_path))
    check(get_language("python"), search_path=str(tmp_path))  # pytest comes with coder


def test_the_cache_is_where_it_is_told(tmp_path: Path) -> None:
    assert default_cache({"CODER_POLYGLOT_CACHE": "/x/y"}) == Path("/x/y")
    assert default_cache({"XDG_CACHE_HOME": "/c"}) == Path("/c/coder/polyglot")
    assert default_cache({}, home=tmp_path) == tmp_path / ".cache" / "coder" / "polyglot"
    assert not is_prepared(get_language("go"), tmp_path)
    assert is_prepared(get_language("cpp"), tmp_path)  # nothing to fetch
    (tmp_path / "go").mkdir()
    assert is_prepared(get_language("go"), tmp_path)


@needs_polyglot
def test_all_225_exercises_load_with_their_reference_solutions() -> None:
    found = layout(POLYGLOT, tuple(LANGUAGES))
    assert {name: len(discover(folder, language=name)) for name, folder in found.items()} == COUNTS
    for name, folder in found.items():
        for exercise in discover(folder, language=name):
            reference = exercise.example_solution()
            assert set(exercise.solution_files) <= set(reference), exercise.name
            assert not set(reference) & set(exercise.test_files), exercise.name
