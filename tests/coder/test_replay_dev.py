"""Real replies from ../shared/replay-dev, through the same code as `coder --apply`.

Each `applied` case must not crash; together they must keep reproducing the recorded
after-states at least as often as they do now (a regression floor, not a target).
"""

from __future__ import annotations

import collections
import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "perf" / "replay_dev.py"
FLOOR = 0.88
"""Share of applied cases reproduced exactly; 296 of 328 (90.2%) when this was written."""


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
    assert outcomes["exact"] / total >= FLOOR, outcomes
