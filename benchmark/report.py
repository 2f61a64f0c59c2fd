"""The summary of a run: pass rates after each try, over completed and over selected
exercises, well-formed replies, the counters, time, tokens and cost."""

from __future__ import annotations

from collections.abc import Sequence

COUNTERS = (
    "parse_errors",
    "apply_failures",
    "reflections",
    "lazy_comments",
    "syntax_errors",
    "indentation_errors",
    "test_timeouts",
)


def summarize(results: Sequence[dict], selected: int, tries: int) -> dict:
    """The run's figures. Rates are percentages; `pass_rate_N` counts exercises that passed
    by try N among the completed ones, `pass_rate_N_of_selected` among all selected."""
    completed = [r for r in results if not r.get("error")]
    summary: dict = {
        "selected": selected,
        "completed": len(completed),
        "errored": len(results) - len(completed),
        "not_run": selected - len(results),
    }
    for n in range(1, tries + 1):
        passed = sum(1 for r in completed if any(r["tests_outcomes"][:n]))
        summary[f"pass_rate_{n}"] = _percent(passed, len(completed))
        summary[f"pass_rate_{n}_of_selected"] = _percent(passed, selected)
    well_formed = sum(1 for r in completed if not r["parse_errors"] and not r["apply_failures"])
    summary["percent_well_formed"] = _percent(well_formed, len(completed))
    for name in COUNTERS:
        summary[name] = sum(r.get(name, 0) for r in results)
    summary["seconds_per_exercise"] = (
        round(sum(r["seconds"] for r in results) / len(results), 2) if results else 0.0
    )
    summary["prompt_tokens"] = sum(r["prompt_tokens"] for r in results)
    summary["completion_tokens"] = sum(r["completion_tokens"] for r in results)
    costs = [r["cost"] for r in results if r.get("cost") is not None]
    summary["cost"] = round(sum(costs), 4) if costs else None
    return summary


def _percent(part: int, whole: int) -> float:
    return round(100 * part / whole, 1) if whole else 0.0


def table(summary: dict) -> str:
    """The summary as aligned lines of text."""
    width = max(len(k) for k in summary)
    return "\n".join(f"{key:<{width}}  {value}" for key, value in summary.items())
