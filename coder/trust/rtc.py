"""Round-trip correctness of an edit, after Allamanis et al. 2024 and Patched RTC (Sharma 2024):
the model describes the change, re-makes it from each description alone, and each re-made
change is judged equivalent or not (coder/trust/equivalence.py, then the tests' behaviour)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from coder import prompt
from coder.edits.editing import unified_diff
from coder.seams.model import Completion, Message, Model, Request, Usage, complete_all, usage_of
from coder.terminal import Terminal
from coder.trust import equivalence
from editformats import EditFormat, ReplyError

DESCRIBE = """\
You write the instruction a programmer would give to get a code change made. You see the \
files before the change and the change as a diff. Write one instruction of at most {limit} \
characters that says what to change and why, so that a colleague who sees only the old files \
could make the same change. Name functions and files if needed, but do not quote code. \
Answer with the instruction only, on one line."""
BASELINE = "Edit."
"""The uninformative description: what re-making the edit with no information achieves."""
TESTS = "tests"
"""The tier of a re-made change that differs in text but has the original's outcome on every
test, where the tests see the change (the original's outcomes differ from those before it)."""
EQUIVALENT = (*equivalence.EQUIVALENT, TESTS)
"""Tiers at which a re-made change counts as the same change: exact text, equal Python syntax
trees, equal tokens where layout means nothing, equal behaviour on the tests."""
RULE = (
    "score = the fraction of samples judged equivalent; PASS at or above the threshold, FAIL"
    " when none is, WEAK in between, INCONCLUSIVE when the model could not produce them"
)
"""The verdict rule, as the report states it. Textual similarity is shown, never counted."""
Behaviour = Callable[[dict[str, str]], dict[str, bool] | None]
"""Runs the tests on the files as a change leaves them (path -> text, the changed ones):
test id -> passed, or None when there are no tests to run."""


@dataclass(frozen=True)
class RtcSettings:
    """How the round trip is run and judged."""

    samples: int = 3
    """Descriptions written, each re-made once (N_f)."""
    threshold: float = 0.8
    """The fraction of equivalent samples at or above which the change passes."""
    temperature: float = 0.8
    """Temperature of the describing calls; re-making runs at 0."""
    max_chars: int = 128
    """Longest description kept."""
    with_request: bool = False
    """Patched RTC: the describing step also sees the user's request."""


@dataclass(frozen=True)
class Sample:
    """One description and how well it re-made the change."""

    description: str
    leaked: bool = False
    """The description quotes code the change added."""
    tier: str = "different"
    """exact, ast, tokens, tests (the tier that found it equivalent), different, or failed
    (the re-edit did not apply, changed nothing, or had no description)."""
    similarity: float = 0.0
    """How alike the two diffs are, 0 to 1: shown, never part of the verdict."""
    problem: str = ""
    tests: bool | None = None
    """Whether the re-made change passes every test; None when no tests were run."""
    remade: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    """The changed files of the re-made change."""

    @property
    def equivalent(self) -> bool:
        """Judged the same change as the original."""
        return self.tier in EQUIVALENT


@dataclass(frozen=True)
class RtcReport:
    """The verdict and everything behind it."""

    verdict: str
    score: float = 0.0
    """The fraction of samples judged equivalent."""
    baseline: Sample | None = None
    """The blind re-make from "Edit." alone, kept apart from the samples."""
    threshold: float = 0.8
    samples: tuple[Sample, ...] = ()
    usage: Usage = field(default_factory=Usage)
    reason: str = ""
    original_tests: bool | None = None
    """Whether the original change passes every test; None when no tests were run."""

    @property
    def lift(self) -> float:
        """How much the descriptions help over re-making blind: the score less the blind
        re-make's (1 when "Edit." alone re-makes the change, else 0)."""
        blind = 1.0 if self.baseline is not None and self.baseline.equivalent else 0.0
        return self.score - blind

    @property
    def tested(self) -> tuple[int, int]:
        """(re-makes that pass the tests, re-makes tested)."""
        ran = [s for s in self.samples if s.tests is not None]
        return sum(bool(s.tests) for s in ran), len(ran)


@dataclass(frozen=True)
class Change:
    """An edit as RTC sees it: files before (existing ones), after, and the untouched rest."""

    before: dict[str, str]
    after: dict[str, str]
    context: dict[str, str] = field(default_factory=dict)
    request: str = ""


def show(terminal: Terminal, report: RtcReport) -> None:
    """The samples as a table (the tier that decided each), then the verdict with its rule."""
    tested = report.original_tests is not None
    rows = []
    for s in report.samples:
        row = [
            s.description + (" (quotes added code)" if s.leaked else ""),
            s.tier + (f": {s.problem}" if s.problem else ""),
            f"{s.similarity:.2f}",
        ]
        rows.append(row + ([_passes(s.tests)] if tested else []))
    if rows:
        columns = ["description", "tier", "similarity"] + (["tests"] if tested else [])
        terminal.table("Round trip", columns, rows)
    line = f"RTC {report.verdict}: {report.reason}."
    if report.samples:
        equivalent = sum(s.equivalent for s in report.samples)
        blind = report.baseline.tier if report.baseline else "not run"
        line += (
            f" Score {report.score:.2f} ({equivalent} of {len(report.samples)} equivalent;"
            f' threshold {report.threshold:.2f}). Blind re-make from "Edit.": {blind};'
            f" lift {report.lift:+.2f} (what the descriptions add over re-making blind)."
        )
    if tested:
        passing, ran = report.tested
        line += f" Tests: {passing}/{ran} re-makes pass"
        line += " (the original passes)." if report.original_tests else " (the original fails)."
    tokens = report.usage.prompt_tokens + report.usage.completion_tokens
    cost = f", ${report.usage.cost:.4f}" if report.usage.cost is not None else ""
    terminal.say(f"{line} {tokens:,} tokens{cost}.")


def _passes(tests: bool | None) -> str:
    return "" if tests is None else ("pass" if tests else "fail")


def check(
    model: Model,
    fmt: EditFormat,
    change: Change,
    settings: RtcSettings,
    behaviour: Behaviour | None = None,
) -> RtcReport:
    """Run the round trip and judge it by RULE; model errors make it INCONCLUSIVE, never FAIL.
    With behaviour, every re-made change is tested, and one that differs in text but behaves
    as the original on every test counts as equivalent."""
    base = RtcReport("INCONCLUSIVE", threshold=settings.threshold)
    if all(change.before.get(p) == t for p, t in change.after.items()):
        return replace(base, reason="there is no change to check")
    answers = complete_all(model, describe_requests(change, settings))
    usage = usage_of(answers)
    failed = [a for a in answers if isinstance(a, Exception)]
    if failed:
        return replace(base, usage=usage, reason=f"the model failed to describe: {failed[0]}")
    descriptions = [clean(a.text, settings.max_chars) for a in answers]
    if not any(descriptions):
        return replace(base, usage=usage, reason="the model wrote no description")
    # An empty description is the describer's failure: nothing to re-make from.
    wanted = [d for d in [*descriptions, BASELINE] if d]
    answers = complete_all(model, [remake_request(fmt, change, d) for d in wanted])
    remade = dict(zip(wanted, answers, strict=True))
    usage += usage_of(remade.values())
    failed = [a for a in remade.values() if isinstance(a, Exception)]
    if failed:
        return replace(base, usage=usage, reason=f"the model failed to re-make: {failed[0]}")
    added = _added_lines(change)
    samples = [
        replace(compare(fmt, change, remade[d]), description=d, leaked=leaks(d, added))
        if d
        else Sample("", tier="failed", problem="the description is empty")
        for d in [*descriptions, BASELINE]
    ]
    original = None
    if behaviour is not None:
        original, samples = _tested(change, samples, behaviour)
    *kept, blind = samples
    score = sum(s.equivalent for s in kept) / len(kept)
    verdict, reason = judge(score, settings.threshold)
    return RtcReport(
        verdict, score, blind, settings.threshold, tuple(kept), usage, reason, original
    )


def judge(score: float, threshold: float) -> tuple[str, str]:
    """The verdict for a score (the fraction of samples judged equivalent), by RULE."""
    if score >= threshold:
        return "PASS", f"{score:.0%} of the descriptions re-make the change"
    if score == 0:
        return "FAIL", "no description re-makes the change"
    return "WEAK", f"only {score:.0%} of the descriptions re-make the change"


def _tested(
    change: Change, samples: list[Sample], behaviour: Behaviour
) -> tuple[bool | None, list[Sample]]:
    """The original and every re-made change run on the tests (all at once); a re-make that
    differs in text but has the original's outcome on every test, with at least one test
    passing, moves to the tier "tests"."""
    runs = [change.before, change.after] + [s.remade for s in samples if s.remade]
    with ThreadPoolExecutor(max_workers=min(8, len(runs))) as pool:
        outcomes = list(pool.map(behaviour, runs))
    before, original, results = outcomes[0], outcomes[1], iter(outcomes[2:])
    if original is None:
        return None, samples
    # Tests that do not tell the change from no change cannot vouch for a re-make.
    covered = before != original and any(original.values())
    judged = []
    for s in samples:
        if not s.remade:
            judged.append(s)
            continue
        found = next(results)
        same = covered and found == original
        tier = TESTS if same and s.tier == equivalence.DIFFERENT else s.tier
        judged.append(replace(s, tier=tier, tests=bool(found) and all(found.values())))
    return bool(original) and all(original.values()), judged


def describe_requests(change: Change, settings: RtcSettings) -> list[Request]:
    """The describing requests, one per sample, each with its own seed."""
    files = "\n\n".join(prompt.fenced(p, t) for p, t in sorted(change.before.items()))
    diff = unified_diff(change.before, change.after)
    parts = [f"Files before the change:\n\n{files}" if files else "There were no files before."]
    if settings.with_request and change.request:
        parts.append(f"The user asked for the change like this:\n\n{change.request}")
    parts.append(f"The change:\n\n```diff\n{diff}```")
    messages = (
        Message("system", DESCRIBE.format(limit=settings.max_chars)),
        Message("user", "\n\n".join(parts)),
    )
    return [
        Request(messages, settings.temperature, seed=n, kind="rtc-describe")
        for n in range(settings.samples)
    ]


def remake_request(fmt: EditFormat, change: Change, description: str) -> Request:
    """The request that re-makes the change from a description, as the chat would send it."""
    files = change.context | change.before
    messages = prompt.build(fmt, files, {}, [], description)
    return Request(messages, 0.0, (fmt.tool,) if fmt.tool else (), kind="rtc-remake")


def clean(text: str, limit: int) -> str:
    """A description on one line, without quotes around it, at most limit characters."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    line = lines[0] if lines else ""
    line = line.strip("\"'`").strip()
    return line[:limit]


def leaks(description: str, added: list[str]) -> bool:
    """Whether the description quotes an added line, or a long stretch of one."""
    text = " ".join(description.split())
    for line in added:
        words = " ".join(line.split())
        if len(words) >= 12 and words in text:
            return True
        run = _common_run(words, text)
        if len(run) >= 16 and any(mark in run for mark in "()[]{}=;"):
            return True
    return any(quoted in " ".join(added) for quoted in re.findall(r"`([^`]{6,})`", description))


def compare(fmt: EditFormat, change: Change, answer: Completion) -> Sample:
    """How the re-made change compares with the original, as a sample without description."""
    files = change.context | change.before
    try:
        result = fmt.apply(fmt.parse(answer.reply), files)
    except ReplyError as exc:
        return Sample("", tier="failed", problem=str(exc).splitlines()[0][:160])
    if not result.ok:
        return Sample("", tier="failed", problem=result.failures[0].reason.splitlines()[0][:160])
    remade = {p: t for p, t in result.files.items() if files.get(p) != t}
    if not remade:
        return Sample("", tier="failed", problem="the re-made reply changes nothing")
    similarity = diff_similarity(change, remade)
    return Sample("", tier=tier(change.after, remade), similarity=similarity, remade=remade)


def tier(original: dict[str, str], remade: dict[str, str]) -> str:
    """The strictest tier at which the two changed-file sets are equal."""
    return equivalence.tier(original, remade)


def diff_similarity(change: Change, remade: dict[str, str]) -> float:
    """How alike the added and removed lines of the two changes are, from 0 to 1."""
    ours = _changed_lines(change.before, change.after)
    theirs = _changed_lines(change.before, remade)
    if not ours and not theirs:
        return 1.0
    return difflib.SequenceMatcher(None, ours, theirs, autojunk=False).ratio()


def _changed_lines(before: dict[str, str], after: dict[str, str]) -> list[str]:
    lines = []
    for line in unified_diff(before, after, context=0).splitlines():
        if line[:1] in "+-" and not line.startswith(("+++", "---")):
            lines.append(line[0] + " ".join(line[1:].split()))
    return lines


def _added_lines(change: Change) -> list[str]:
    return [line[1:] for line in _changed_lines(change.before, change.after) if line[0] == "+"]


def _common_run(a: str, b: str) -> str:
    """The longest stretch of a that also occurs in b."""
    match = difflib.SequenceMatcher(None, a, b, autojunk=False).find_longest_match()
    return a[match.a : match.a + match.size]
