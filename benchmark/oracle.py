"""Scripted "oracle" models that answer an exercise with its reference solution, in any edit
format and any language of the benchmark: the proof that the harness counts right."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from coder.prompt import FILES_INTRO
from coder.seams.model import Completion, Request
from editformats import ToolCall
from exercism import get_language


def reply_for(
    fmt: str, current: Mapping[str, str | None], wanted: Mapping[str, str], fence: str = "python"
) -> Completion:
    """A reply in format fmt that turns each current file text into the wanted one (a file
    current lacks or maps to None is made), its code blocks tagged with fence."""
    current = {p: current.get(p) for p in wanted}
    made = {p for p, t in current.items() if t is None}
    if fmt == "whole-func":
        files = [{"path": p, "content": t} for p, t in wanted.items()]
        args = json.dumps({"explanation": "The solution.", "files": files})
        return Completion(tool_calls=(ToolCall("write_file", args),))
    if fmt == "diff-func":
        edits = [
            {"path": p, "original_lines": current[p] or "", "updated_lines": t}
            for p, t in wanted.items()
        ]
        args = json.dumps({"explanation": "The solution.", "edits": edits})
        return Completion(tool_calls=(ToolCall("replace_lines", args),))
    if fmt in ("patch", "patch-func"):
        return _patch_reply(fmt, current, wanted)
    parts = ["Here is the solution.\n"]
    for path, text in wanted.items():
        old = current[path] or ""
        if fmt in ("whole", "editor-whole"):
            parts.append(f"{path}\n````{fence}\n{_ends(text)}````\n")
        elif fmt == "udiff":
            minus = "".join(f"-{line}\n" for line in old.splitlines())
            plus = "".join(f"+{line}\n" for line in text.splitlines())
            source = "/dev/null" if path in made else path
            parts.append(f"```diff\n--- {source}\n+++ {path}\n@@ ... @@\n{minus}{plus}```\n")
        else:
            search = _ends(old) if old else ""
            block = f"<<<<<<< SEARCH\n{search}=======\n{_ends(text)}>>>>>>> REPLACE\n"
            head = f"````{fence}\n{path}\n" if fmt.endswith("fenced") else f"{path}\n````{fence}\n"
            parts.append(f"{head}{block}````\n")
    return Completion(text="\n".join(parts))


def _patch_reply(
    fmt: str, current: Mapping[str, str | None], wanted: Mapping[str, str]
) -> Completion:
    """A V4A patch replacing each file whole: one chunk, its old lines pinned to the file's end
    (so that they match in one place only), or only added lines for an empty file; a file
    current does not have (None) is added."""
    sections = []
    for path, text in wanted.items():
        new = "".join(f"+{line}\n" for line in text.splitlines())
        if current[path] is None:
            sections.append(f"*** Add File: {path}\n{new}")
            continue
        old = "".join(f"-{line}\n" for line in current[path].splitlines())
        end = "*** End of File\n" if old else ""
        sections.append(f"*** Update File: {path}\n@@\n{old}{new}{end}")
    patch = f"*** Begin Patch\n{''.join(sections)}*** End Patch\n"
    if fmt == "patch-func":
        return Completion(tool_calls=(ToolCall("apply_patch", json.dumps({"input": patch})),))
    return Completion(text=f"Here is the solution.\n\n{patch}")


def _shown(request: Request, path: str) -> str | None:
    """The text of path as the request shows it to the model (so that a round-trip check,
    which shows the files before the edit, gets a reply against those), or None."""
    for message in reversed(request.messages):
        if not message.content.startswith(FILES_INTRO):
            continue
        match = re.search(rf"(?m)^{re.escape(path)}\n(`{{3,}})\n", message.content)
        if match is None:
            return None
        end = message.content.find(f"\n{match.group(1)}", match.end() - 1)
        return message.content[match.end() : end + 1] if end >= 0 else None
    return None


def _reader(workdir: Path) -> Callable[[str], str | None]:
    """Reads a file of the work folder; a file not there yet (a helper class the reference
    solution adds) reads as None."""

    def read(path: str) -> str | None:
        file = workdir / path
        return file.read_text() if file.is_file() else None

    return read


def _ends(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


WRONG = {"python": 'raise NotImplementedError("a wrong first attempt")\n'}
"""What a wrong first answer adds to each solution file, by language: Python's stub raises on
import (a few stubs pass some tests as they are); elsewhere a line that is no code, which no
compiler, manifest reader or interpreter takes."""
NOT_CODE = "a wrong first attempt, which is not code\n"


class OracleModel:
    """Answers with the reference solution; with wrong_first, the first answer breaks the stub
    (see WRONG), so the retry must fix it."""

    def __init__(
        self,
        fmt: str,
        read: Callable[[str], str | None],
        solution: Mapping[str, str],
        wrong_first: bool = False,
        name: str = "oracle",
        latency: float = 0.0,
        language: str = "python",
    ):
        self.name = name
        self.language = language
        self.fmt = fmt
        self.read = read
        self.solution = dict(solution)
        self.wrong_first = wrong_first
        self.latency = latency
        """Seconds to wait before each answer, like a model on the network."""
        self.calls = 0
        self._lock = threading.Lock()

    def complete(self, request: Request, on_text=None) -> Completion:
        """The next answer: a wrong one first when asked to, then the reference solution."""
        with self._lock:  # candidates arrive in parallel
            self.calls += 1
            first = self.calls == 1
        time.sleep(self.latency)
        current = {path: _shown(request, path) or self.read(path) for path in self.solution}
        if self.wrong_first and first:
            wrong = WRONG.get(self.language, NOT_CODE)
            wanted = {p: _ends(t) + wrong for p, t in current.items() if t}
        else:
            wanted = self.solution
        fence = get_language(self.language).fence
        completion = reply_for(self.fmt, current, wanted, fence)
        if on_text and completion.text:
            on_text(completion.text)
        return completion


def oracle_factory(wrong_first: bool, latency: float = 0.0) -> Callable[..., OracleModel]:
    """A factory making an oracle for one exercise's working folder, solution and language."""

    def make(
        fmt: str, workdir: Path, solution: Mapping[str, str], language: str = "python"
    ) -> OracleModel:
        name = "oracle-retry" if wrong_first else "oracle"
        return OracleModel(fmt, _reader(workdir), solution, wrong_first, name, latency, language)

    return make
