"""What a repository's own files may set: a cloned repository is someone else's, so its `.env`
gives coder provider keys (where you have none set) and nothing else, and the settings of its
`.coder.conf.yml` or `.env` that would run a command or send your key and code elsewhere are
used only once you have said yes to them for this repository (the answer kept in its git
config, for that very value)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from coder.seams.llm.providers import BASE_VARIABLES
from coder.seams.repo import Repo
from coder.terminal import Terminal

HELD = {
    "api_base": "the server your requests, your code and your key would go to",
    "lint_cmd": "a command coder would run after each edit",
    "test_cmd": "a command coder would run for /test, --auto-test and the candidates",
    "read": "files outside the repository that would be sent to the model with each request",
}
"""Settings a repository's .coder.conf.yml may only set with your leave, and what each does."""
KEY = re.compile(r"[A-Z][A-Z0-9_]*_API_KEY")
"""The .env variables coder takes from a repository: provider keys."""
BASE = re.compile(r"[A-Z][A-Z0-9_]*_(API_BASE|BASE_URL|API_URL)")
"""The .env variables that say where a provider's requests go: held like api_base (with every
base-URL variable of the direct route's providers table, whatever its name)."""


@dataclass(frozen=True)
class DotEnv:
    """What a repository's .env file gives: keys to use, addresses to ask about, and what
    could not be read."""

    keys: dict[str, str] = field(default_factory=dict)
    bases: dict[str, str] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)
    """Names of variables coder does not take from a repository (GIT_*, PATH, ...)."""
    problems: list[str] = field(default_factory=list)
    """Lines that are not NAME=value, or hold a NUL byte, each said as a sentence."""


def read_dotenv(root: Path, environ: Mapping[str, str]) -> DotEnv:
    """The .env at the repository root, sorted into what coder may take from it; a variable
    already set in the environment is left as it is."""
    path = root / ".env"
    try:
        if not path.is_file():
            return DotEnv()
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError as exc:
        return DotEnv(problems=[f"{path} cannot be read ({exc.strerror or exc}): it is not used"])
    found = DotEnv()
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        name, sep, value = stripped.removeprefix("export ").partition("=")
        name, value = name.strip(), value.strip().strip("'\"")
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or "\0" in value:
            found.problems.append(f"{path} line {number} is not NAME=value: it is not used")
        elif name in environ:
            continue
        elif KEY.fullmatch(name):
            found.keys[name] = value
        elif BASE.fullmatch(name) or name in BASE_VARIABLES:
            found.bases[name] = value
        else:
            found.ignored.append(name)
    return found


def allowed(
    repo: Repo | None, terminal: Terminal, source: str, name: str, value: str, does: str
) -> bool:
    """Whether the user lets this repository's file (source) set name to value, which is
    does: asked once per repository and value (kept in its git config), never answered by
    --yes; without a terminal, no."""
    stamp = hashlib.sha256(f"{name}\0{value}".encode()).hexdigest()[:16]
    setting = f"allowed-{re.sub(r'[^A-Za-z0-9]', '', name).lower()}"
    if repo is not None and any(v == stamp for _, v, _ in repo.config(rf"^coder\.{setting}$")):
        return True
    question = f"This repository's {source} sets {name} to {value!r}: {does}. Use it?"
    if terminal.yes or not terminal.interactive:
        terminal.error(
            f"Not used: {source} sets {name} to {value!r} ({does}). Run coder in a terminal"
            " and say yes to use it; --yes never does."
        )
        return False
    if not terminal.confirm(question, default=False):
        return False
    if repo is not None:
        repo.remember(setting, stamp)
    return True
