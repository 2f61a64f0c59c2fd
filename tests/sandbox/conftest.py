"""The sandbox tests' folders are ones every user may pass through: the fallback sandbox run as
root runs each command as a user of its own, which must reach its folder (pytest's own folder
for root, /tmp/pytest-of-root, is closed to others)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def tmp_path() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="coder-sandbox-test-"))
    folder.chmod(0o711)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
