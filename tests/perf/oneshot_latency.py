"""Benchmark: wall time of one one-shot edit, `coder -m` against aider 0.86.2 side by side.

Both tools make the same edit of a small Python file in a fresh git repository (one per run,
with a fresh HOME), against the same kind of fake OpenAI-compatible server on 127.0.0.1
(tests/coder/fake_openai.py, which also checks every request against OpenAI's rules): the
edit request gets a streamed reply in the tool's own `diff` format, the commit-message request
a one-line message. Both apply the edit and commit it, with no repository map (`--map-tokens
0` for both); aider runs with no lint, no analytics, no version check, no model warnings, and
litellm's local price map, as coder uses (coder keeps its syntax check, so it does a little
more). The tools take turns, run
by run, after one untimed run each to warm the file cache; a run that exits non-zero, leaves
the file without the edit or makes no commit is a failure, printed, and not timed.

Routes: `direct` (`openai/test-model` with --api-base: coder talks to the server without
litellm), `litellm` (`openai/gpt-4o` with --api-base --via-litellm: coder goes through litellm,
imported in the background while the repository is read). aider goes through litellm in both.
Target (issue 17): coder's median at most 0.6 of aider's on the direct route. Run:

    python tests/perf/oneshot_latency.py [--runs 5] [--route direct|litellm|both]
        [--aider /work/aider-venv/bin/aider] [--coder PATH]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.coder.fake_openai import FakeOpenAI, Text  # noqa: E402

BEFORE = '''"""Greetings."""


def greet(name):
    """Say hello to name."""
    return "hello " + name


def shout(name):
    return greet(name).upper() + "!"


if __name__ == "__main__":
    print(shout("world"))
'''
AFTER = BEFORE.replace('return "hello " + name', 'return "goodbye " + name')
REQUEST = "Make greet say goodbye instead of hello."
COMMIT = "Say goodbye instead of hello"
OLD, NEW = '    return "hello " + name\n', '    return "goodbye " + name\n'
REPLIES = {
    # coder's `diff` format: ORIGINAL/UPDATED, the path first inside the fence.
    "coder": "I will change the greeting.\n\n```python\nhello.py\n<<<<<<< ORIGINAL\n"
    f"{OLD}=======\n{NEW}>>>>>>> UPDATED\n```\n",
    # aider's `diff` format: SEARCH/REPLACE, the path above the fence.
    "aider": "I will change the greeting.\n\nhello.py\n```python\n<<<<<<< SEARCH\n"
    f"{OLD}=======\n{NEW}>>>>>>> REPLACE\n```\n",
}
ROUTES = {
    "direct": ("openai/test-model", []),
    "litellm": ("openai/gpt-4o", ["--via-litellm"]),
}
"""The model and coder's extra flags for each route."""


def responder(tool: str):
    """The fake server's answers for tool: its edit, or a commit message."""

    def respond(body: dict):
        system = str(body["messages"][0].get("content") or "").lower()
        return Text(COMMIT if "commit message" in system else REPLIES[tool], chunk_size=12)

    return respond


def repository(root: Path) -> None:
    root.mkdir()
    for args in (["init", "-q"], ["config", "user.name", "Bench"]):
        subprocess.run(["git", *args], cwd=root, check=True)
    subprocess.run(["git", "config", "user.email", "bench@example.invalid"], cwd=root, check=True)
    (root / "hello.py").write_text(BEFORE)
    subprocess.run(["git", "add", "hello.py"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "start"], cwd=root, check=True)


def command(tool: str, program: str, route: str, base: str) -> list[str]:
    model, flags = ROUTES[route]
    if tool == "coder":
        return [
            *(program, "--model", model, "--api-base", base, *flags),
            *("--map-tokens", "0", "--yes", "--no-gitignore"),
        ]
    return [
        program,
        "--model",
        model,
        "--openai-api-base",
        base,
        "--yes-always",
        "--edit-format",
        "diff",
        "--map-tokens",
        "0",
        "--no-auto-lint",
        "--no-analytics",
        "--no-check-update",
        "--no-show-model-warnings",
        "--no-show-release-notes",
        "--no-gitignore",
        "--no-pretty",
        "--no-fancy-input",
        "--no-detect-urls",
    ]


def one_run(tool: str, program: str, route: str) -> tuple[float | None, str]:
    """The wall time of one edit by tool, or None and why it failed."""
    with tempfile.TemporaryDirectory() as folder, FakeOpenAI(responder(tool)) as server:
        home, repo = Path(folder) / "home", Path(folder) / "repo"
        home.mkdir()
        repository(repo)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CODER_", "AIDER_"))}
        env |= {
            "HOME": str(home),
            "OPENAI_API_KEY": "sk-bench",
            "NO_COLOR": "1",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        }
        argv = command(tool, program, route, server.base_url)
        argv += ["-m" if tool == "coder" else "--message", REQUEST, "hello.py"]
        began = time.perf_counter()
        done = subprocess.run(
            argv, cwd=repo, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL
        )
        took = time.perf_counter() - began
        log = subprocess.run(
            ["git", "log", "--format=%s"], cwd=repo, capture_output=True, text=True
        ).stdout.split("\n")
        problems = []
        if done.returncode != 0:
            problems.append(f"exit status {done.returncode}")
        if (repo / "hello.py").read_text() != AFTER:
            problems.append("hello.py lacks the edit")
        if len([line for line in log if line]) < 2:
            problems.append("no commit")
        if server.rejected:
            problems.append(f"the server rejected a request: {server.rejected[0]}")
        if problems:
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            return None, "; ".join(problems) + " | " + " / ".join(tail)
        return took, ""


def report(label: str, times: list[float], failures: list[str]) -> None:
    if times:
        print(
            f"  {label:<6} median {statistics.median(times):.2f} s, min {min(times):.2f} s,"
            f" max {max(times):.2f} s ({len(times)} ok, {len(failures)} failed)"
        )
    else:
        print(f"  {label:<6} no successful run ({len(failures)} failed)")
    for failure in failures:
        print(f"    failed: {failure}")


def bench(route: str, programs: dict[str, str], runs: int) -> None:
    model, flags = ROUTES[route]
    how = " ".join([model, *flags])
    print(f"Route {route}: {how} against the fake server, {runs} runs each")
    interleaved(programs, runs, lambda tool, program: one_run(tool, program, route))


def interleaved(programs: dict[str, str], runs: int, one: Callable[[str, str], tuple]) -> None:
    """Each program's run (one(tool, program) -> seconds or None, why it failed, and maybe
    what it said last), taking turns run by run after one untimed run each (it warms the
    file cache); printed: each program's figures, what it said last, and the medians' ratio."""
    for tool, program in programs.items():
        one(tool, program)
    times: dict[str, list[float]] = {tool: [] for tool in programs}
    failures: dict[str, list[str]] = {tool: [] for tool in programs}
    said: dict[str, str] = {}
    for _ in range(runs):
        for tool, program in programs.items():
            took, why, *last = one(tool, program)
            said[tool] = last[0] if last else ""
            if took is None:
                failures[tool].append(why)
            else:
                times[tool].append(took)
    for tool in programs:
        report(tool, times[tool], failures[tool])
        if said[tool]:
            print(f"    says: {said[tool]}")
    if times["coder"] and times.get("aider"):
        ratio = statistics.median(times["coder"]) / statistics.median(times["aider"])
        print(f"  ratio coder/aider (medians): {ratio:.2f}")


def program_options(parser: argparse.ArgumentParser) -> None:
    """--runs, --aider and --coder, as both latency benchmarks take them."""
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--aider", default="/work/aider-venv/bin/aider")
    default_coder = shutil.which("coder") or str(Path(sys.executable).with_name("coder"))
    parser.add_argument("--coder", default=default_coder)


def programs_of(args: argparse.Namespace) -> dict[str, str]:
    """The tools to time: coder, and aider when it is there (its version printed)."""
    programs = {"coder": args.coder}
    if Path(args.aider).is_file():
        version = subprocess.run([args.aider, "--version"], capture_output=True, text=True)
        print(f"{version.stdout.strip()} at {args.aider}")
        programs["aider"] = args.aider
    else:
        print(f"aider: {args.aider} is not there; timing coder alone (see --aider)")
    return programs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    program_options(parser)
    parser.add_argument("--route", choices=[*ROUTES, "both"], default="both")
    args = parser.parse_args()
    programs = programs_of(args)
    for route in ROUTES if args.route == "both" else [args.route]:
        bench(route, programs, args.runs)


if __name__ == "__main__":
    main()
