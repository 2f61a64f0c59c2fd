"""How a chat behaves (SessionConfig) and what one user request came to (TurnOutcome)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from coder.trust.rtc import RtcSettings
from sandbox import Sandbox


@dataclass(frozen=True)
class SessionConfig:
    """How a chat behaves."""

    max_reflections: int = 3
    """How many times failed edits are sent back to the model within one turn."""
    auto_commits: bool = True
    """Commit every change coder makes (and the user's own changes to those files first)."""
    dry_run: bool = False
    """Show diffs but never write."""
    stream: bool = True
    """Show the reply while it arrives, rather than once it is complete."""
    candidates: int = 1
    """Candidate replies per request; with more than one, coder/trust/selection chooses."""
    test_cmd: str | None = None
    """The test command; when set, candidates must pass it to be chosen."""
    candidate_tests: bool = True
    """Run the test command on each distinct candidate (when there is one)."""
    sandbox: Sandbox | None = None
    """Where /test and the candidates' tests run; None: plain commands."""
    secrets: tuple[str, ...] = ()
    """Secrets coder knows beyond its environment's (an API key from the settings): kept out
    of sandboxed test runs and redacted from what they print."""
    test_pristine: tuple[Path, tuple[str, ...], tuple[str, ...]] | None = None
    """The benchmark's rule for testing candidates: (the pristine exercise's folder, its files,
    the solution files): each copy is made of those files, from that folder, with only the
    solution files of a candidate's change written over them."""
    test_ready: bool = False
    """In the sandbox, the test command says when its runner is ready (the benchmark's does:
    see sandbox.READY_VARIABLE), so that a runner that never starts is the harness's failure."""
    refine: int = 1
    """Rounds of refinement when no candidate passes the tests."""
    plan: bool = False
    """Each candidate writes a short plan before its edit."""
    diverse: bool = False
    """Candidates after the first are asked from different angles."""
    consistency_prompt: bool = False
    """Put the consistency instruction before the edit format's system prompt."""
    rtc: bool = False
    """Run the round-trip check after every turn that changed files."""
    rtc_settings: RtcSettings = field(default_factory=RtcSettings)
    architect: bool = False
    """Every request goes first to the main model for a plan in words, then to the editor
    model, which writes it as an edit."""
    check_syntax: bool = True
    """After each applied edit, parse the changed files (tree-sitter) and send syntax errors
    the edit brought in back to the model."""
    lint_cmd: str | None = None
    """After each applied edit, run this with the changed files appended; failures go back."""
    auto_test: bool = False
    """After each applied edit, run the test command; failures go back to the model."""
    map_tokens: int = 1024
    """The most tokens of the repository map sent with each request; 0: no map."""


@dataclass(frozen=True)
class TurnOutcome:
    """What one user request came to."""

    changed: tuple[str, ...] = ()
    commits: tuple[str, ...] = ()
    failed: bool = False
    """Edits still failed after the last reflection, or the model could not answer."""
    interrupted: bool = False
    applied: bool = False
    """The reply's edits all applied, or were already in the files."""
    not_committed: tuple[str, ...] = ()
    """Files the edit wrote or removed that git did not commit: it failed to, or it does not
    take them (ignored, assume-unchanged, in a nested repository...)."""
    unresolved: str = ""
    """A check after the edit (syntax, lint command, tests) that still failed after the last
    attempt to fix it."""
