"""Benchmark: time and peak memory to parse and apply a 200-block diff reply to a 20,000-line file.

Target (issue 2): under 1 s on a 2-core machine. Run: python tests/perf/apply_speed.py
"""

from __future__ import annotations

import random
import statistics
import time
import tracemalloc

from editformats import Reply, get_format

LINES, BLOCKS = 20_000, 200


def make_file(rng: random.Random) -> list[str]:
    """A Python-like file of LINES lines in which every line is unique."""
    lines = []
    for n in range(LINES // 5):
        lines += [
            f"def function_{n}(value):",
            f"    total = value * {rng.randint(2, 999)} + {n}",
            f"    print('function {n}', total)",
            f"    return total  # {n}",
            "",
        ]
    return lines


def make_reply(lines: list[str], rng: random.Random) -> str:
    """BLOCKS search/replace blocks, each changing one function, in file order."""
    starts = sorted(rng.sample(range(LINES // 5), BLOCKS))
    parts = ["Here are the changes.\n"]
    for n in starts:
        original = "\n".join(lines[n * 5 : n * 5 + 4])
        updated = original.replace("return total", "return total + 1")
        parts.append(
            f"big.py\n```python\n<<<<<<< SEARCH\n{original}\n=======\n{updated}\n"
            ">>>>>>> REPLACE\n```\n"
        )
    return "\n".join(parts)


def run_once(text: str, reply: str) -> tuple[float, int]:
    fmt = get_format("diff")
    tracemalloc.start()
    began = time.perf_counter()
    result = fmt.apply(fmt.parse(Reply(reply)), {"big.py": text})
    elapsed = time.perf_counter() - began
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert result.ok and len(result.applied) == BLOCKS, result.failures[:1]
    return elapsed, peak


def main() -> None:
    rng = random.Random(7)
    lines = make_file(rng)
    text = "\n".join(lines) + "\n"
    reply = make_reply(lines, rng)
    times = []
    for _ in range(5):
        began = time.perf_counter()
        fmt = get_format("diff")
        fmt.apply(fmt.parse(Reply(reply)), {"big.py": text})
        times.append(time.perf_counter() - began)
    _, peak = run_once(text, reply)
    print(f"apply {BLOCKS} blocks to a {LINES}-line file ({len(text) / 1e6:.2f} MB):")
    print(f"  time: median {statistics.median(times):.3f} s, best {min(times):.3f} s (5 runs)")
    print(f"  peak memory (tracemalloc, separate run): {peak / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
