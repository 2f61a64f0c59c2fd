"""The charts of `benchmark --stats`, drawn with matplotlib to files: pass rates after try 1 and
after the last try per model and format (as the 2023 edit-format study drew them), the spread of
repeats per exercise, and mean RTC against pass@1."""

from __future__ import annotations

import statistics
import textwrap
from dataclasses import dataclass
from pathlib import Path

FIRST, LATER, TAMPERING = "#1f4e79", "#9dc3e6", "#c0392b"
"""Passed at try 1; passed only at a later try; caught tampering with the tests (failed)."""
TAMPERED = "caught tampering (failed)"
SUFFIXES = (".png", ".svg")
"""The formats a chart is written in."""


def targets(base: Path, tail: str = "") -> list[Path]:
    """The files a chart goes to: base's own format, or PNG and SVG when base has no suffix."""
    if base.suffix.lower() in SUFFIXES:
        return [base.with_name(base.stem + tail + base.suffix)]
    return [base.with_name(base.name + tail + suffix) for suffix in SUFFIXES]


@dataclass(frozen=True)
class Bar:
    """One model and format: its repeats' pass rates after try 1 and after the last try."""

    model: str
    variant: str
    first: tuple[float, ...]
    last: tuple[float, ...]
    tries: int
    exercises: int
    tampering: tuple[float, ...] = ()
    """Each repeat's share of exercises caught tampering with their tests, in percent."""

    @property
    def label(self) -> str:
        """The x-axis label: model (wrapped), format, exercise count and repeats."""
        # Wrapped at its slashes where it can be: a provider path reads best whole.
        wrapped = textwrap.wrap(self.model.replace("/", "/ "), 18, break_on_hyphens=False)
        lines = [*(line.replace("/ ", "/") for line in wrapped), self.variant]
        lines.append(f"{self.exercises} exercises")
        if len(self.last) > 1:
            lines.append(f"{len(self.last)} repeats")
        return "\n".join(lines)


def pass_rates(bars: list[Bar], title: str, targets: list[Path]) -> list[Path]:
    """Stacked bars: the mean pass rate after try 1, then what the later tries added, each
    value written on its bar, then the exercises caught tampering (failures, hatched); min-max
    range bars over repeats."""
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(max(5.0, 1.6 * len(bars) + 1.5), 5.2))
    xs = range(len(bars))
    first = [statistics.mean(b.first) for b in bars]
    last = [statistics.mean(b.last) for b in bars]
    tries = max(b.tries for b in bars)
    axes.bar(xs, first, width=0.6, color=FIRST, label="passed at try 1")
    if tries > 1:
        added = [max(0.0, b - a) for a, b in zip(first, last, strict=True)]
        later = f"passed only at a later try (by try {tries})"
        axes.bar(xs, added, width=0.6, bottom=first, color=LATER, label=later)
    _tampering(axes, xs, last, [_mean(b.tampering) for b in bars], 0.6)
    for x, bar, low, high in zip(xs, bars, first, last, strict=True):
        _ranges(axes, x, bar)
        # Inside its bar when there is room, else beside it: never on the last try's value.
        inside = low >= 8
        axes.text(
            x if inside else x - 0.32,
            low / 2 if inside else low,
            f"{low:.1f}",
            ha="center" if inside else "right",
            va="center",
            color="white" if inside else "black",
            fontsize=9,
        )
        if bar.tries > 1:
            top = max(high, max(bar.last)) + _mean(bar.tampering)
            axes.text(x, top + 1.5, f"{high:.1f}", ha="center", va="bottom", fontsize=9)
    axes.set_xticks(list(xs), [b.label for b in bars], fontsize=8)
    axes.set_ylabel("exercises passed (%)")
    axes.set_ylim(0, 124)
    axes.set_yticks(range(0, 101, 20))
    axes.set_title(title, fontsize=10)
    axes.legend(loc="upper center", ncol=2, fontsize=8, frameon=False)
    return _save(figure, targets)


NONE = (0.0, 0.0, 0, 0.0)
"""A language a run has no exercises of."""


def by_language(
    series: dict[str, dict[str, tuple[float, float, int, float]]], targets: list[Path]
) -> list[Path]:
    """A bar group per language, a bar per run in each: the pass rate after try 1, what the
    later tries added stacked on it, then the share caught tampering (hatched); the language's
    exercise count under its name."""
    plt = _pyplot()
    languages = list(dict.fromkeys(lang for rates in series.values() for lang in rates))
    width = 0.8 / len(series)
    figure, axes = plt.subplots(figsize=(max(6.0, 1.1 * len(languages) * len(series) + 2), 5))
    shades = plt.get_cmap("tab10")
    for n, (name, rates) in enumerate(series.items()):
        xs = [i + (n - (len(series) - 1) / 2) * width for i, lang in enumerate(languages)]
        first = [rates.get(lang, NONE)[0] for lang in languages]
        last = [rates.get(lang, NONE)[1] for lang in languages]
        tampered = [rates.get(lang, NONE)[3] for lang in languages]
        added = [max(0.0, b - a) for a, b in zip(first, last, strict=True)]
        axes.bar(xs, first, width=width, color=shades(n), label=f"{name}: try 1")
        axes.bar(
            xs,
            added,
            width=width,
            bottom=first,
            color=shades(n),
            alpha=0.4,
            label="passed only at a later try" if n == 0 else None,
        )
        _tampering(axes, xs, last, tampered, width, TAMPERED if n == 0 else None)
        for x, passed, caught in zip(xs, last, tampered, strict=True):
            axes.text(x, passed + caught, f"{passed:.0f}", ha="center", va="bottom", fontsize=7)
    counts = {
        lang: max(rates[lang][2] for rates in series.values() if lang in rates)
        for lang in languages
    }
    axes.set_xticks(
        range(len(languages)), [f"{lang}\n{counts[lang]} exercises" for lang in languages]
    )
    axes.set_ylabel("exercises passed (%)")
    axes.set_ylim(0, 124)
    axes.set_yticks(range(0, 101, 20))
    axes.set_title("Pass rates by language (faint: passed only at a later try)", fontsize=10)
    axes.legend(loc="upper center", ncol=2, fontsize=7, frameon=False)
    return _save(figure, targets)


def _tampering(
    axes, xs, bottom: list[float], rates: list[float], width: float, label: str | None = TAMPERED
) -> None:
    """The share caught tampering, hatched on top of the passes (they are failures, so the
    stack stays within 100%), its value written in it; only where some was caught."""
    drawn = [(x, b, r) for x, b, r in zip(xs, bottom, rates, strict=True) if r]
    if not drawn:
        return
    x, b, r = zip(*drawn, strict=True)
    bars = axes.bar(
        x, r, width=width, bottom=b, color="white", edgecolor=TAMPERING, hatch="//", label=label
    )
    texts = [f"{value:.1f}" for value in r]
    axes.bar_label(bars, labels=texts, label_type="center", fontsize=7, color=TAMPERING)


def _mean(values: tuple[float, ...]) -> float:
    return statistics.mean(values) if values else 0.0


def _ranges(axes, x: float, bar: Bar) -> None:
    """The min-max range of each rate over the repeats, where there are repeats."""
    if len(bar.last) < 2:
        return
    series = [(x - 0.12, bar.first)] + ([(x + 0.12, bar.last)] if bar.tries > 1 else [])
    for at, values in series:
        mean = statistics.mean(values)
        spread = [[mean - min(values)], [max(values) - mean]]
        axes.errorbar([at], [mean], yerr=spread, fmt="none", ecolor="black", capsize=4, lw=1)


def spread(
    groups: dict[str, list[int]], repeats: dict[str, int], targets: list[Path]
) -> list[Path]:
    """Per model and format with repeats: how many exercises passed in 0, 1, ... n of the n
    repeats (all or none is stable; anything between is a flip), the counts on the bars."""
    plt = _pyplot()
    most = max(repeats.values())
    figure, axes = plt.subplots(figsize=(max(5.0, 0.35 * (most + 1) * len(groups) + 3), 4.2))
    width = 0.8 / len(groups)
    for n, (name, passes) in enumerate(groups.items()):
        ks = range(repeats[name] + 1)
        counts = [passes.count(k) for k in ks]
        xs = [k + (n - (len(groups) - 1) / 2) * width for k in ks]
        drawn = axes.bar(xs, counts, width=width, label=name)
        axes.bar_label(drawn, fontsize=8)
    of = f" of {most}" if len(set(repeats.values())) == 1 else ""
    axes.set_xticks(range(most + 1), [f"{k}{of}" for k in range(most + 1)])
    axes.set_xlabel("repeats in which an exercise passed")
    axes.set_ylabel("exercises")
    axes.set_title("Spread of repeats per exercise", fontsize=10)
    axes.legend(fontsize=8, frameon=False)
    return _save(figure, targets)


def scatter(points: list[tuple[str, float, float]], what: str, targets: list[Path]) -> list[Path]:
    """Mean RTC against pass@1, one labelled point per run."""
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(5, 4))
    for name, rtc, passed in points:
        axes.scatter([rtc], [passed], color="#4c72b0")
        axes.annotate(name, (rtc, passed), fontsize=7, xytext=(3, 3), textcoords="offset points")
    axes.set_xlabel(f"mean RTC of the {what} (fraction of samples re-made)")
    axes.set_ylabel("pass after try 1 (%)")
    axes.set_xlim(-0.05, 1.05)
    axes.set_ylim(-5, 105)
    return _save(figure, targets)


def _pyplot():
    """matplotlib's pyplot, drawing to files only, SVG text kept as text (imported when a chart
    is drawn: it takes a while)."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"
    import matplotlib.pyplot as plt

    return plt


def _save(figure, targets: list[Path]) -> list[Path]:
    """The figure written to each target (the format from its suffix), then closed."""
    figure.tight_layout()
    for path in targets:
        figure.savefig(path)
    _pyplot().close(figure)
    return targets
