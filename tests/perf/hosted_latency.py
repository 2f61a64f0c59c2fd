"""Benchmark: wall time of one one-shot edit with a hosted model's name, `coder -m` against
aider 0.86.2, each provider's base URL pointed at a local fake.

`--model gpt-4o` talks to tests/coder/fake_openai.py (OPENAI_BASE_URL, OPENAI_API_BASE and
aider's --openai-api-base), `--model sonnet` to tests/coder/fake_anthropic.py
(ANTHROPIC_BASE_URL, ANTHROPIC_API_BASE); both fakes check every request against the
provider's rules. coder takes its direct route (no litellm), aider goes through litellm. The
edit, the repository and the flags are those of oneshot_latency.py (no repository map, no lint,
no analytics); the tools take turns, run by run, after one untimed run each, and a run that
fails (exit status, no edit, no commit, a rejected request) is printed and not timed. Each
tool's last output line of its last run is printed: the tokens and cost it reports.
Target (issue 25): coder's median at most 0.3 of aider's for each model. Run:

    python tests/perf/hosted_latency.py [--runs 5] [--model gpt-4o|sonnet|both]
        [--aider /work/aider-venv/bin/aider] [--coder PATH]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.coder.fake_anthropic import FakeAnthropic  # noqa: E402
from tests.coder.fake_openai import FakeOpenAI, Text  # noqa: E402
from tests.perf.oneshot_latency import (  # noqa: E402
    AFTER,
    COMMIT,
    REPLIES,
    REQUEST,
    interleaved,
    program_options,
    programs_of,
    repository,
)

MODELS = {
    "gpt-4o": (FakeOpenAI, ("OPENAI_BASE_URL", "OPENAI_API_BASE"), "OPENAI_API_KEY"),
    "sonnet": (FakeAnthropic, ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_BASE"), "ANTHROPIC_API_KEY"),
}
"""Each model: its fake, the variables pointing it there, its key's variable."""
AIDER_FLAGS = [
    *("--yes-always", "--edit-format", "diff", "--map-tokens", "0", "--no-auto-lint"),
    *("--no-analytics", "--no-check-update", "--no-show-model-warnings"),
    *("--no-show-release-notes", "--no-gitignore", "--no-pretty", "--no-fancy-input"),
    "--no-detect-urls",
]


def responder(tool: str):
    """The fake's answers for tool: its edit, or a commit message (asked in the system text)."""

    def respond(body: dict):
        system = body.get("system") or body["messages"][0].get("content") or ""
        if isinstance(system, list):
            system = " ".join(block.get("text", "") for block in system)
        return Text(COMMIT if "commit message" in system.lower() else REPLIES[tool], chunk_size=12)

    return respond


def one_run(tool: str, program: str, model: str) -> tuple[float | None, str, str]:
    """The wall time of one edit by tool, or None and why it failed; and its last line."""
    fake, bases, key = MODELS[model]
    with tempfile.TemporaryDirectory() as folder, fake(responder(tool)) as server:
        home, repo = Path(folder) / "home", Path(folder) / "repo"
        home.mkdir()
        repository(repo)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CODER_", "AIDER_"))}
        env |= {b: server.base_url for b in bases} | {key: "sk-bench", "HOME": str(home)}
        env |= {"NO_COLOR": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        if tool == "coder":
            argv = [program, "--model", model, "--map-tokens", "0", "--yes", "--no-gitignore"]
            argv += ["-m", REQUEST, "hello.py"]
        else:
            argv = [program, "--model", model, *AIDER_FLAGS, "--message", REQUEST, "hello.py"]
            if model == "gpt-4o":
                argv += ["--openai-api-base", server.base_url]
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
        lines = [line for line in done.stdout.splitlines() if "token" in line.lower()]
        last = lines[-1].strip() if lines else "(no line about tokens)"
        if problems:
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            return None, "; ".join(problems) + " | " + " / ".join(tail), last
        return took, "", last


def bench(model: str, programs: dict[str, str], runs: int) -> None:
    print(f"Model {model}: its base URL at a local fake, {runs} runs each")
    interleaved(programs, runs, lambda tool, program: one_run(tool, program, model))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    program_options(parser)
    parser.add_argument("--model", choices=[*MODELS, "both"], default="both")
    args = parser.parse_args()
    programs = programs_of(args)
    for model in MODELS if args.model == "both" else [args.model]:
        bench(model, programs, args.runs)


if __name__ == "__main__":
    main()
