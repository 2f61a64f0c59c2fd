"""The reference solution's tests, counted once per exercise and harness (exercism/expected.py):
kept in the cache, counted anew when the exercise changes or the kept count is not one, and
kept in memory when the cache cannot be written."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from exercism import expected as module
from exercism import get_language
from exercism.exercise import Exercise
from exercism.language import Expected

GO = get_language("go")
FOUND = Expected({"TestA": 1, "TestA/b": 2}, frozenset({"TestSkipped"}))


def _exercise(tmp_path: Path, test: str = "package x\n") -> Exercise:
    folder = tmp_path / "exercise"
    folder.mkdir(exist_ok=True)
    (folder / "x_test.go").write_text(test)
    return Exercise(f"x-{len(test)}", folder, "", ("x.go",), ("x_test.go",), (), "go")


def _counter(found: Expected = FOUND):
    calls = []

    def count() -> Expected:
        calls.append(1)
        return found

    return count, calls


def test_counted_once_then_read_from_the_cache(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(module, "_memory", {})
    exercise, cache = _exercise(tmp_path), tmp_path / "cache"
    count, calls = _counter()
    assert module.expected(exercise, GO, cache, count) == FOUND
    monkeypatch.setattr(module, "_memory", {})  # a new process
    assert module.expected(exercise, GO, cache, count) == FOUND
    assert len(calls) == 1 and len(list((cache / "expected" / "go").iterdir())) == 1


def test_a_changed_exercise_or_harness_is_counted_anew(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(module, "_memory", {})
    cache = tmp_path / "cache"
    count, calls = _counter()
    module.expected(_exercise(tmp_path), GO, cache, count)
    module.expected(_exercise(tmp_path, "package x\n// one more\n"), GO, cache, count)
    changed = dataclasses.replace(GO, steps=(("go", "test", "-v"),))
    module.expected(_exercise(tmp_path), changed, cache, count)
    assert len(calls) == 3


def test_a_kept_count_that_is_not_one_is_counted_anew(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(module, "_memory", {})
    exercise, cache = _exercise(tmp_path), tmp_path / "cache"
    count, calls = _counter()
    module.expected(exercise, GO, cache, count)
    (kept,) = (cache / "expected" / "go").iterdir()
    for text in ("{not json", '{"passed": {"TestA": -1}, "skipped": []}', '{"passed": {}}', "[]"):
        kept.write_text(text)
        monkeypatch.setattr(module, "_memory", {})
        assert module.expected(exercise, GO, cache, count) == FOUND
    assert len(calls) == 5


def test_a_cache_that_cannot_be_written_keeps_the_count_in_memory(tmp_path, monkeypatch):
    monkeypatch.setattr(module, "_memory", {})
    blocked = tmp_path / "cache"
    blocked.write_text("a file where the folder would go")
    count, calls = _counter()
    exercise = _exercise(tmp_path)
    assert module.expected(exercise, GO, blocked, count) == FOUND
    assert module.expected(exercise, GO, blocked, count) == FOUND
    assert len(calls) == 1 and blocked.is_file()
