"""Real replies from ../shared/replay-dev, through the same code as `coder --apply`.

Each `applied` case must not crash; together they must keep reproducing the recorded
after-states (exactly, or up to trailing whitespace, as the replay-dev README grades them) at
least as often as they do now, and write no more wrong results (regression bounds, not targets).
"""

from __future__ import annotations

import collections
import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "perf" / "replay_dev.py"
FLOOR = 0.90
"""Share of applied cases reproduced; 300 of 328 (91.5%) when this was written."""
MOST_WRONG = 16
"""Wrong results written (most are after-states the original tool got wrong)."""


def _load():
    spec = importlib.util.spec_from_file_location("replay_dev", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_replay_dev_cases_reproduce_their_after_states() -> None:
    replay = _load()
    if not replay.DEFAULT_CASES.is_dir():
        pytest.skip(f"{replay.DEFAULT_CASES} is not there")
    outcomes = collections.Counter()
    for case in sorted(p for p in replay.DEFAULT_CASES.iterdir() if (p / "after").is_dir()):
        outcome, _ = replay.run_case(case)
        outcomes[outcome] += 1
    total = sum(outcomes.values())
    assert total > 100
    assert (outcomes["exact"] + outcomes["whitespace"]) / total >= FLOOR, outcomes
    assert outcomes["wrong"] <= MOST_WRONG, outcomes
