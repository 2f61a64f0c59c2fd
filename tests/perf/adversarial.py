"""Benchmark: parsing and applying adversarial replies of about 1 MB, in every edit format.

Each shape is built to make a parser or matcher do super-linear work (nested or unclosed
reasoning tags, one huge word, very long lines, many fences, many blocks, many failing hunks,
near misses that invite fuzzy matching, deep JSON), applied to chat files of up to 20,000
lines. It prints, per shape and format, the reply's size, the seconds to parse and to apply
(median of --repeat runs), how the reply ended (edits applied, failed, or the error), and the
size of the message the model would get back. Run:

    python tests/perf/adversarial.py [--repeat 3] [--only SHAPE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from editformats import Reply, ReplyError, feedback, get_format

MB = 1_000_000
BIG_FILE = {"big.py": "".join(f"def f{n}(x):\n    return x + {n}\n" for n in range(10_000))}
SMALL_FILE = {"a.py": "x = 1\ny = 2\n"}
LONG_LINE_FILE = {"long.py": "".join(f"v{n} = '{'x' * 2000}{n}'\n" for n in range(500))}


def _block(path: str, original: str, updated: str) -> str:
    return f"{path}\n```python\n<<<<<<< SEARCH\n{original}=======\n{updated}>>>>>>> REPLACE\n```\n"


def _hunk(original: str, updated: str) -> str:
    minus = "".join(f"-{line}\n" for line in original.splitlines())
    plus = "".join(f"+{line}\n" for line in updated.splitlines())
    return f"@@ ... @@\n{minus}{plus}"


def _call(function: str, arguments: str) -> str:
    return json.dumps({"tool_calls": [{"function": {"name": function, "arguments": arguments}}]})


def shapes() -> list[tuple[str, str, str, dict[str, str]]]:
    """(shape, format, reply, chat files) for every adversarial case."""
    fine = _block("a.py", "x = 1\n", "x = 3\n")
    cases = []
    tags = "<think>" * 40_000 + "a\n" * 10_000
    cases += [("40,000 unclosed <think> tags", f, tags + fine, SMALL_FILE) for f in ("diff",)]
    nested = "<think><thinking>" * 20_000 + "draft" + "</think>" * 20_000 + "\n"
    cases.append(("40,000 nested reasoning tags", "diff", nested + fine, SMALL_FILE))
    word = "a" * MB
    for fmt in ("whole", "diff", "udiff"):
        cases.append(("one 1 MB word in prose", fmt, f"{word}\n\n{fine}", SMALL_FILE))
    cases.append(
        ("1 MB word above a fence", "whole", f"{word}\n```python\nx = 2\n```\n", SMALL_FILE)
    )
    colons = ":" * MB + "x"
    cases.append(("1 MB of ':' as a file name", "diff", f"{colons}\n{fine}", SMALL_FILE))
    cases.append(
        ("1 MB of dots and slashes", "whole", "./" * (MB // 2) + "\n```\nx\n```\n", SMALL_FILE)
    )
    words = "a " * (MB // 2) + "a.py"
    cases.append(("1 MB of words above a fence", "whole", f"{words}\n```\nx\n```\n", SMALL_FILE))
    remark = "a.py" + " (x)" * (MB // 4)
    cases.append(("a name and 1 MB of remarks", "diff", f"{remark}\n{fine}", SMALL_FILE))
    shown = "> Thinking ...\n" + "► " * (MB // 2) + "\n"
    cases.append(("aider's reasoning line, 1 MB line", "whole", f"{shown}{fine}", SMALL_FILE))
    part = "".join(f"def f{n}(x):\n    return x + {n}\n" for n in range(30))
    sentences = "".join(f"Part {n} of `big.py`.\n\n```python\n{part}```\n\n" for n in range(990))
    cases.append(("990 blocks after sentences naming a file", "whole", sentences, BIG_FILE))
    fences = "```\n" * (MB // 4)
    for fmt in ("whole", "diff", "udiff", "whole-func"):
        cases.append(("250,000 bare fences", fmt, fences, SMALL_FILE))
    tildes = "   ~~~\n" + "prose line\n" * (MB // 11)
    cases.append(("indented ~~~ then 1 MB of prose", "whole", tildes, SMALL_FILE))
    long_search = "x" * (MB // 2) + "\n"
    cases.append(("a 500 KB line to find", "diff", _block("big.py", long_search, "y\n"), BIG_FILE))
    many = "".join(_block("a.py", f"x = {n}\n", f"x = {n + 1}\n") for n in range(20_000))
    cases.append(("20,000 blocks (over the cap)", "diff", many, SMALL_FILE))
    applying = "".join(
        _block("big.py", f"    return x + {n}\n", f"    return x - {n}\n")
        for n in range(0, 9_000, 10)
    )
    cases.append(("900 blocks on a 20,000-line file", "diff", applying, BIG_FILE))
    failing = "".join(
        _block("big.py", f"def g{n}(x):\n    return x * {n}\n", "pass\n") for n in range(900)
    )
    cases.append(("900 failing blocks on 20,000 lines", "diff", failing, BIG_FILE))
    near = "".join(
        _block("big.py", f"def f{n}(x):\n    return x + {n} + 0\n", f"def f{n}(x):\n    return 0\n")
        for n in range(0, 9_000, 10)
    )
    cases.append(("900 near misses (fuzzy) on 20,000 lines", "diff", near, BIG_FILE))
    long_near = "".join(
        _block("long.py", f"v{n} = '{'x' * 1999}y{n}'\n", f"v{n} = 0\n") for n in range(0, 500, 2)
    )
    cases.append(("250 near misses on 2,000-char lines", "diff", long_near, LONG_LINE_FILE))
    hunks = "```diff\n--- big.py\n+++ big.py\n"
    hunks += "".join(_hunk(f"def h{n}(x):\n    return {n}\n", "pass\n") for n in range(20_000))
    cases.append(("20,000 failing hunks", "udiff", hunks + "```\n", BIG_FILE))
    fewer = "```diff\n--- big.py\n+++ big.py\n"
    fewer += "".join(
        _hunk(f" def f{n}(x):\n    return x + {n} + 1\n", " def f{n}(x):\n    return 1\n")
        for n in range(0, 9_000, 10)
    )
    cases.append(("900 miscopied hunks (split, fuzzy)", "udiff", fewer + "```\n", BIG_FILE))
    deep = _call("replace_lines", "[" * 200_000 + "]" * 200_000)
    cases.append(("JSON nested 200,000 deep", "diff-func", deep, SMALL_FILE))
    digits = _call("replace_lines", '{"explanation": ' + "9" * MB + "}")
    cases.append(("a 1,000,000-digit number", "diff-func", digits, SMALL_FILE))
    calls = json.dumps(
        [
            {
                "function": {
                    "name": "write_file",
                    "arguments": json.dumps(
                        {"explanation": "x", "files": [{"path": f"f{n}.py", "content": "x\n"}]}
                    ),
                }
            }
            for n in range(8_000)
        ]
    )
    cases.append(("8,000 tool calls", "whole-func", calls, SMALL_FILE))
    return cases + patch_shapes()


def _patch(body: str) -> str:
    return f"*** Begin Patch\n{body}*** End Patch\n"


def patch_shapes() -> list[tuple[str, str, str, dict[str, str]]]:
    """The adversarial shapes of the V4A patch format."""
    fine = _patch("*** Update File: a.py\n@@\n-x = 1\n+x = 3\n")
    word = "a" * MB
    blank = {"blank.py": "\n" * 20_000}
    sections = "".join(
        f"*** Update File: big.py\n@@\n-    return x + {n}\n+    return x - {n}\n"
        for n in range(0, 10_000, 10)
    )
    anchors = "".join(f"@@ def f{n}(x):\n" for n in range(0, 10_000, 1)) + "-    return x + 9999\n"
    failing = "".join(f"*** Update File: f{n}.py\n@@\n-nowhere {n}\n+x\n" for n in range(1_000))
    many_files = {f"f{n}.py": "".join(f"line {k}\n" for k in range(200)) for n in range(1_000)}
    return [
        ("one 1 MB word in prose", "patch", f"{word}\n{fine}", SMALL_FILE),
        (
            "a 1 MB line in a chunk",
            "patch",
            _patch(f"*** Update File: a.py\n@@\n-{word}\n"),
            SMALL_FILE,
        ),
        ("250,000 bare fences", "patch", "```\n" * (MB // 4), SMALL_FILE),
        ("125,000 unclosed envelopes", "patch", "*** Begin Patch\n" * 125_000, SMALL_FILE),
        (
            "60,000 envelopes (over the cap)",
            "patch",
            _patch("*** Delete File: a.py\n") * 60_000,
            SMALL_FILE,
        ),
        ("1,000 sections on a 20,000-line file", "patch", _patch(sections), BIG_FILE),
        (
            "10,000 stacked anchors",
            "patch",
            _patch(f"*** Update File: big.py\n{anchors}"),
            BIG_FILE,
        ),
        (
            "5,000 blank lines sought among 20,000",
            "patch",
            _patch("*** Update File: blank.py\n@@\n" + " \n" * 5_000 + "+x\n"),
            blank,
        ),
        ("1,000 failing chunks in 1,000 files", "patch", _patch(failing), many_files),
        (
            "100,000 empty lines in one chunk",
            "patch",
            _patch("*** Update File: a.py\n@@\n x = 1\n" + "\n" * 100_000 + "+y\n"),
            SMALL_FILE,
        ),
    ]


def measure(fmt_name: str, reply: str, files: dict[str, str]) -> tuple[float, float, str, int]:
    """Seconds to parse and to apply, how it ended, and the failure message's length."""
    fmt = get_format(fmt_name)
    began = time.perf_counter()
    try:
        edits = fmt.parse(Reply(reply))
    except ReplyError as exc:
        return time.perf_counter() - began, 0.0, f"refused: {str(exc)[:50]}", len(str(exc))
    parsed = time.perf_counter()
    try:
        result = fmt.apply(edits, files)
    except ReplyError as exc:
        return (
            parsed - began,
            time.perf_counter() - parsed,
            f"refused: {str(exc)[:50]}",
            len(str(exc)),
        )
    applied = time.perf_counter()
    message = feedback.failure_message(result, kept=False) if result.failures else ""
    ended = f"{len(result.applied)} applied, {len(result.failures)} failed"
    return parsed - began, applied - parsed, ended, len(message)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default="", help="run only shapes whose name has this text")
    args = parser.parse_args()
    print(f"{'shape':<42}{'format':<11}{'size':>9}{'parse s':>9}{'apply s':>9}{'msg':>8}  ended")
    worst = 0.0
    for shape, fmt, reply, files in shapes():
        if args.only not in shape:
            continue
        runs = [measure(fmt, reply, files) for _ in range(args.repeat)]
        parse_s = statistics.median(r[0] for r in runs)
        apply_s = statistics.median(r[1] for r in runs)
        worst = max(worst, parse_s + apply_s)
        size = f"{len(reply) / MB:.2f} MB"
        print(
            f"{shape:<42}{fmt:<11}{size:>9}{parse_s:>9.3f}{apply_s:>9.3f}{runs[0][3]:>8}"
            f"  {runs[0][2]}"
        )
    print(f"\nslowest parse + apply: {worst:.3f} s")


if __name__ == "__main__":
    main()
