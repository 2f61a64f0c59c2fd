"""Files that steer coder, git or the user's shell, which a model's reply may not write unless
the user named them.

coder loads `.env` and its `.coder.*` files at start-up and runs git, whose behaviour
`.gitattributes`, `.gitmodules`, `.lfsconfig`, hooks, included config files and the programs
its config names change; git reads `.gitconfig` when the work tree is the home folder; the
user's shell runs `.envrc` (direnv); pre-commit runs what its config names; and a Python
environment inside the work tree (coder's own, perhaps) runs its `.pth` files at every start.
Anything under `.git/` or git's own folder is refused outright (see Workspace.check and
editing.Scope); these are refused unless the user put the file in the chat by name.
"""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from coder.seams.repo import Repo

_NAMES = {
    ".envrc": "your shell runs when you enter its folder (direnv)",
    ".gitattributes": "git reads to filter and compare files",
    ".gitmodules": "git reads to fetch submodules",
    ".lfsconfig": "git-lfs reads to know where to send files and credentials",
    ".pre-commit-config.yaml": "tells git's pre-commit hook what to run",
    ".pre-commit-config.yml": "tells git's pre-commit hook what to run",
}
_PROGRAMS = (
    r"^(core\.(fsmonitor|sshcommand|editor|pager|askpass)|filter\..*\.(clean|smudge|process)"
    r"|diff\..*\.(textconv|command)|merge\..*\.driver|credential\.helper|gpg\.program"
    r"|sequence\.editor)$"
)
"""git settings whose value is a program git runs."""


@dataclass(frozen=True)
class Steering:
    """What steers coder or git in this work tree beyond the fixed names: repository-relative
    folders and files, each with why."""

    folders: tuple[tuple[str, str], ...] = ()
    files: tuple[tuple[str, str], ...] = ()


NOTHING = Steering()


def steering(repo: Repo | None, root: Path) -> Steering:
    """What steers git and Python in the work tree at root: git's hooks folder, the config
    files git includes (and .gitconfig when the work tree is the home folder), the programs
    its settings run, and the Python environment coder runs in, when they lie inside it."""
    folders: list[tuple[str, str]] = []
    files: list[tuple[str, str]] = []
    environment = _inside(Path(sys.prefix), root)
    if environment:
        folders.append((environment, "is the Python environment coder runs in"))
    if repo is None:
        return Steering(tuple(folders), tuple(files))
    for _, value, _ in repo.config(r"^core\.hookspath$"):
        hooks = _inside(_resolve(value, root, None), root)
        if hooks:
            folders.append((hooks, "git runs as hooks"))
            if hooks.endswith("/_"):  # husky's hooks run the scripts one folder up
                folders.append((hooks[:-2], "git's hooks run"))
    for _, value, origin in repo.config(r"^include(if\..*)?\.path$"):
        base = origin.parent if origin else root
        config = _inside(_resolve(value, root, base), root)
        if config:
            files.append((config, "git includes into its configuration"))
    for _, value, _ in repo.config(_PROGRAMS):
        program = _program(value, root)
        if program:
            files.append((program, "git runs as a program its settings name"))
    home = Path(os.path.expanduser("~"))
    for name in (".gitconfig", ".config/git/config", ".config/git/attributes"):
        config = _inside(home / name, root)
        if config:
            files.append((config, "git reads as your own settings"))
    return Steering(tuple(folders), tuple(files))


def steers(path: str, steering: Steering = NOTHING) -> str | None:
    """Why a repository-relative path steers coder, git or the shell, or None when it does
    not; the reason reads after "which" (".env, which holds ...")."""
    base = path.rsplit("/", 1)[-1].lower()
    if base == ".env" or base.startswith(".env."):
        return "holds settings and keys that coder and other tools load at start-up"
    if base.startswith(".coder."):
        return "is coder's own configuration or history"
    if base in _NAMES:
        return _NAMES[base]
    for file, why in steering.files:
        if path == file:
            return why
    for folder, why in steering.folders:
        if path == folder or path.startswith(folder.rstrip("/") + "/"):
            return why
    return None


def _resolve(value: str, root: Path, base: Path | None) -> Path:
    path = Path(os.path.expanduser(value))
    return path if path.is_absolute() else (base or root) / path


def _inside(path: Path, root: Path) -> str | None:
    """path relative to root when it lies inside it, else None."""
    try:
        rel = path.resolve().relative_to(root.resolve()).as_posix()
    except (ValueError, OSError):
        return None
    return rel if rel != "." else None


def _program(value: str, root: Path) -> str | None:
    """The file in the work tree that a setting's command runs first, if any."""
    try:
        words = shlex.split(value)
    except ValueError:
        return None
    if not words or words[0].startswith("!"):
        return None
    first = words[0]
    if "/" not in first and not (root / first).is_file():
        return None
    return _inside(_resolve(first, root, None), root)
