"""Where a provider is nondeterministic: temperature-0 requests sent more than once that got
different replies, and exercises that passed in one repeat of a run and failed in another."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from benchmark.hashing import records_of
from benchmark.report import passed

WATCHED = ("edit", "retry", "reflection")
"""The kinds of call whose replies should repeat at temperature 0: the edit request of each
try and the problems sent back within one (candidates, selectors and round trips sample on
purpose or depend on them)."""


@dataclass
class Repeats:
    """What the repeats of one model and format show."""

    repeated: int = 0
    """Distinct watched requests sent more than once."""
    sends: int = 0
    """How many times those were sent, in all."""
    varied: int = 0
    """Of the repeated requests, those that got more than one distinct reply."""
    varied_in: list[str] = field(default_factory=list)
    """The exercises where a repeated request got different replies."""
    unknown: int = 0
    """Records from older runs, without kind or temperature: not counted above."""
    flips: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Exercise -> (repeats where it passed, repeats where it ran), for those that passed in
    some repeats and not in others."""
    runs: int = 0


def repeats(runs: Sequence[Sequence[dict]]) -> Repeats:
    """The figures for the results of several runs (repeats) of one model and format, each a
    list of exercise results."""
    found = Repeats(runs=len(runs))
    replies: dict[str, list[str]] = defaultdict(list)
    where: dict[str, str] = {}
    for results in runs:
        for result in results:
            for record in records_of(result):
                if record.get("kind") is None:
                    found.unknown += 1
                elif _watched(record):
                    replies[record["request"]].append(record["reply"])
                    where.setdefault(record["request"], result["exercise"])
    for request, got in replies.items():
        if len(got) < 2:
            continue
        found.repeated += 1
        found.sends += len(got)
        if len(set(got)) > 1:
            found.varied += 1
            found.varied_in.append(where[request])
    found.varied_in = sorted(set(found.varied_in))
    found.flips = flips(runs)
    return found


def _watched(record: dict) -> bool:
    return record["kind"] in WATCHED and record["temperature"] == 0 and record["reply"] is not None


def flips(runs: Iterable[Sequence[dict]]) -> dict[str, tuple[int, int]]:
    """Exercises that passed (by their last try) in at least one repeat and failed in another,
    passing counted as the pass rates count it (benchmark.report.passed)."""
    outcomes: dict[str, list[bool]] = defaultdict(list)
    for results in runs:
        for result in results:
            outcomes[result["exercise"]].append(passed(result))
    return {
        name: (sum(seen), len(seen))
        for name, seen in sorted(outcomes.items())
        if any(seen) and not all(seen)
    }


def passes_per_exercise(runs: Sequence[Sequence[dict]]) -> list[int]:
    """For each exercise that ran in every repeat, in how many repeats it passed."""
    outcomes: dict[str, list[bool]] = defaultdict(list)
    for results in runs:
        for result in results:
            outcomes[result["exercise"]].append(passed(result))
    return [sum(seen) for seen in outcomes.values() if len(seen) == len(runs)]
