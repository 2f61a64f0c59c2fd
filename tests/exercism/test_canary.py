"""The harness's last test (exercism/canary.py): where it is planted, how often it must have
run, and its file read as the run's hostile data. Runs through the toolchains are in
test_polyglot_runs.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from exercism import LANGUAGES, get_language
from exercism.canary import FILE, plant, ran_to_end, token
from sandbox import Refused


def test_it_goes_at_the_end_of_every_test_file_that_matches(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    for name in ("a.rs", "b.rs"):
        (tmp_path / "tests" / name).write_text("#[test]\nfn mine() {}\n")
    (tmp_path / "tests" / "notes.txt").write_text("x")
    assert plant(get_language("rust").canary, tmp_path, ("tests/a.rs",)) == 2
    text = (tmp_path / "tests" / "b.rs").read_text()
    assert text.startswith("#[test]\nfn mine() {}\n") and "fn zzzz_coder_canary()" in text
    assert (tmp_path / "tests" / "notes.txt").read_text() == "x"


def test_a_file_of_its_own_takes_the_package_of_the_first_test_file(tmp_path: Path) -> None:
    (tmp_path / "beer_test.go").write_text('// a comment\npackage beer_test\n\nimport "testing"\n')
    assert plant(get_language("go").canary, tmp_path, ("beer_test.go",)) == 1
    planted = (tmp_path / "zzzz_coder_canary_test.go").read_text()
    assert planted.startswith("package beer_test\n")


def test_every_language_but_python_has_one_named_to_run_last() -> None:
    for name, language in LANGUAGES.items():
        assert (language.canary is None) == (name == "python"), name
        if language.canary is not None:
            assert "zzzz" in language.canary.code.lower()


@pytest.mark.parametrize(
    ("written", "times", "expected"),
    [
        (None, 1, False),  # it never ran
        ("{t}\n", 1, True),
        ("{t}\n", 2, False),  # one test program of two ended early
        ("{t}\n{t}\n", 2, True),
        ("{t}\n{t}\n", 1, False),
        ("someone else's\n", 1, False),
        ("", 1, False),
    ],
)
def test_the_token_must_be_there_once_per_planting(tmp_path: Path, written, times, expected):
    mine = token()
    if written is not None:
        (tmp_path / FILE).write_text(written.format(t=mine))
    assert ran_to_end(tmp_path, mine, times) is expected


def test_tokens_differ_from_run_to_run() -> None:
    assert len({token() for _ in range(20)}) == 20


def test_a_link_or_a_pipe_in_its_place_is_refused_not_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("tok\n")
    run = tmp_path / "run"
    run.mkdir()
    (run / FILE).symlink_to(elsewhere)
    with pytest.raises(Refused):
        ran_to_end(run, "tok", 1)
    (run / FILE).unlink()
    os.mkfifo(run / FILE)
    with pytest.raises(Refused):
        ran_to_end(run, "tok", 1)


def test_a_huge_file_is_refused_unread(tmp_path: Path) -> None:
    (tmp_path / FILE).write_text("tok\n" * 100_000)
    with pytest.raises(Refused):
        ran_to_end(tmp_path, "tok", 1)
