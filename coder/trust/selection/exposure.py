"""What of the repository a sandboxed test run may see: its files, but never coder's own (the
chat's history, settings and caches), never a file made to hold secrets (`.env`, a private
key, a credentials file), and never a file that holds a secret this process knows (an API key
written into some file). Redacting a key from the output is a last line of defence; this is
the first: a test cannot print, encode or send what is not there."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from pathlib import Path

SECRET_FILES = (
    ".env",
    ".env.*",
    ".envrc",
    ".netrc",
    "_netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".dockercfg",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "credentials",
    "credentials.json",
    "service-account*.json",
)
"""Names (of the file, wherever it lies) of files made to hold keys, tokens or passwords."""
COPIED_FROM = 1_000_000
"""Files larger than this are checked for secrets in pieces of this size (with overlap)."""


def exposable(
    root: Path, files: Iterable[str], secrets: Sequence[str]
) -> tuple[list[str], dict[str, str]]:
    """The files (relative to root) a sandboxed test run may see, and those left out, each
    with why."""
    kept: list[str] = []
    left: dict[str, str] = {}
    needles = [s.encode() for s in secrets if s]
    for rel in files:
        base = rel.rsplit("/", 1)[-1]
        if base.startswith(".coder."):
            left[rel] = "coder's own file"
        elif any(fnmatch.fnmatchcase(base.lower(), pattern) for pattern in SECRET_FILES):
            left[rel] = "a file made to hold secrets"
        elif needles and _holds(root / rel, needles):
            left[rel] = "it holds a key or token of yours"
        else:
            kept.append(rel)
    return kept, left


def _holds(path: Path, needles: list[bytes]) -> bool:
    """Whether the file holds any of needles (read in pieces, so that a large file costs
    little memory)."""
    overlap = max(len(n) for n in needles)
    try:
        with open(path, "rb") as handle:
            tail = b""
            while chunk := handle.read(COPIED_FROM):
                piece = tail + chunk
                if any(n in piece for n in needles):
                    return True
                tail = piece[-overlap:]
    except OSError:
        return False
    return False
