"""The secrets this process holds (the values of settings whose names say they are keys,
tokens or passwords) and their removal from any text that leaves a contained run; and the
host folders (the run's scratch folder, coder's Python, the user's home) named otherwise."""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from sandbox.base import Outcome

try:
    import pwd
except ImportError:  # not a Unix
    pwd = None

SECRET_NAME = re.compile(
    r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS$|CREDENTIAL|AUTH|PRIVATE|COOKIE|SESSION",
    re.IGNORECASE,
)
SHORTEST = 8
"""Values shorter than this are too common to be told apart from ordinary text."""
REDACTED = "[redacted]"


def secret_values(environ: Mapping[str, str], extra: Iterable[str] = ()) -> tuple[str, ...]:
    """The values of the secret-looking settings in environ, and extra ones (an API key given
    on the command line, say), longest first."""
    found = {v for k, v in environ.items() if SECRET_NAME.search(k)}
    found.update(extra)
    return tuple(sorted((v for v in found if v and len(v) >= SHORTEST), key=len, reverse=True))


def redact(text: str, secrets: Iterable[str]) -> str:
    """text with every occurrence of each secret replaced by [redacted]."""
    secrets = [s for s in secrets if s]
    if not secrets or not text:
        return text
    # One pass of one alternation (longest first): linear in the text for a set of literals.
    pattern = re.compile("|".join(re.escape(s) for s in secrets))
    return pattern.sub(REDACTED, text)


def host_places(folder: Path, inside: str, tmp: Path | None = None) -> dict[str, str]:
    """Host folder -> what a run's output says in its place: the run's folder as the run names
    it, its /tmp, the Python installation running coder (a virtualenv) and the user's home,
    each by its path and its real path; never a system folder (/usr is no one's)."""
    python = {sys.prefix: "<python>", sys.exec_prefix: "<python>"}
    home = {pwd.getpwuid(os.getuid()).pw_dir: "~"} if pwd is not None else {}
    places = {str(folder): inside} | ({str(tmp): "/tmp"} if tmp else {}) | python | home
    found = {}
    for path, name in places.items():
        for form in (os.path.normpath(path), os.path.realpath(path)):
            system = any(form == s or form.startswith(s + "/") for s in SYSTEM_FOLDERS)
            if form != "/" and not system:
                found.setdefault(form, name)
    return found


SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
"""Folders no one owns: never named otherwise (a system Python's prefix is /usr)."""


def hide_places(text: str, places: Mapping[str, str]) -> str:
    """text with each host folder of places (and what lies under it) named as places says,
    the longest first, so that what a run prints or finds (/proc/self/mountinfo) does not
    tell the model where this machine keeps things or whose it is."""
    paths = sorted((p for p in places if p and p != "/"), key=len, reverse=True)
    if not paths or not text:
        return text
    pattern = re.compile("|".join(re.escape(p) for p in paths) + r"(?![\w.-])")
    return pattern.sub(lambda m: places[m.group(0)], text)


def unhosted(outcome: Outcome, places: Mapping[str, str]) -> Outcome:
    """The outcome with host folders hidden in its output and its stream."""
    return dataclasses.replace(
        outcome,
        output=hide_places(outcome.output, places),
        stream=hide_places(outcome.stream, places),
    )
