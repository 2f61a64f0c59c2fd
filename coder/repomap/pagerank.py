"""PageRank by power iteration in numpy, computing what networkx.pagerank computes.

Why not networkx itself: on the 5,000-file benchmark (tests/perf/repomap_speed.py), in a fresh
process, networkx takes about 0.45 s (importing networkx and scipy.sparse 0.2 s, building its
graph and converting it to a matrix 0.15 s, iterating 0.05 s) where this takes 0.08 s, most of
it importing numpy; the warm map has 1 s in all. A test checks that both give the same ranks.
"""

from __future__ import annotations

from collections.abc import Sequence

ALPHA = 0.6
"""The chance that the walk follows an edge rather than restarting. Not the usual 0.85: the
map is about the code around the chat's files, and with 0.85 the walk takes six steps or so
between restarts, so that rank pools in the repository's hubs (on coder's own code, the map of
coder/chat/repl.py led with editformats/errors.py, which it does not use, because a much-used
file's only use is ReplyError); with 0.6 the maps of repl.py, repomap/mapper.py and
editformats/formats/diff.py lead with the files each imports."""
TOLERANCE = 1e-6
"""Iteration stops when the ranks move less than this per node (networkx's default)."""
MOST_ITERATIONS = 100


def pagerank(
    nodes: int,
    sources: Sequence[int],
    targets: Sequence[int],
    weights: Sequence[float],
    restart: Sequence[float] | None = None,
    alpha: float = ALPHA,
):
    """The rank of each of nodes nodes (a numpy array summing to 1) over the weighted edges
    sources[i] -> targets[i] (repeated edges add up), the walk following an edge with chance
    alpha. It restarts, and leaves a node without edges, by the restart weights (uniform when
    None or all zero)."""
    import numpy as np

    if nodes == 0:
        return np.zeros(0)
    src = np.asarray(sources, dtype=np.int64)
    dst = np.asarray(targets, dtype=np.int64)
    weight = np.asarray(weights, dtype=float)
    leaving = np.bincount(src, weights=weight, minlength=nodes)
    dead_end = leaving == 0
    share = weight / leaving[src] if len(src) else weight
    jump = np.zeros(nodes) if restart is None else np.asarray(restart, dtype=float)
    jump = jump / jump.sum() if jump.sum() > 0 else np.full(nodes, 1 / nodes)
    rank = np.full(nodes, 1 / nodes)
    for _ in range(MOST_ITERATIONS):
        before = rank
        followed = np.bincount(dst, weights=before[src] * share, minlength=nodes)
        rank = alpha * (followed + before[dead_end].sum() * jump) + (1 - alpha) * jump
        if np.abs(rank - before).sum() < nodes * TOLERANCE:
            break
    return rank
