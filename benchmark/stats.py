"""Comparing finished runs: their figures side by side, requests that got different replies,
and a chart of pass rates per model and format with error bars from repeats."""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from pathlib import Path

from benchmark.correlation import correlation, described


def compare(runs: list[Path], chart: Path | None = None) -> str:
    """A text report on the runs; the chart is written as PNG and SVG next to the first run."""
    summaries = [(run, json.loads((run / "summary.json").read_text())) for run in runs]
    lines = [_row("run", "model", "format", "pass 1", "pass last", "malformed", "errors", "done")]
    groups: dict[tuple[str, str], list[float]] = defaultdict(list)
    for run, s in summaries:
        tries = [int(k[10:]) for k in s if k.startswith("pass_rate_") and k[10:].isdigit()]
        # A run of --rtc-reference alone asked for no edits: it has no pass rates.
        final = s[f"pass_rate_{max(tries)}"] if tries else None
        if final is not None:
            groups[(s["model"], _variant(s))].append(final)
        done = f"{s['completed']}/{s['selected']}"
        malformed = s.get("percent_malformed", 100 - s["percent_well_formed"])
        errors = s.get("errors", s.get("errored", 0))
        lines.append(
            _row(
                run.name,
                s["model"],
                _variant(s),
                s.get("pass_rate_1", "-"),
                "-" if final is None else final,
                malformed,
                errors,
                done,
            )
        )
    lines += ["", "pass rate after the last try, mean ± stdev over repeats:"]
    for (model, fmt), rates in sorted(groups.items()):
        spread = statistics.stdev(rates) if len(rates) > 1 else 0.0
        lines.append(
            f"  {model} / {fmt}: {statistics.mean(rates):.1f} ± {spread:.1f} (n={len(rates)})"
        )
    target = chart or runs[0].parent / "stats"
    lines += _round_trips(summaries, target)
    lines += ["", _nondeterminism(runs)]
    if groups:
        written = draw(groups, target)
        lines.append(f"chart: {', '.join(str(p) for p in written)}")
    return "\n".join(lines)


def _variant(summary: dict) -> str:
    """The edit format, and the number of candidates when there were several."""
    n = summary.get("candidates", 1)
    return summary["edit_format"] + (f" x{n}" if n > 1 else "")


def _round_trips(summaries: list[tuple[Path, dict]], target: Path) -> list[str]:
    """Per run: RTC pass rate, mean score and lift, and how RTC relates to passing after try 1
    across its exercises; across runs (models), for the reference solutions and the final
    edits apart: the correlation of mean RTC with pass@1 and its scatter plot, the RTC
    paper's central figure."""
    lines = []
    points: dict[str, list[tuple[str, float, float]]] = {"rtc_reference": [], "rtc": []}
    for run, s in summaries:
        for key in points:
            if f"{key}_mean_score" not in s:
                continue
            what = WHAT[key]
            lines.append(
                f"  {run.name} ({what}): RTC pass {s[f'{key}_pass_rate']}%,"
                f" mean RTC {s[f'{key}_mean_score']}, mean lift {s[f'{key}_mean_lift']},"
                f" re-makes passing the tests {s[f'{key}_remakes_passing']}"
            )
            if f"{key}_vs_pass_1" in s:
                lines.append(f"    RTC vs pass after try 1: {described(s[f'{key}_vs_pass_1'])}")
            if s.get("pass_rate_1") is not None and s[f"{key}_mean_score"] is not None:
                points[key].append((run.name, s[f"{key}_mean_score"], s["pass_rate_1"]))
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
        name = target.name + ("-rtc-reference" if key == "rtc_reference" else "-rtc")
        written = scatter(found, target.with_name(name), WHAT[key])
        lines.append(f"  scatter: {', '.join(str(p) for p in written)}")
    return lines


WHAT = {"rtc_reference": "reference solutions", "rtc": "final edits"}


def scatter(points: list[tuple[str, float, float]], target: Path, what: str) -> list[Path]:
    """Mean RTC against pass@1, one labelled point per run, as target.png and target.svg."""
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(5, 4))
    for name, rtc, passed in points:
        axes.scatter([rtc], [passed], color="#4c72b0")
        axes.annotate(name, (rtc, passed), fontsize=7, xytext=(3, 3), textcoords="offset points")
    axes.set_xlabel(f"mean RTC of the {what} (fraction of samples re-made)")
    axes.set_ylabel("pass after try 1 (%)")
    axes.set_xlim(-0.05, 1.05)
    axes.set_ylim(-5, 105)
    return _save(figure, target)


def _row(*cells) -> str:
    widths = (34, 24, 12, 8, 10, 10, 8, 8)
    return "".join(f"{str(c):<{w}}" for c, w in zip(cells, widths, strict=True)).rstrip()


def _nondeterminism(runs: list[Path]) -> str:
    """How many identical requests received different replies, across all the runs."""
    replies: dict[str, set[str]] = defaultdict(set)
    where: dict[str, str] = {}
    for run in runs:
        for path in sorted((run / "results").glob("*.json")):
            for pair in json.loads(path.read_text()).get("hashes", []):
                replies[pair["request"]].add(pair["reply"])
                where.setdefault(pair["request"], path.stem)
    varied = [h for h, r in replies.items() if len(r) > 1]
    text = f"identical requests: {len(replies)}; with different replies: {len(varied)}"
    if varied:
        text += " (" + ", ".join(sorted({where[h] for h in varied})[:10]) + ")"
    return text


def draw(groups: dict[tuple[str, str], list[float]], target: Path) -> list[Path]:
    """A bar chart of mean pass rates with stdev error bars, as target.png and target.svg."""
    plt = _pyplot()
    labels = [f"{model}\n{fmt}" for model, fmt in sorted(groups)]
    rates = [groups[key] for key in sorted(groups)]
    means = [statistics.mean(r) for r in rates]
    errors = [statistics.stdev(r) if len(r) > 1 else 0.0 for r in rates]
    figure, axes = plt.subplots(figsize=(max(4, 1.4 * len(labels)), 4))
    axes.bar(labels, means, yerr=errors, capsize=4, color="#4c72b0")
    axes.set_ylabel("pass rate after the last try (%)")
    axes.set_ylim(0, 100)
    return _save(figure, target)


def _pyplot():
    """matplotlib's pyplot, drawing to files only (imported when a chart is drawn)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(figure, target: Path) -> list[Path]:
    """The figure written as target.png and target.svg (text kept as text), then closed."""
    figure.tight_layout()
    written = [target.with_suffix(".png"), target.with_suffix(".svg")]
    for path in written:
        figure.savefig(path)
    _pyplot().close(figure)
    return written
