"""An Exercism exercise folder: its instructions, the stub files to fill in, its tests."""

from __future__ import annotations

import json
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

INSTRUCTION_FILES = ("introduction.md", "instructions.md", "instructions.append.md")


@dataclass(frozen=True)
class Exercise:
    """One practice exercise, as read from its folder."""

    name: str
    folder: Path
    instructions: str
    """The .docs files that exist, joined in the order Exercism shows them."""
    solution_files: tuple[str, ...]
    """The stubs the model implements, relative to the folder."""
    test_files: tuple[str, ...]
    example_files: tuple[str, ...]
    """A reference solution for each stub (in .meta/)."""

    def example_solution(self) -> dict[str, str]:
        """The reference solution, keyed by the solution file it replaces."""
        texts = [(self.folder / f).read_text() for f in self.example_files]
        return dict(zip(self.solution_files, texts, strict=False))


class ExerciseError(Exception):
    """An exercise folder that cannot be used, with the reason."""


def load(folder: Path) -> Exercise:
    """The exercise in folder; ExerciseError if its .meta/config.json is missing or unusable."""
    config_path = folder / ".meta" / "config.json"
    try:
        files = json.loads(config_path.read_text())["files"]
        solution, test = tuple(files["solution"]), tuple(files["test"])
        example = tuple(files.get("example", ()))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ExerciseError(f"{folder.name}: cannot read {config_path}: {exc}") from None
    docs = [folder / ".docs" / name for name in INSTRUCTION_FILES]
    instructions = "\n\n".join(p.read_text().strip() for p in docs if p.is_file())
    return Exercise(folder.name, folder, instructions, solution, test, example)


def discover(
    root: Path, keywords: tuple[str, ...] = (), limit: int | None = None
) -> list[Exercise]:
    """The exercises under root, in name order, whose names contain any of keywords."""
    folders = sorted(p for p in root.iterdir() if (p / ".meta" / "config.json").is_file())
    if keywords:
        folders = [p for p in folders if any(k in p.name for k in keywords)]
    return [load(p) for p in folders[:limit]]


def copy_to(exercise: Exercise, destination: Path) -> Path:
    """A working copy of the exercise (hidden folders left out), ready to edit and test: its
    own, writable by its owner whatever the source's modes (a read-only checkout, say)."""
    shutil.copytree(
        exercise.folder, destination, ignore=shutil.ignore_patterns(".meta", ".docs", ".*")
    )
    for path in [destination, *destination.rglob("*")]:
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | stat.S_IWUSR | (stat.S_IXUSR if path.is_dir() else 0))
    return destination
