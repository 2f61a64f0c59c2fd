"""A language's toolchain on this machine: its programs found on PATH, the files its tests
need, and where it lies (what goes on the tests' PATH and is bound into the sandbox). A
missing piece is a refusal that names it with the install hint, never a score."""

from __future__ import annotations

import functools
import glob
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from exercism.language import Language
from exercism.languages import get_language

SYSTEM_PATH = ("/usr/local/bin", "/usr/bin", "/bin")
"""The tests' PATH without a toolchain of its own."""


class ToolchainMissing(Exception):
    """A language's toolchain, or a file its tests need, is not on this machine: the message
    names it and says how to install it."""


@dataclass(frozen=True)
class Toolchain:
    """Where a language's tests find their programs."""

    path: tuple[str, ...]
    """The tests' PATH, the toolchain's own bin folders first."""
    folders: tuple[Path, ...] = ()
    """Folders outside the system ones that the tests read (bound read-only)."""


def check(language: Language, search_path: str | None = None) -> None:
    """ToolchainMissing unless every program of the language is on search_path (this
    process's PATH by default) and every file its tests need exists."""
    missing = [p for p in language.programs if shutil.which(p, path=search_path) is None]
    missing += [f for f in language.files if not os.path.exists(f)]
    if missing:
        raise ToolchainMissing(
            f"{language.title} cannot be tested here: {', '.join(missing)} not found"
            f" (PATH={search_path if search_path is not None else os.environ.get('PATH', '')})."
            f" To install it: {language.install}"
        )


def locate(language: Language, search_path: str | None = None) -> Toolchain:
    """The language's toolchain on this machine, found once per process; ToolchainMissing
    when it is incomplete."""
    return _located(language.name, search_path)


@functools.cache
def _located(name: str, search_path: str | None) -> Toolchain:
    language = get_language(name)
    check(language, search_path)
    system = tuple(Path(p) for pattern in language.system for p in sorted(glob.glob(pattern)))
    if language.root:
        # Its own folder, not the programs' (a rustup proxy would need all of ~/.rustup).
        root = _root(language, search_path)
        return Toolchain((str(root / "bin"), *SYSTEM_PATH), (root, *system))
    found = [shutil.which(p, path=search_path) or p for p in language.programs]
    own = [os.path.dirname(os.path.realpath(p)) for p in found]
    folders = [f for f in dict.fromkeys(own) if not _system(f)]
    return Toolchain((*folders, *SYSTEM_PATH), (*(Path(f) for f in folders), *system))


def _root(language: Language, search_path: str | None) -> Path:
    env = os.environ | ({"PATH": search_path} if search_path is not None else {})
    try:
        done = subprocess.run(
            list(language.root), capture_output=True, text=True, env=env, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolchainMissing(f"{language.title}: {' '.join(language.root)}: {exc}") from None
    root = Path(done.stdout.strip())
    if done.returncode != 0 or not (root / "bin").is_dir():
        said = (done.stdout + done.stderr).strip()
        raise ToolchainMissing(
            f"{language.title}: {' '.join(language.root)} names no toolchain folder ({said})."
            f" To install it: {language.install}"
        )
    return Path(os.path.realpath(root))


def _system(folder: str) -> bool:
    return any(f"{folder}/".startswith(f"{system}/") for system in ("/usr", "/bin", "/lib"))
