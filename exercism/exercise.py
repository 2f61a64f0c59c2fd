"""An Exercism exercise folder: its instructions, the stub files to fill in, its tests."""

from __future__ import annotations

import json
import re
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

INSTRUCTION_FILES = ("introduction.md", "instructions.md", "instructions.append.md")
UNLISTED = (".meta/Cargo-example.toml",)
"""Reference files that .meta/config.json does not list, taken where they exist: Rust's
manifest with the crates its reference solution uses."""


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
    """The reference solution's files (in .meta/)."""
    language: str = "python"
    """The name of its language (see exercism.languages)."""

    def example_solution(self) -> dict[str, str]:
        """The reference solution, keyed by the file each example file's text goes to: the
        stub it replaces (paired by extension and name, not by position), or a file of its
        own beside the stubs (a Java helper class)."""
        pairs = pair_examples(self.solution_files, self.example_files)
        found = {
            target: (self.folder / example).read_text()
            for example, target in pairs.items()
            # A file the exercise gives beside its stubs (Java's `editor` files) comes with
            # every test run's pristine copy; it is not the solution's to write.
            if target in self.solution_files or not (self.folder / target).exists()
        }
        # A stub with no example of its own is part of the solution as it is (Rust's
        # Cargo.toml, where the reference needs no crate).
        stubs = [f for f in self.solution_files if f not in found and (self.folder / f).is_file()]
        return {f: (self.folder / f).read_text() for f in stubs} | found


class ExerciseError(Exception):
    """An exercise folder that cannot be used, with the reason."""


def load(folder: Path, language: str = "python") -> Exercise:
    """The exercise in folder, in that language; ExerciseError if its .meta/config.json is
    missing or unusable."""
    config_path = folder / ".meta" / "config.json"
    try:
        files = json.loads(config_path.read_text())["files"]
        solution, test = tuple(files["solution"]), tuple(files["test"])
        example = tuple(files.get("example", ()))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ExerciseError(f"{folder.name}: cannot read {config_path}: {exc}") from None
    example += tuple(f for f in UNLISTED if f not in example and (folder / f).is_file())
    docs = [folder / ".docs" / name for name in INSTRUCTION_FILES]
    instructions = "\n\n".join(p.read_text().strip() for p in docs if p.is_file())
    return Exercise(folder.name, folder, instructions, solution, test, example, language)


PRACTICE = ("exercises", "practice")
"""Where a language's exercises lie in aider's layout: `<language>/exercises/practice/`."""


def layout(root: Path, known: tuple[str, ...]) -> dict[str, Path]:
    """Language -> its folder of exercises under root: each known language's
    `<language>/exercises/practice` (aider's polyglot layout); root itself when it is one such
    folder (named for its language by its place) or a flat folder of exercises (Python)."""
    found = {name: root.joinpath(name, *PRACTICE) for name in known}
    found = {name: folder for name, folder in found.items() if folder.is_dir()}
    if found:
        return found
    parts = root.resolve().parts
    if len(parts) >= 3 and parts[-2:] == PRACTICE and parts[-3] in known:
        return {parts[-3]: root}
    return {"python": root}


def discover(
    root: Path,
    keywords: tuple[str, ...] = (),
    limit: int | None = None,
    language: str = "python",
) -> list[Exercise]:
    """The exercises of one language in the folder root, in name order, whose names contain
    any of keywords."""
    folders = sorted(p for p in root.iterdir() if (p / ".meta" / "config.json").is_file())
    if keywords:
        folders = [p for p in folders if any(k in p.name for k in keywords)]
    return [load(p, language) for p in folders[:limit]]


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


GENERIC = re.compile(r"^(example|proof)|-example")
"""Example files named for no solution file (`example.rs`, `proof.ci.js`,
`Cargo-example.toml`): they pair with the solution file of their extension."""


def pair_examples(solution: tuple[str, ...], examples: tuple[str, ...]) -> dict[str, str]:
    """Example file -> the file its text goes to: a generic example to the solution file of
    its extension (by position among several), a named one to the solution file of its name,
    or, named for none (a helper class), beside the solution files of its extension."""
    pairs: dict[str, str] = {}
    used: set[str] = set()
    for example in examples:
        name = Path(example).name
        suffix = _suffix(name)
        same = [s for s in solution if _suffix(Path(s).name) == suffix]
        named = [s for s in same if Path(s).name == name]
        if GENERIC.search(name):
            free = [s for s in same if s not in used] or same
            target = free[0] if free else None
        else:
            target = named[0] if named else (_beside(same[0], name) if same else None)
        if target is not None:
            pairs[example] = target
            used.add(target)
    return pairs


def _suffix(name: str) -> str:
    return Path(name).suffix


def _beside(path: str, name: str) -> str:
    parent = Path(path).parent
    return name if str(parent) == "." else f"{parent}/{name}"
