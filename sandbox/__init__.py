"""Running untrusted code contained: one interface (run this command on this folder within these
limits, get the outcome), bubblewrap where the machine allows it, a weaker fallback otherwise."""

from sandbox.base import MAX_OUTPUT, Limits, Outcome, Peak, Sandbox, SandboxError
from sandbox.choice import KINDS, get_sandbox
from sandbox.launch import LAUNCHER_FLAGS, READY_VARIABLE
from sandbox.readback import Refused
from sandbox.redaction import redact, secret_values

__all__ = [
    "KINDS",
    "MAX_OUTPUT",
    "LAUNCHER_FLAGS",
    "READY_VARIABLE",
    "Limits",
    "Outcome",
    "Peak",
    "Refused",
    "Sandbox",
    "SandboxError",
    "get_sandbox",
    "redact",
    "secret_values",
]
