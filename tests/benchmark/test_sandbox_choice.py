"""The benchmark never takes the fallback sandbox by itself, and with it asked for by name, a
solution copies no reference solution that other users may not read: the real benchmark
command, and the real exercise runner with a solution that reads .meta/example.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from benchmark import cli
from tests.harness_faults import python_for

ROOT = Path(__file__).resolve().parents[2]
PRACTICE = ROOT.parent / "shared" / "exercism-python" / "practice"
needs_exercises = pytest.mark.skipif(not PRACTICE.is_dir(), reason=f"{PRACTICE} is not there")


@needs_exercises
def test_auto_refuses_the_fallback_where_bubblewrap_cannot_run(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap on it
    args = ["--exercises-dir", str(PRACTICE), "--runs-dir", str(tmp_path / "runs"), "--quiet"]
    assert cli.main([*args, "--num-tests", "1"]) == 2
    said = capsys.readouterr().err
    assert "bubblewrap is not installed" in said and "Pass --sandbox rlimit" in said, said
    assert not (tmp_path / "runs").exists()


STEAL = """two_fer.py
```python
exec(open({reference!r}).read())
```
"""
"""A solution that is the reference solution, read where the exercise lies."""

PROBE = """
import json, sys
from pathlib import Path
from benchmark import preflight
from benchmark.runner import RunSettings, run_exercise
from coder.seams.model import ScriptedModel
from exercism import TestSetup, load
from sandbox.rlimits import Rlimits
source, work, reply = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
exercise = load(source)
setup = TestSetup(sandbox=Rlimits())
settings = RunSettings(edit_format="whole", tries=1, tests=setup)
result = run_exercise(exercise, lambda _: ScriptedModel([reply] * 5), settings, work)
print(json.dumps([result.tests_outcomes, result.error, preflight.exposed([exercise], setup)]))
"""


@needs_exercises
@pytest.mark.skipif(os.geteuid() != 0, reason="the fallback hides files only as root")
@pytest.mark.parametrize("private", [True, False])
def test_the_fallback_as_root_hides_exercises_no_other_user_may_read(private: bool) -> None:
    python = python_for("rlimit")
    base = Path(tempfile.mkdtemp(prefix="coder-fallback-"))
    try:
        base.chmod(0o700 if private else 0o755)
        source = base / "two-fer"
        shutil.copytree(PRACTICE / "two-fer", source)
        reply = STEAL.format(reference=str(source / ".meta" / "example.py"))
        env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), "HOME": str(base)}
        env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
        done = subprocess.run(
            [python, "-c", PROBE, str(source), str(base / "work"), reply],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        outcomes, error, warnings = json.loads(done.stdout.splitlines()[-1])
        assert error is None, error
        if private:
            assert outcomes == [False] and warnings == []
        else:
            # Readable by every user: the leak is there, and the benchmark says so.
            assert outcomes == [True] and "can read the exercises' reference" in warnings[0]
    finally:
        shutil.rmtree(base, ignore_errors=True)
