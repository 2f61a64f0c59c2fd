"""`benchmark --ray` against a real local Ray runtime: the same results as a local run, one
rate limit shared by every worker, and a clear error without the extra."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from benchmark import cli
from benchmark.limiter import RateLimiter

PRACTICE = Path(__file__).resolve().parents[3] / "shared" / "exercism-python" / "practice"
needs_exercises = pytest.mark.skipif(not PRACTICE.is_dir(), reason=f"{PRACTICE} is not there")
SMALL = Path(__file__).resolve().parents[1] / "exercism" / "practice"
"""Two small exercises that ship with the tests, for what needs exercises but not those."""


@pytest.fixture
def ray():
    """Ray, or a clean skip when the [ray] extra is not installed."""
    return pytest.importorskip("ray")


def bench(runs: Path, *args: str) -> Path:
    common = ["--exercises-dir", str(PRACTICE), "--runs-dir", str(runs), "--quiet"]
    assert cli.main([*common, *args]) == 0
    (run,) = runs.iterdir()
    return run


def results(run: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in sorted((run / "results").glob("*.json"))}


@needs_exercises
def test_ray_gives_the_results_of_a_local_run(tmp_path: Path, ray) -> None:
    argv = ["--model", "oracle-retry", "--num-tests", "4", "--edit-format", "whole"]
    here = bench(tmp_path / "local", *argv, "--threads", "2")
    # No address: the benchmark starts a local Ray runtime of its own, and stops it.
    there = bench(tmp_path / "ray", *argv, "--ray")
    assert not ray.is_initialized()
    assert here.name == there.name
    local, remote = (json.loads((r / "summary.json").read_text()) for r in (here, there))
    for key in ("selected", "completed", "errors", "pass_rate_1", "pass_rate_2"):
        assert local[key] == remote[key]
    assert remote["pass_rate_2"] == 100.0 and remote["ray"] == "local"
    mine, theirs = results(here), results(there)
    assert mine.keys() == theirs.keys() and len(mine) == 4
    for name, result in mine.items():
        other = theirs[name]
        assert result.keys() == other.keys()
        assert result["tests_outcomes"] == other["tests_outcomes"] == [False, True]
        # The same requests, hash for hash: nothing of the worker's folders reaches the model.
        assert [r["request"] for r in result["requests"]] == [
            r["request"] for r in other["requests"]
        ]


def test_one_rate_limit_is_shared_by_every_ray_worker(ray) -> None:
    from benchmark.scaleout import _RemoteLimiter

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        actor = ray.remote(num_cpus=0)(RateLimiter).remote(60)  # one call a second

        @ray.remote(num_cpus=1)
        def turns(limiter: _RemoteLimiter) -> list[float]:
            return [time.time() + limiter.reserve() for _ in range(2)]

        starts = sorted(sum(ray.get([turns.remote(_RemoteLimiter(actor)) for _ in range(3)]), []))
    finally:
        ray.shutdown()
    gaps = [b - a for a, b in zip(starts, starts[1:], strict=False)]
    # Each start is the worker's clock after the actor answered plus the wait it was given: a
    # loaded machine delays some answers by a fraction of a second, never by a whole slot.
    assert len(starts) == 6 and min(gaps) > 0.7, gaps


def test_the_limiter_spaces_calls_evenly() -> None:
    limiter = RateLimiter(6000)  # 10 ms apart
    waits = [limiter.reserve() for _ in range(5)]
    for n, wait in enumerate(waits):
        assert n * 0.01 - 0.005 <= wait <= n * 0.01
    with pytest.raises(ValueError, match="above 0"):
        RateLimiter(0)


def test_ray_without_the_extra_is_a_clear_error(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if it were not installed
    argv = ["--exercises-dir", str(SMALL), "--runs-dir", str(tmp_path), "--quiet"]
    assert cli.main([*argv, "--num-tests", "1", "--ray"]) == 2
    assert "pip install 'coder[ray]'" in capsys.readouterr().err


def test_rpm_must_be_positive(tmp_path: Path, capsys) -> None:
    argv = ["--exercises-dir", str(SMALL), "--runs-dir", str(tmp_path), "--quiet"]
    assert cli.main([*argv, "--rpm", "0"]) == 2
    assert "--rpm takes a number above 0" in capsys.readouterr().err


def test_an_unreachable_cluster_is_a_clear_error_at_once(tmp_path: Path, capsys, ray) -> None:
    import socket

    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    argv = ["--exercises-dir", str(SMALL), "--runs-dir", str(tmp_path), "--quiet"]
    began = time.monotonic()
    assert cli.main([*argv, "--num-tests", "1", "--ray", f"ray://127.0.0.1:{port}"]) == 2
    assert "no Ray cluster answers there" in capsys.readouterr().err
    assert time.monotonic() - began < 30 and not ray.is_initialized()
