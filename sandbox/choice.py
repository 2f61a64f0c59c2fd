"""Choosing the sandbox: the strongest this machine allows, or the one asked for by name."""

from __future__ import annotations

from sandbox.base import Sandbox, SandboxError

KINDS = ("auto", "bwrap", "rlimit", "none")
"""What --sandbox takes: auto is bwrap where it works, else rlimit; none only by name."""


def get_sandbox(kind: str = "auto") -> Sandbox:
    """The sandbox of that kind; SandboxError when it cannot be set up here (for auto, only
    when not even the fallback can)."""
    from sandbox.bubblewrap import Bubblewrap
    from sandbox.rlimits import Rlimits
    from sandbox.unconfined import Unconfined

    if kind not in KINDS:
        raise SandboxError(f"unknown sandbox {kind!r}: choose one of {', '.join(KINDS)}")
    if kind == "none":
        return Unconfined()
    if kind == "rlimit":
        return Rlimits()
    try:
        return Bubblewrap.find()
    except SandboxError as exc:
        if kind == "bwrap":
            raise
        fallback = Rlimits()
        fallback.description = f"{fallback.description} ({exc})"
        return fallback
