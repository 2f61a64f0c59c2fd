"""Benchmark: the repository map of a 5,000-file repository, cold and warm.

Targets (issue 9): under 10 s cold (no tags cache) and under 1 s warm (the cache on disk) on a
2-core machine. The script writes 5,000 Python modules in 50 packages into a temporary git
repository (classes, methods, functions and constants, each module importing and calling
names of a few others, 30 to 400 lines), then times the map for a request with one module
in the chat, through the same code as the chat (coder.repomap.get_repo_map):

- cold: no cache file, in this process (tree-sitter, the worker processes, ranking);
- warm, same process: a new map object, the cache on disk, the modules imported already;
- warm, same process, same map: another request (tags in memory: ranking and fitting only);
- unchanged: the same request again (the map kept in memory);
- warm, new process: a fresh Python that imports coder and builds the map, timed whole
  (interpreter start, imports, cache, ranking) and the build alone;
- after one file changed: a new process again (one file parsed).

Then the map's tokens against the budget, and, in new processes, the time of the map's PageRank
against networkx's pagerank on the same graph (imports included; networkx must be installed).
Run:

    python tests/perf/repomap_speed.py [--files 5000] [--budget 1024]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PACKAGES = 50
_WORDS = (
    "account order invoice user session token cache report parser record queue worker "
    "payment schedule message channel price stock item cart address profile audit event "
    "metric policy rule batch export import ledger refund coupon shipment vendor region"
)
WORDS = _WORDS.split()


def module_text(rng: random.Random, package: int, index: int, names: dict) -> str:
    """A module that imports a few others' names and defines its own."""
    word = WORDS[(package * 7 + index) % len(WORDS)]
    own = names[package, index]
    lines = [f'"""The {word} helpers of package {package}, module {index}."""', ""]
    lines += ["from __future__ import annotations", "", "import logging", ""]
    others = rng.sample(sorted(names), 4)
    used = []
    for other in others:
        funcs = names[other]["functions"]
        picked = rng.sample(funcs, min(2, len(funcs)))
        cls = names[other]["classes"][0]
        lines.append(f"from pkg{other[0]}.mod{other[1]} import {', '.join([cls, *picked])}")
        used += [cls, *picked]
    lines += ["", f"LIMIT_{word.upper()}_{index} = {rng.randint(1, 999)}", ""]
    lines += ["log = logging.getLogger(__name__)", ""]
    for cls in own["classes"]:
        base = rng.choice(used[::3])
        lines += [f"class {cls}({base}):", f'    """A {word} {cls.lower()}."""', ""]
        for method in own["methods"][cls]:
            lines += [
                f"    def {method}(self, value: int, *, strict: bool = False) -> int:",
                f'        """{method.replace("_", " ").capitalize()}."""',
            ]
            for _ in range(rng.randint(2, 9)):
                lines.append(f"        value = {rng.choice(used)}(value) + {rng.randint(1, 9)}")
            lines += ["        if strict:", "            log.info('strict %s', value)"]
            lines += ["        return value", ""]
    for func in own["functions"]:
        lines += [f"def {func}(data: dict, limit: int = 10) -> list:", f'    """{func}."""']
        lines.append("    found = []")
        for _ in range(rng.randint(2, 12)):
            lines += [
                "    for key, value in data.items():",
                f"        found.append({rng.choice(used)}(value))",
            ]
        lines += ["    return found[:limit]", ""]
    return "\n".join(lines) + "\n"


def make_repo(root: Path, files: int, seed: int = 1) -> None:
    """files modules in PACKAGES packages under root, committed."""
    rng = random.Random(seed)
    per = files // PACKAGES
    names = {}
    for package in range(PACKAGES):
        for index in range(per):
            word = WORDS[(package * 7 + index) % len(WORDS)].capitalize()
            classes = [f"{word}{kind}{package}_{index}" for kind in ("Service", "Store")]
            classes = classes[: rng.randint(1, 2)]
            methods = {
                c: [f"{verb}_{word.lower()}" for verb in rng.sample(VERBS, rng.randint(2, 6))]
                for c in classes
            }
            functions = [
                f"{verb}_{word.lower()}_{package}_{index}"
                for verb in rng.sample(VERBS, rng.randint(2, 6))
            ]
            names[package, index] = {
                "classes": classes,
                "methods": methods,
                "functions": functions,
            }
    for (package, index), _ in names.items():
        folder = root / f"pkg{package}"
        folder.mkdir(exist_ok=True)
        (folder / "__init__.py").write_text("")
        (folder / f"mod{index}.py").write_text(module_text(rng, package, index, names))
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "."], cwd=root, check=True)
    env = ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run(["git", *env, "commit", "-qm", "start"], cwd=root, check=True)


_VERBS = (
    "load save find update delete validate render parse merge split apply cancel refund "
    "notify schedule archive restore compute summarize export"
)
VERBS = _VERBS.split()

CHILD = """
import json, sys, time
began = time.perf_counter()
from pathlib import Path
from coder.seams.repo import Repo
from coder.repomap import get_repo_map
from coder.edits.workspace import Workspace
imported = time.perf_counter()
root = Path(sys.argv[1])
repo_map = get_repo_map(Workspace(root), Repo.find(root), int(sys.argv[2]))
text = repo_map.text([sys.argv[3]], sys.argv[4])
done = time.perf_counter()
print(json.dumps({"imports": imported - began, "build": done - imported,
                  "parsed": repo_map.parsed, "tokens": repo_map.tokenizer.count(text)}))
"""


PAGERANK = """
import sys, time
from collections import defaultdict
from pathlib import Path
from coder.repomap.cache import CACHE_NAME, TagsCache
from coder.repomap.ranking import Focus, _Graph, words_of
root, kind, chat, request = Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
tags = {path: t for path, (_, t) in TagsCache(root / CACHE_NAME).load().items()}
graph = _Graph(tags, Focus(frozenset({chat}), words_of(request)))
restart = graph.restarts(graph.named())
edges = defaultdict(float)
for s, t, w in zip(graph.src, graph.dst, graph.weight):
    edges[s, t] += w
began = time.perf_counter()
if kind == "networkx":
    import networkx as nx
    g = nx.DiGraph()
    g.add_nodes_from(range(len(graph.paths)))
    g.add_weighted_edges_from((s, t, w) for (s, t), w in edges.items())
    personal = {i: r for i, r in enumerate(restart) if r}
    nx.pagerank(g, personalization=personal, dangling=personal)
else:
    from coder.repomap.pagerank import pagerank
    pagerank(len(graph.paths), graph.src, graph.dst, graph.weight, restart)
print(time.perf_counter() - began, len(edges))
"""


def pagerank_time(root: Path, kind: str, chat: str, request: str) -> tuple[float, int]:
    """Seconds that PageRank (numpy's or networkx's) takes on the map's graph in a new process,
    importing its libraries included; and the graph's edges."""
    done = subprocess.run(
        [sys.executable, "-c", PAGERANK, str(root), kind, chat, request],
        check=True,
        capture_output=True,
        text=True,
    )
    seconds, edges = done.stdout.split()
    return float(seconds), int(edges)


def child(root: Path, budget: int, chat: str, request: str) -> tuple[float, dict]:
    """Build the map in a new Python process: its wall time, and what it measured itself."""
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), str(budget), chat, request],
        check=True,
        capture_output=True,
        text=True,
    )
    return time.perf_counter() - began, json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--budget", type=int, default=1024)
    args = parser.parse_args()
    from coder.edits.workspace import Workspace
    from coder.repomap import get_repo_map
    from coder.seams.repo import Repo

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        began = time.perf_counter()
        make_repo(root, args.files)
        sources = list(root.glob("pkg*/mod*.py"))
        size = sum(p.stat().st_size for p in sources)
        lines = sum(p.read_text().count("\n") for p in sources)
        print(
            f"repository: {len(sources):,} modules, {lines:,} lines, {size / 1e6:.1f} MB"
            f" (made in {time.perf_counter() - began:.1f} s)"
        )
        chat, request = "pkg3/mod7.py", "make load_order_3_7 validate its limit"
        ws, repo = Workspace(root), Repo.find(root)

        def timed(repo_map, request: str) -> float:
            began = time.perf_counter()
            repo_map.text([chat], request)
            return time.perf_counter() - began

        cold_map = get_repo_map(ws, repo, args.budget)
        cold = timed(cold_map, request)
        print(f"cold, no cache:                 {cold:6.2f} s ({cold_map.parsed:,} files parsed)")
        warm_map = get_repo_map(ws, repo, args.budget)
        warm = timed(warm_map, request)
        print(f"warm, same process, new map:    {warm:6.2f} s ({warm_map.parsed} files parsed)")
        other = timed(warm_map, "and the refund schedule too")
        print(f"warm, same map, other request:  {other:6.2f} s (ranking and fitting only)")
        same = timed(warm_map, "and the refund schedule too")
        print(f"unchanged, same request again:  {same:6.2f} s (listing and stat only)")
        wall, measured = child(root, args.budget, chat, request)
        print(
            f"warm, new process:              {wall:6.2f} s in all: imports"
            f" {measured['imports']:.2f} s, map {measured['build']:.2f} s"
            f" ({measured['parsed']} files parsed)"
        )
        path = root / "pkg9/mod9.py"
        path.write_text(path.read_text() + "\ndef added_later():\n    return 1\n")
        wall, measured = child(root, args.budget, chat, request)
        print(
            f"one file changed, new process:  {wall:6.2f} s in all: map"
            f" {measured['build']:.2f} s ({measured['parsed']} file parsed)"
        )
        text = warm_map.text([chat], request)
        tokens = warm_map.tokenizer.count(text)
        exact = "cl100k_base" if warm_map.tokenizer.exact else "estimated"
        lines = text.splitlines()
        files = sum(not line.startswith(" ") for line in lines)
        print(
            f"map: {tokens:,} tokens ({exact}) of a budget of {args.budget:,};"
            f" {files} files, {len(lines) - files} definition lines"
        )
        ours = [pagerank_time(root, "numpy", chat, request)[0] for _ in range(3)]
        theirs = [pagerank_time(root, "networkx", chat, request) for _ in range(3)]
        edges = theirs[0][1]
        print(
            f"PageRank of {args.files + PACKAGES:,} files, {edges:,} edges, in a new process"
            f" (numpy imported for both): ours {min(ours):.3f} s,"
            f" networkx {min(t for t, _ in theirs):.3f} s (its imports included)"
        )


if __name__ == "__main__":
    main()
