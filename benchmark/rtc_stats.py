"""The round trips' part of `benchmark --stats`: each run's RTC figures, and across runs the
correlation of mean RTC with pass@1 and its scatter plot (the RTC paper's central figure)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from benchmark import charts
from benchmark.correlation import correlation, described

if TYPE_CHECKING:
    from benchmark.stats import Run

WHAT = {"rtc_reference": "reference solutions", "rtc": "final edits"}


def round_trips(runs: Sequence[Run], base: Path) -> list[str]:
    """Per run: RTC pass rate, mean score and lift, and how RTC relates to passing after try 1
    across its exercises; across runs (models), for the reference solutions and the final
    edits apart: the correlation of mean RTC with pass@1 and its scatter plot, the RTC
    paper's central figure."""
    lines = []
    points: dict[str, list[tuple[str, float, float]]] = {"rtc_reference": [], "rtc": []}
    for run in runs:
        s = run.summary
        for key in points:
            if f"{key}_mean_score" not in s:
                continue
            lines.append(
                f"  {run.path.name} ({WHAT[key]}): RTC pass {s[f'{key}_pass_rate']}%,"
                f" mean RTC {s[f'{key}_mean_score']}, mean lift {s[f'{key}_mean_lift']},"
                f" re-makes passing the tests {s[f'{key}_remakes_passing']}"
            )
            if f"{key}_vs_pass_1" in s:
                lines.append(f"    RTC vs pass after try 1: {described(s[f'{key}_vs_pass_1'])}")
            if s.get("pass_rate_1") is not None and s[f"{key}_mean_score"] is not None:
                points[key].append((run.path.name, s[f"{key}_mean_score"], s["pass_rate_1"]))
    if not lines:
        return []
    lines = [
        "",
        "round-trip correctness (score: the fraction of samples judged equivalent):",
        *lines,
    ]
    for key, found in points.items():
        if len(found) < 2:
            continue
        across = correlation([p[1] for p in found], [p[2] for p in found])
        lines.append(f"  across runs, mean RTC of the {WHAT[key]} vs pass@1: {described(across)}")
        tail = "-rtc-reference" if key == "rtc_reference" else "-rtc"
        written = charts.scatter(found, WHAT[key], charts.targets(base, tail))
        lines.append(f"  scatter: {', '.join(str(p) for p in written)}")
    return lines
