"""Correlation between two per-item figures (per-exercise RTC and passing, or per-run means):
Pearson's r and Spearman's rho with n and two-sided p-values, computed by scipy."""

from __future__ import annotations

from collections.abc import Sequence


def correlation(xs: Sequence[float], ys: Sequence[float]) -> dict:
    """Both coefficients with n and p-values, rounded; undefined (None, and a note saying why)
    with fewer than three points or when either side is constant."""
    n = len(xs)
    empty = {"n": n, "pearson": None, "pearson_p": None, "spearman": None, "spearman_p": None}
    if n < 3:
        return empty | {"note": "undefined: fewer than 3 points"}
    if len(set(xs)) < 2 or len(set(ys)) < 2:
        return empty | {"note": "undefined: one side is constant"}
    from scipy import stats

    pearson = stats.pearsonr(xs, ys)
    spearman = stats.spearmanr(xs, ys)
    return {
        "n": n,
        "pearson": round(float(pearson.statistic), 3),
        "pearson_p": round(float(pearson.pvalue), 4),
        "spearman": round(float(spearman.statistic), 3),
        "spearman_p": round(float(spearman.pvalue), 4),
    }


def described(figures: dict) -> str:
    """One line: the coefficients with their p-values and n, or why they are undefined."""
    if figures.get("pearson") is None:
        return f"{figures.get('note', 'undefined')} (n={figures['n']})"
    return (
        f"Pearson r={figures['pearson']:+.3f} (p={figures['pearson_p']:.4f}),"
        f" Spearman rho={figures['spearman']:+.3f} (p={figures['spearman_p']:.4f}),"
        f" n={figures['n']}"
    )
