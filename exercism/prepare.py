"""The prepared cache: what each language's tests need from the registries (jars, crates,
jest, Go's build cache), fetched once per machine into a folder per language, then read-only
to every test run. A language's folder appears whole or not at all."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from exercism.exercise import Exercise
from exercism.language import Language

VARIABLE = "CODER_POLYGLOT_CACHE"
"""The environment variable that moves the cache (as --cache-dir does)."""


def default_cache(environ: Mapping[str, str], home: Path | None = None) -> Path:
    """Where the cache is: $CODER_POLYGLOT_CACHE, else $XDG_CACHE_HOME/coder/polyglot, else
    ~/.cache/coder/polyglot."""
    if environ.get(VARIABLE):
        return Path(environ[VARIABLE]).expanduser()
    base = environ.get("XDG_CACHE_HOME") or str((home or Path.home()) / ".cache")
    return Path(base) / "coder" / "polyglot"


def is_prepared(language: Language, cache: Path) -> bool:
    """Whether the language's tests have what they need in the cache."""
    return language.prepare is None or (cache / language.name).is_dir()


def prepare(
    language: Language,
    cache: Path,
    exercises: Sequence[Exercise],
    say: Callable[[str], None],
) -> None:
    """Fetch what the language's tests need into cache/<language> (anew, replacing what is
    there); OSError with the tool's own words when it fails, the cache left as it was."""
    if language.prepare is None:
        say(f"{language.title}: nothing to prepare")
        return
    cache.mkdir(parents=True, exist_ok=True)
    part = Path(tempfile.mkdtemp(prefix=f"{language.name}.part-", dir=cache))
    try:
        language.prepare(part, exercises, say)
        _read_only(part)
        final = cache / language.name
        if final.exists():
            old = final.with_name(f"{language.name}.old-{part.name}")
            final.rename(old)
            _writable(old)
            shutil.rmtree(old, ignore_errors=True)
        part.rename(final)
    finally:
        if part.exists():
            _writable(part)
            shutil.rmtree(part, ignore_errors=True)


def _read_only(folder: Path) -> None:
    """Nothing in the folder writable, even to its owner: it is shared by every run."""
    for path in [*folder.rglob("*"), folder]:
        if not path.is_symlink():
            path.chmod(path.stat().st_mode & 0o555)


def _writable(folder: Path) -> None:
    for path in [folder, *folder.rglob("*")]:
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | 0o700)


def run(command: Sequence[str], cwd: Path, env: Mapping[str, str] | None = None) -> str:
    """A preparing command run on this machine (never on a solution); its output, or OSError
    with its last words when it fails."""
    done = subprocess.run(
        list(command), cwd=cwd, env=os.environ | dict(env or {}), capture_output=True, text=True
    )
    if done.returncode != 0:
        said = (done.stdout + done.stderr).strip()[-2000:]
        raise OSError(f"{' '.join(command)} failed (exit status {done.returncode}): {said}")
    return done.stdout
