"""The secrets this process holds (the values of settings whose names say they are keys,
tokens or passwords) and their removal from any text that leaves a contained run."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

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
