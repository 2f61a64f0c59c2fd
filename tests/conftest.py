"""The guard: tests never reach a real model or any host but this machine."""

from __future__ import annotations

import socket

import pytest
from hypothesis import settings

LOOPBACK = ("127.", "::1", "localhost")
KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "DEEPSEEK_API_KEY")


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Connections to anything but loopback fail loudly; provider keys are fake."""
    real_connect = socket.socket.connect

    def connect(self, address):
        host = address[0] if isinstance(address, tuple) else str(address)
        if self.family in (socket.AF_INET, socket.AF_INET6) and not host.startswith(LOOPBACK):
            raise RuntimeError(f"a test tried to reach {address}: tests must stay on 127.0.0.1")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    for key in KEYS:
        monkeypatch.setenv(key, "sk-test-guard-invalid")
    # For coder started as a process of its own: an https:// request to a real provider goes
    # to a proxy that is not there, and fails at once; servers on this machine are reached.
    monkeypatch.setenv("https_proxy", "http://127.0.0.1:9")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost,::1")


settings.register_profile("long", max_examples=5_000, deadline=None)
"""`pytest --hypothesis-profile=long`: the property and fuzz tests with 5,000 examples each."""


@pytest.fixture
def ctrl_c():
    """Ctrl-C as Python handles it by default in this (main) thread: whatever an earlier test
    or library left (another handler, the signal blocked), a test that sends itself SIGINT
    gets a KeyboardInterrupt."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("SIGINT reaches only the main thread, and this test does not run there")
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    blocked = signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        signal.signal(signal.SIGINT, previous)
