"""File names as models write them: cleaning decorations, resolving them against the chat files,
and refusing paths that leave the repository."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection

_LABEL = re.compile(r"^(?:file\s*(?:name|path)?|path|filename)\s*[:=]\s*", re.IGNORECASE)
_QUOTES = "`'\"*_"
# Characters that do not occur in file names as people write them.
_NOT_IN_PATH = re.compile(r"[\s<>|?*\"'`{},;=!$]")
_TRAILING = re.compile(r"[:.,;]+$")


def clean(line: str) -> str:
    """Strip the markdown and prose decorations models put around a file name."""
    name = line.strip()
    name = re.sub(r"^(?:#+|[-*+]\s|>\s*|\d+\.\s)\s*", "", name)
    name = _LABEL.sub("", name)
    for _ in range(3):
        name = name.strip().strip(_QUOTES).strip()
        name = _TRAILING.sub("", name)
        name = _LABEL.sub("", name)
    return name.replace("\\", "/")


def looks_like_path(name: str) -> bool:
    """True when a cleaned name has the shape of a file path (an extension or a directory)."""
    if not name or len(name) > 255 or _NOT_IN_PATH.search(name):
        return False
    if name.startswith(("http:", "https:", "//", "--")):
        return False
    base = name.rsplit("/", 1)[-1]
    if not base or base in {".", ".."}:
        return False
    has_ext = re.search(r"[^./]\.[A-Za-z0-9_+-]{1,12}$", base) is not None
    dotfile = re.fullmatch(r"\.[A-Za-z0-9_.-]+", base) is not None
    known = base in _EXTENSIONLESS
    return has_ext or dotfile or known or ("/" in name and re.search(r"\w", base) is not None)


_EXTENSIONLESS = frozenset(
    {"Makefile", "Dockerfile", "Procfile", "Gemfile", "Rakefile", "LICENSE", "README", "Justfile"}
)


def normalize(name: str) -> str:
    """Turn a cleaned name into a '/'-separated relative path, without './' or duplicate slashes."""
    name = name.replace("\\", "/")
    if re.match(r"^[A-Za-z]:/", name):
        name = "/" + name
    absolute = name.startswith("/")
    path = posixpath.normpath(name)
    if path == ".":
        return ""
    return path if absolute else path.lstrip("/")


def resolve(name: str, chat_files: Collection[str]) -> str:
    """The chat file a model's name refers to, or the normalized name itself if none matches.

    Tolerates a bogus leading directory, a missing directory, an absolute path and
    Windows separators; an ambiguous short name is returned unchanged.
    """
    path = normalize(clean(name))
    if path in chat_files:
        return path
    folded = {f.lower(): f for f in chat_files}
    if path.lower() in folded:
        return folded[path.lower()]
    longer = [f for f in chat_files if path.endswith("/" + f)]
    if longer:
        return max(longer, key=len)
    shorter = [f for f in chat_files if f.endswith("/" + path)]
    if len(shorter) == 1:
        return shorter[0]
    if not shorter and "/" in path:
        base = path.rsplit("/", 1)[-1]
        same_base = [f for f in chat_files if f.rsplit("/", 1)[-1] == base]
        if len(same_base) == 1:
            return same_base[0]
    return path


def refusal(path: str) -> str | None:
    """Why a repository-relative path may not be written, or None when it may."""
    if not path:
        return "the file name is empty"
    if path.startswith("/"):
        return f"{path} is an absolute path outside the repository"
    parts = path.split("/")
    if ".." in parts:
        return f"{path} leads outside the repository"
    if any(p.lower() == ".git" for p in parts):
        return f"{path} is inside .git/, which is never edited"
    if "\0" in path:
        return f"{path!r} contains a NUL character"
    return None
