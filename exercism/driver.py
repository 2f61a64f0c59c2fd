"""Every language's tests but Python's: a driver run inside the sandbox (by this interpreter, a
script given with -c, importing nothing of the project and little of the standard library: it
starts its commands with posix_spawn) checks that every program of the test commands is there,
runs the language's probe (the toolchain ran at all in the sandbox), says it is ready, then
runs the test commands in turn. What fails before ready is the harness's; compile errors,
failing tests and timeouts after it are the solution's. A pass is exit status 0, the test
runner's own closing line and the harness's last test run (exercism/canary.py)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from exercism import canary
from exercism.language import Verdict
from sandbox import LAUNCHER_FLAGS, READY_VARIABLE, Outcome

if TYPE_CHECKING:
    from exercism.exercise import Exercise
    from exercism.language import Language

DRIVER = f"""\
import json, os, sys
spec = json.loads(sys.argv[1])
ready = os.environ.pop("{READY_VARIABLE}", None)
mine = int(ready) if ready else 2
os.closerange(3, mine)
os.closerange(mine + 1, os.sysconf("SC_OPEN_MAX"))
here = os.getcwd()
env = dict(os.environ)
env.update({{k: v.replace("{{here}}", here) for k, v in spec["env"].items()}})
os.chdir(spec["cwd"])


def which(name):
    if os.sep in name:
        return name if os.access(name, os.X_OK) else None
    for folder in env.get("PATH", "").split(os.pathsep):
        found = os.path.join(folder, name)
        if os.path.isfile(found) and os.access(found, os.X_OK):
            return found
    return None


def words(argv):
    for word in argv:
        if word.startswith("glob:"):
            import glob

            yield from sorted(glob.glob(word[5:], recursive=True)) or [word[5:]]
        else:
            yield word.replace("{{here}}", here)


def run(argv, capture=False):
    actions, said = [], bytearray()
    if capture:
        reader, writer = os.pipe()
        actions = [(os.POSIX_SPAWN_DUP2, writer, 1), (os.POSIX_SPAWN_DUP2, writer, 2)]
    pid = os.posix_spawn(which(argv[0]), argv, env, file_actions=actions)
    if capture:
        os.close(writer)
        while chunk := os.read(reader, 65536):
            said += chunk
        os.close(reader)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), bytes(said)


def not_ready(why):
    print(why, flush=True)
    sys.exit(125)


for argv in [spec["probe"], *spec["steps"]]:
    if argv and which(argv[0]) is None:
        not_ready(f"{{argv[0]}} is not on the tests' PATH in the sandbox: {{env.get('PATH')}}")
if spec["probe"]:
    try:
        code, said = run(list(words(spec["probe"])), capture=True)
    except OSError as exc:
        not_ready(f"{{spec['probe'][0]}} cannot run: {{exc}}")
    if code != 0:
        said = said.decode(errors="replace").strip()
        not_ready(f"{{' '.join(spec['probe'])}} failed ({{code}}): {{said[-3000:]}}")
if ready:
    os.write(mine, b"R")
    os.close(mine)
sys.stdout.flush()
for argv in spec["steps"]:
    try:
        code = run(list(words(argv)))[0]
    except OSError as exc:
        print(f"{{argv[0]}} cannot run: {{exc}}", flush=True)
        sys.exit(126)
    if code != 0:
        sys.exit(128 - code if code < 0 else code)
"""
"""The driver; its argument is the JSON of Steps.spec(). Exit status 125 before ready."""


class Steps:
    """The runner of the languages whose tests are a probe and commands (Language.steps)."""

    def command(self, language: Language, exercise: Exercise, cache: Path) -> list[str]:
        """The driver with the language's probe, commands and environment, run with the
        launcher's flags (so that the launcher runs it in its own process)."""
        return [sys.executable, *LAUNCHER_FLAGS, "-c", DRIVER, self.spec(language, exercise, cache)]

    def spec(self, language: Language, exercise: Exercise, cache: Path) -> str:
        """What the driver runs, as JSON: {cache} filled in here, {here} inside the sandbox."""
        fill = lambda text: text.replace("{cache}", str(cache))  # noqa: E731
        env = {k: fill(v) for k, v in language.env.items()}
        if language.canary is not None:
            env[canary.FILE_VARIABLE] = f"{{here}}/{canary.FILE}"
        return json.dumps(
            {
                "cwd": exercise.name if language.nested else ".",
                "probe": [fill(w) for w in language.probe],
                "steps": [[fill(w) for w in step] for step in language.steps],
                "env": env,
            }
        )

    def judge(self, language: Language, exercise: Exercise, folder: Path, run: Outcome) -> Verdict:
        """Exit status 0 and the test runner's closing line in the output."""
        closing = language.passed is None or re.search(language.passed, run.output)
        return Verdict(run.status == 0 and bool(closing))
