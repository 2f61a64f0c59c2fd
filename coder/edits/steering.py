"""Files that steer coder, git, the user's shell or other tools, which a model's reply may not
write unless the user named them.

The fixed kinds are rows of steering_files.RULES (coder's own files, git's, the hook managers',
direnv's, editors', version and package managers', CI's) and, when the work tree holds the
home folder, of steering_files.HOME. This repository adds: git's hooks folder
(core.hooksPath), the files git includes into its configuration and the programs its settings
name, when they lie in the work tree; $XDG_CONFIG_HOME when it does; and a Python environment
inside the work tree (coder's own, perhaps), whose `.pth` files run at every start. Anything
under `.git/` or git's own folder is refused outright (see Workspace.check and editing.Scope);
these are refused unless the user put the file in the chat by name.
"""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from coder.edits.steering_files import HOME, RULES, match, match_from_top
from coder.seams.repo import Repo

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
    home: str | None = None
    """Where the home folder lies in the work tree ("" at its top), when it does."""


NOTHING = Steering()


def steering(repo: Repo | None, root: Path) -> Steering:
    """What steers git and Python in the work tree at root beyond the fixed kinds: git's hooks
    folder, the config files git includes, the programs its settings run, the user's own
    settings folder ($XDG_CONFIG_HOME) and home folder, and the Python environment coder runs
    in, when they lie inside it."""
    folders: list[tuple[str, str]] = []
    files: list[tuple[str, str]] = []
    environment = _inside(Path(sys.prefix), root)
    if environment:
        folders.append((environment, "is the Python environment coder runs in"))
    # Read here as git reads it: where the user's own settings of git and other programs are.
    xdg = os.environ.get("XDG_CONFIG_HOME")
    settings = _inside(Path(xdg), root) if xdg else None
    if settings:
        folders.append((settings, "your programs (git among them) read as your own settings"))
    if repo is not None:
        folders += _hooks(repo, root)
        files += _git_files(repo, root)
    return Steering(tuple(folders), tuple(files), _home_inside(root))


def _hooks(repo: Repo, root: Path) -> list[tuple[str, str]]:
    """git's hooks folder (core.hooksPath) when it lies in the work tree."""
    found = []
    for _, value, _ in repo.config(r"^core\.hookspath$"):
        hooks = _inside(_resolve(value, root, None), root)
        if hooks:
            found.append((hooks, "git runs as hooks"))
            if hooks.endswith("/_"):  # husky's hooks run the scripts one folder up
                found.append((hooks[:-2], "git's hooks run"))
    return found


def _git_files(repo: Repo, root: Path) -> list[tuple[str, str]]:
    """The files in the work tree that git includes into its configuration, and the programs
    there its settings name."""
    found = []
    for _, value, origin in repo.config(r"^include(if\..*)?\.path$"):
        base = origin.parent if origin else root
        config = _inside(_resolve(value, root, base), root)
        if config:
            found.append((config, "git includes into its configuration"))
    for _, value, _ in repo.config(_PROGRAMS):
        program = _program(value, root)
        if program:
            found.append((program, "git runs as a program its settings name"))
    return found


def _home_inside(root: Path) -> str | None:
    """Where the home folder (or git's own config folder, $XDG_CONFIG_HOME) lies in the work
    tree, from its top ("" for the top itself); None when outside it."""
    home = Path(os.path.expanduser("~"))
    if _inside(home, root) is not None or _same(home, root):
        return "" if _same(home, root) else _inside(home, root)
    return None


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def steers(path: str, steering: Steering = NOTHING) -> str | None:
    """Why a repository-relative path steers coder, git or the shell, or None when it does
    not; the reason reads after "which" (".env, which holds ...")."""
    for rule in RULES:
        if match(rule, path):
            return rule.why
    if steering.home is not None:
        top = f"{steering.home}/" if steering.home else ""
        if path.lower().startswith(top.lower()):
            for rule in HOME:
                if match_from_top(rule, path[len(top) :]):
                    return rule.why
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
