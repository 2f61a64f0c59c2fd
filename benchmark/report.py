"""The summary of a run: pass rates after each try over every selected exercise (one whose
model request failed counts as failed, and is counted apart as an error, as in the 2023
edit-format study), well-formed replies, the counters, time, tokens and cost."""

from __future__ import annotations

from collections.abc import Sequence

from benchmark.correlation import correlation
from benchmark.hashing import records_of

COUNTERS = (
    "no_edits",
    "parse_errors",
    "apply_failures",
    "reflections",
    "lazy_comments",
    "syntax_errors",
    "indentation_errors",
    "test_timeouts",
)


def summarize(results: Sequence[dict], selected: int, tries: int) -> dict:
    """The run's figures. Rates are percentages of the selected exercises: `pass_rate_N`
    counts those that passed by try N, an exercise that ended in an error (a request the
    model's API rejected, say) or did not run counting as not passed. `errors` counts the
    first, and `harness_errors` those of them whose tests could not run at all (the harness's
    failure: they say nothing of the model); `tampering` those that ended when a run of their
    tests was caught tampering with them (failed, not errors); `percent_well_formed` is the
    share of exercises whose replies all applied (a reply with no edit is malformed),
    `percent_malformed` the rest."""
    completed = [r for r in results if not r.get("error")]
    summary: dict = {
        "selected": selected,
        "completed": len(completed),
        "errors": len(results) - len(completed),
        "harness_errors": sum(1 for r in results if r.get("error_cause") == "harness"),
        "tampering": sum(1 for r in results if r.get("tampering")),
        "not_run": selected - len(results),
    }
    for n in range(1, tries + 1):
        summary[f"pass_rate_{n}"] = _percent(sum(passed(r, n) for r in results), selected)
    # Only edit replies are well- or malformed: a run that asked for none has no such figure.
    replied = [r for r in results if any(c["reply"] for c in records_of(r))] if tries else []
    well_formed = sum(1 for r in replied if _well_formed(r))
    summary["percent_well_formed"] = _percent(well_formed, len(replied)) if replied else None
    summary["percent_malformed"] = (
        _percent(len(replied) - well_formed, len(replied)) if replied else None
    )
    for name in COUNTERS:
        summary[name] = sum(r.get(name, 0) for r in results)
    summary["seconds_per_exercise"] = (
        round(sum(r["seconds"] for r in results) / len(results), 2) if results else 0.0
    )
    summary["prompt_tokens"] = sum(r["prompt_tokens"] for r in results)
    summary["completion_tokens"] = sum(r["completion_tokens"] for r in results)
    waited = sum(r.get("model_seconds", 0.0) for r in results)
    summary["completion_tokens_per_second"] = (
        round(summary["completion_tokens"] / waited, 1) if waited else None
    )
    costs = [r["cost"] for r in results if r.get("cost") is not None]
    summary["cost"] = round(sum(costs), 4) if costs else None
    return summary | _selection(completed) | _round_trip(completed, attempted=tries > 0)


def by_language(results: Sequence[dict], languages: Sequence[str], tries: int) -> dict:
    """Each language's own figures, as summarize() gives them for the whole set; languages
    names the language of every selected exercise (the denominators)."""
    figures = {}
    for language in dict.fromkeys(languages):
        own = [r for r in results if r.get("language", "python") == language]
        figures[language] = summarize(own, languages.count(language), tries)
    return figures


def passed(result: dict, tries: int | None = None) -> bool:
    """Whether the exercise's tests passed by try `tries` (by its last try when None), as every
    pass rate counts it: an exercise that passed and then ended in an error (a failed round
    trip request, say) passed."""
    return any(result.get("tests_outcomes", [])[:tries])


def _well_formed(result: dict) -> bool:
    """Every reply of the exercise applied: no parse error, failed edit or reply without edits."""
    return not any(result.get(k, 0) for k in ("parse_errors", "apply_failures", "no_edits"))


def _selection(completed: Sequence[dict]) -> dict:
    """How the choice among candidates did, on every try that had candidates: which rule chose,
    and, by the exercise's own tests, whether a candidate passed when the chosen one failed
    (a miss: the best available was not chosen)."""
    made = [s for r in completed for s in r.get("selections", [])]
    if not made:
        return {}
    could = [s for s in made if any(s["passed"].values())]
    chose_passing = sum(1 for s in could if s["passed"][s["chosen"]])
    rules = sorted({s.get("rule", "selector") for s in made})
    missed = [s for s in could if not s["passed"][s["chosen"]]]
    return {
        "selections": len(made),
        "selections_with_a_passing_candidate": len(could),
        "selection_chose_passing": chose_passing,
        "selection_missed": len(missed),
        "selection_by_rule": {r: sum(s.get("rule", "selector") == r for s in made) for r in rules},
        "selection_missed_by_rule": {
            r: sum(s.get("rule", "selector") == r for s in missed) for r in rules
        },
        "selector_fallbacks": sum(1 for s in made if s["fallback"]),
        "refined_candidates": sum(s.get("refined", 0) for s in made),
    }


def _round_trip(completed: Sequence[dict], attempted: bool) -> dict:
    """RTC figures, for the final edits (rtc_*) and the reference solutions (rtc_reference_*):
    the verdict counts and RTC pass rate (of the conclusive verdicts), the mean score (the
    fraction of samples judged equivalent) and mean lift, how many re-makes pass the tests;
    when the model also attempted the exercises, the test pass rate among RTC-pass and
    RTC-fail exercises (WEAK counts as not passing) and the correlation between each
    exercise's RTC score and its passing after try 1, as the RTC paper relates them."""
    figures: dict = {}
    for key in ("rtc", "rtc_reference"):
        checked = [r for r in completed if r.get(key)]
        if not checked:
            continue
        verdicts = [r[key]["verdict"] for r in checked]
        conclusive = [r for r in checked if r[key]["verdict"] != "INCONCLUSIVE"]
        rtc_pass = [r for r in conclusive if r[key]["verdict"] == "PASS"]
        scores = [r[key]["score"] for r in conclusive]
        tested = [t for r in conclusive for t in r[key].get("tests", []) if t is not None]
        figures |= {
            f"{key}_pass_rate": _percent(len(rtc_pass), len(conclusive)),
            f"{key}_verdicts": {v: verdicts.count(v) for v in VERDICTS},
            f"{key}_mean_score": _mean(scores),
            f"{key}_mean_lift": _mean([r[key].get("lift", 0.0) for r in conclusive]),
            f"{key}_remakes_passing": f"{sum(tested)}/{len(tested)}",
            f"{key}_tokens": sum(
                r[key]["prompt_tokens"] + r[key]["completion_tokens"] for r in checked
            ),
        }
        if attempted:
            rtc_fail = [r for r in conclusive if r[key]["verdict"] != "PASS"]
            passed = lambda rs: sum(1 for r in rs if any(r["tests_outcomes"]))  # noqa: E731
            first = [1.0 if r["tests_outcomes"][:1] == [True] else 0.0 for r in conclusive]
            figures |= {
                f"{key}_pass_rate_among_pass": _percent(passed(rtc_pass), len(rtc_pass)),
                f"{key}_pass_rate_among_fail": _percent(passed(rtc_fail), len(rtc_fail)),
                f"{key}_vs_pass_1": correlation(scores, first),
            }
    return figures


VERDICTS = ("PASS", "WEAK", "FAIL", "INCONCLUSIVE")


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def _percent(part: int, whole: int) -> float:
    return round(100 * part / whole, 1) if whole else 0.0


def table(summary: dict) -> str:
    """The summary as aligned lines of text; each language's figures on a line of its own."""
    plain = {k: v for k, v in summary.items() if k != "languages"}
    width = max(len(k) for k in plain)
    lines = [f"{key:<{width}}  {value}" for key, value in plain.items()]
    for language, figures in summary.get("languages", {}).items():
        lines.append(f"  {language:<{width - 2}}  {language_line(figures)}")
    return "\n".join(lines)


def language_line(figures: dict) -> str:
    """One language's figures in a line: pass rates with their denominator, then what went
    wrong and what it cost."""
    rates = [f"try {k[10:]} {v}%" for k, v in figures.items() if k.startswith("pass_rate_")]
    parts = [", ".join(rates) + f" of {figures['selected']}"]
    if figures.get("percent_well_formed") is not None:
        parts.append(f"well-formed {figures['percent_well_formed']}%")
    parts.append(f"errors {figures['errors']} ({figures['harness_errors']} harness)")
    if figures.get("tampering"):
        parts.append(f"tampering {figures['tampering']}")
    parts.append(f"syntax/compile errors {figures['syntax_errors']}")
    parts.append(f"timeouts {figures['test_timeouts']}")
    parts.append(f"{figures['seconds_per_exercise']} s/exercise")
    tokens = figures["prompt_tokens"] + figures["completion_tokens"]
    cost = figures.get("cost")
    parts.append(f"{tokens} tokens" + (f", ${cost}" if cost is not None else ""))
    return "; ".join(parts)
