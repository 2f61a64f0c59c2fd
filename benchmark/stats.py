"""`benchmark --stats RUN...`: finished runs side by side in a table that fits the terminal,
the spread of repeats, round-trip correctness against pass rates, where the provider was
nondeterministic, and the charts."""

from __future__ import annotations

import io
import json
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from benchmark import charts, determinism
from benchmark.model_names import short_names
from benchmark.rtc_stats import round_trips
from coder.errors import UsageError

CHART_SUFFIXES = charts.SUFFIXES


@dataclass
class Run:
    """A finished run: its folder and summary; its exercise results read when first needed."""

    path: Path
    summary: dict

    @cached_property
    def results(self) -> list[dict]:
        """The exercise results in the run's folder; UsageError naming a file that is not one."""
        found = []
        for path in sorted((self.path / "results").glob("**/*.json")):
            result = _json(path)
            if not isinstance(result, dict) or not isinstance(result.get("exercise"), str):
                raise UsageError(f"{path} is not an exercise's result")
            found.append(result)
        return found

    @property
    def tries(self) -> int:
        """The number of tries the pass rates go up to (0 for a run that asked for no edits)."""
        s = self.summary
        return max(
            (int(k[10:]) for k in s if k.startswith("pass_rate_") and k[10:].isdigit()), default=0
        )

    @property
    def key(self) -> tuple[str, str]:
        """Model and variant: runs with the same key are repeats of each other."""
        return self.summary["model"], variant(self.summary)

    @property
    def date(self) -> str:
        """The day the run was made."""
        found = re.match(r"\d{4}-\d{2}-\d{2}", self.path.name)
        return self.summary.get("date") or (found.group() if found else "undated")


REQUIRED = {"model": str, "edit_format": str, "selected": int, "completed": int}
"""What a summary must hold for the comparison."""


def load(path: Path) -> Run:
    """The finished run in folder path; UsageError when it is not one."""
    summary = _json(path / "summary.json")
    if not isinstance(summary, dict) or any(
        not isinstance(summary.get(k), kind) for k, kind in REQUIRED.items()
    ):
        raise UsageError(f"{path / 'summary.json'} is not a benchmark run's summary")
    return Run(path, summary)


def _json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None


def compare(paths: list[Path], chart: Path | None = None, width: int = 80) -> str:
    """The report on the runs (a folder given twice counts once), as text no wider than width.
    The charts go to chart (PNG or SVG by its suffix), or to stats.png and stats.svg beside the
    first run. UsageError for a folder that is not a finished run."""
    paths = list({p.resolve(): p for p in paths}.values())
    runs = [load(p) for p in paths]
    from rich.console import Console

    console = Console(
        file=io.StringIO(), width=width, color_system=None, markup=False, highlight=False
    )
    names = short_names([run.summary["model"] for run in runs])
    console.print(_table(runs, names))
    groups: dict[tuple[str, str], list[Run]] = defaultdict(list)
    for run in runs:
        groups[run.key].append(run)
    lines = _harness(runs) + _tampering(runs) + _languages(runs) + _repeats(groups, names)
    base = chart or paths[0].parent / "stats"
    lines += round_trips(runs, base)
    lines += _nondeterminism(groups, names)
    lines += _charts(groups, base)
    lines += _language_chart(runs, names, base)
    table = [line.rstrip() for line in console.file.getvalue().splitlines()]
    return "\n".join(table + [part for line in lines for part in _wrapped(line, width)])


def variant(summary: dict) -> str:
    """The edit format and every setting that makes runs of it differ (candidates, round
    trips, the consistency prompt, tries, a re-scoring): runs of the same model and variant
    are repeats."""
    parts = [summary["edit_format"]]
    n = summary.get("candidates", 1)
    if n > 1:
        flags = [("candidate_tests", "t"), ("plan", "p"), ("diverse", "d")]
        parts.append(f"x{n}" + "".join(c for key, c in flags if summary.get(key)))
    flags = [("rtc", "+rtc"), ("rtc_reference", "+rtc-ref"), ("consistency_prompt", "+cons")]
    parts += [word for key, word in flags if summary.get(key)]
    if summary.get("tries", 2) != 2:
        parts.append(f"{summary['tries']} tries")
    if summary.get("rescored_from"):
        parts.append("rescored")
    return " ".join(parts)


def _table(runs: list[Run], names: dict[str, str]):
    """One row per run, numbered, with the exercises caught tampering when a run has any; the
    run folders' full names in a legend under it, and the full names of models too long for
    the table."""
    from rich import box
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    tries = {run.tries for run in runs if run.tries}
    last = f"try {tries.pop()}" if len(tries) == 1 else "last try"
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    table.add_column("#", justify="right")
    table.add_column("model", overflow="fold")
    table.add_column("format", overflow="fold")
    # Only where some run was caught: the model column needs the width more often.
    caught = any(run.summary.get("tampering") for run in runs)
    for name in ("try 1", last, "malformed", "errors", "tampered", "done"):
        if name != "tampered" or caught:
            table.add_column(name, justify="right", no_wrap=True)
    for n, run in enumerate(runs, 1):
        s = run.summary
        final = s[f"pass_rate_{run.tries}"] if run.tries else None
        malformed = s.get("percent_malformed")
        if "percent_malformed" not in s and s.get("percent_well_formed") is not None:
            malformed = 100 - s["percent_well_formed"]
        tampered = [str(s["tampering"]) if "tampering" in s else "-"] if caught else []
        table.add_row(
            str(n),
            Text(names[s["model"]]),
            Text(variant(s)),
            _figure(s.get("pass_rate_1")),
            _figure(final) + (f" ({run.tries})" if last == "last try" and run.tries else ""),
            _figure(malformed),
            _errors(s),
            *tampered,
            f"{s['completed']}/{s['selected']}",
        )
    legend = [Text("runs:")]
    legend += [Text(f"{n:>3}  {run.path.name}", overflow="fold") for n, run in enumerate(runs, 1)]
    models = sorted({run.summary["model"] for run in runs})
    shortened = [(names[m], m) for m in models if names[m] != m]
    if shortened:
        legend.append(Text("models:"))
        legend += [Text(f"  {short}  {full}", overflow="fold") for short, full in shortened]
    return Group(table, *legend)


def _errors(summary: dict) -> str:
    """The run's errors, with how many were the harness's."""
    text = str(summary.get("errors", summary.get("errored", 0)))
    harness = summary.get("harness_errors", 0)
    return f"{text} ({harness} harness)" if harness else text


def _harness(runs: list[Run]) -> list[str]:
    """A warning for each run with exercises whose tests could not run at all, with the first
    cause: its pass rates count them as failed, though they say nothing of the model."""
    lines = []
    for n, run in enumerate(runs, 1):
        count = run.summary.get("harness_errors", 0)
        if not count:
            continue
        first = next(
            (r["error"] for r in run.results if r.get("error_cause") == "harness"), "unknown"
        )
        lines.append(
            f"run {n}: {count} exercises ended because their tests could not run (the harness's"
            f" failure, not the model's; they count as not passed): {first.splitlines()[0]}"
        )
    return lines


def _tampering(runs: list[Run]) -> list[str]:
    """For each run with exercises caught tampering with their tests: how many, and what the
    first was caught doing (a run made before the check has no such count: "-" above)."""
    lines = []
    for n, run in enumerate(runs, 1):
        count = run.summary.get("tampering", 0)
        if not count:
            continue
        first = next((r for r in run.results if r.get("tampering")), None)
        seen = f": {first['exercise']}, {first['tampering']}" if first else ""
        lines.append(
            f"run {n}: {count} exercises caught tampering with their tests (they count as not"
            f" passed){seen}"
        )
    return lines


def _languages(runs: list[Run]) -> list[str]:
    """Each run's figures per language, under the whole set's, for runs of several languages
    or of another than Python."""
    from benchmark.report import language_line

    lines = []
    for n, run in enumerate(runs, 1):
        for language, figures in run.summary.get("languages", {}).items():
            lines.append(f"  run {n} {language}: {language_line(figures)}")
    return (
        ["", "per language (rates of that language's selected exercises):", *lines] if lines else []
    )


def _language_chart(runs: list[Run], names: dict[str, str], base: Path) -> list[str]:
    """A bar group per language: each run's pass rate after try 1 and after its last try."""
    with_languages = [r for r in runs if r.summary.get("languages") and r.tries]
    if not with_languages:
        return []
    series = {
        f"{names[r.summary['model']]} / {variant(r.summary)} #{n}": {
            language: (f["pass_rate_1"], f[f"pass_rate_{r.tries}"], f["selected"], _caught(f))
            for language, f in r.summary["languages"].items()
        }
        for n, r in enumerate(runs, 1)
        if r in with_languages
    }
    written = charts.by_language(series, charts.targets(base, "-languages"))
    return [f"chart: {path}" for path in written]


def _caught(figures: dict) -> float:
    """The share of the selected exercises caught tampering, in percent."""
    selected = figures.get("selected") or 0
    return 100 * figures.get("tampering", 0) / selected if selected else 0.0


def _figure(value) -> str:
    return "-" if value is None else f"{value:.1f}"


def _repeats(groups: dict[tuple[str, str], list[Run]], names: dict[str, str]) -> list[str]:
    lines = ["", "pass rate after the last try, over repeats: mean ± stdev (min-max, n):"]
    for (model, fmt), runs in sorted(groups.items()):
        rates = [r.summary[f"pass_rate_{r.tries}"] for r in runs if r.tries]
        if not rates:
            continue
        spread = statistics.stdev(rates) if len(rates) > 1 else 0.0
        lines.append(
            f"  {names[model]} / {fmt}: {statistics.mean(rates):.1f} ± {spread:.1f}"
            f" ({min(rates):.1f}-{max(rates):.1f}, n={len(rates)})"
        )
    return lines if len(lines) > 2 else []


def _nondeterminism(groups: dict[tuple[str, str], list[Run]], names: dict[str, str]) -> list[str]:
    """Per model and format: repeated temperature-0 requests, those with differing replies,
    and the exercises that flipped between repeats."""
    lines = ["", "nondeterminism (temperature-0 edit, retry and reflection requests):"]
    for (model, fmt), runs in sorted(groups.items()):
        found = determinism.repeats([r.results for r in runs])
        lines.append(
            f"  {names[model]} / {fmt}, {found.runs} run(s):"
            f" {found.repeated} requests sent more than once ({found.sends} sends),"
            f" {found.varied} with different replies"
            + (f" (in {', '.join(found.varied_in)})" if found.varied_in else "")
        )
        if found.unknown:
            lines.append(f"    {found.unknown} calls from older runs without kind: not counted")
        if found.runs > 1:
            flipped = [f"{name} ({k} of {n})" for name, (k, n) in found.flips.items()]
            lines.append(
                "    flips (passed in some repeats only): " + (", ".join(flipped) or "none")
            )
    return lines


def _charts(groups: dict[tuple[str, str], list[Run]], base: Path) -> list[str]:
    """The pass-rate chart, and the spread of repeats where a model and format has repeats."""
    bars = [
        charts.Bar(
            model,
            fmt,
            tuple(r.summary.get("pass_rate_1", 0.0) for r in runs if r.tries),
            tuple(r.summary[f"pass_rate_{r.tries}"] for r in runs if r.tries),
            max(r.tries for r in runs),
            max(r.summary["selected"] for r in runs),
            tuple(_caught(r.summary) for r in runs if r.tries),
        )
        for (model, fmt), runs in sorted(groups.items())
        if any(r.tries for r in runs)
    ]
    if not bars:
        return []
    runs = [r for group in groups.values() for r in group if r.tries]
    models = ", ".join(sorted({b.model for b in bars}))
    dates = sorted({r.date for r in runs})
    when = dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"
    title = f"Pass rates by model and edit format\n{_shorten(models, 90)} ({when})"
    written = charts.pass_rates(bars, title, charts.targets(base))
    attempted = {f"{m} / {f}": [r for r in rs if r.tries] for (m, f), rs in sorted(groups.items())}
    repeated = {name: rs for name, rs in attempted.items() if len(rs) > 1}
    if repeated:
        passes = {
            name: determinism.passes_per_exercise([r.results for r in rs])
            for name, rs in repeated.items()
        }
        counts = {name: len(rs) for name, rs in repeated.items()}
        written += charts.spread(passes, counts, charts.targets(base, "-spread"))
    return [f"chart: {path}" for path in written]


def _wrapped(line: str, width: int) -> list[str]:
    """The line in pieces no wider than width terminal cells (wide characters count two), the
    later ones indented under the first; a word too long for any line (a path) is cut where the
    line ends rather than moved to a line of its own."""
    from rich.cells import cell_len, chop_cells

    width = max(width, 20)
    lead = len(line) - len(line.lstrip())
    indent = " " * min(lead + 4, width // 2)
    pieces: list[str] = []
    current = " " * lead
    for word in line.split():
        joined = f"{current} {word}" if current.strip() else current + word
        fits_alone = cell_len(indent + word) <= width
        if current.strip() and cell_len(joined) > width and fits_alone:
            pieces.append(current)
            joined = indent + word
        current = joined
        while cell_len(current) > width:
            head = chop_cells(current, width)[0]
            pieces.append(head)
            current = indent + current[len(head) :]
    pieces.append(current)
    return pieces


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
