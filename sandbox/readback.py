"""Reading what a contained run left in its folder, once it is gone, as the hostile data it may
be: a regular file only (never a link, a pipe or a device), opened without blocking, at most a
capped number of bytes, and a JUnit report parsed as it streams in, with no DTD or entity."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

MAX_REPORT = 16 * 1024**2
"""Bytes of a report read at most: far above any real test report."""
CHUNK = 65536
MAX_DEPTH = 64
"""Elements nested in a report at most (a JUnit report nests four)."""
OUTCOMES = {"failure": "failed", "error": "failed", "skipped": "skipped"}
"""A test case's outcome by the element inside it."""


class Refused(Exception):
    """The run's file is there but is not read: not a regular file, over the cap, not
    well-formed, or holding a DTD. The message says why, in a line for the run's output: a
    failure of the run, never of the harness."""


@dataclass(frozen=True)
class Case:
    """One test case of a JUnit report."""

    classname: str
    name: str
    outcome: str
    """"passed", "failed" (a failure or an error) or "skipped"."""


@contextlib.contextmanager
def opened(folder: Path, name: str, cap: int = MAX_REPORT) -> Iterator[BinaryIO | None]:
    """The file name (one component) in folder, open for reading at most cap bytes; None when
    it is not there. Neither the folder nor the file is reached through a link, and opening
    never waits (a named pipe, a terminal); Refused when it is not a regular file."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    try:
        parent = os.open(folder, flags | os.O_DIRECTORY)
    except FileNotFoundError:
        yield None
        return
    try:
        fd = os.open(name, flags, dir_fd=parent)
    except FileNotFoundError:
        yield None
        return
    except OSError as exc:
        raise Refused(f"The test report {name} could not be opened: {exc.strerror}.") from None
    finally:
        os.close(parent)
    with os.fdopen(fd, "rb", buffering=0) as raw:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Refused(f"The test report {name} is not a regular file; it was not read.")
        file = _Capped(raw, cap, name)
        if info.st_size > cap:  # refused at once; the cap holds anyway should it grow
            file.refuse()
        yield file


def read(folder: Path, name: str, cap: int = MAX_REPORT) -> bytes | None:
    """The bytes of the file name in folder (see opened); None when it is not there."""
    with opened(folder, name, cap) as file:
        return None if file is None else file.read()


def junit_cases(folder: Path, name: str, cap: int = MAX_REPORT) -> list[Case]:
    """The test cases of the JUnit report name in folder, parsed as it is read (memory bounded
    by the largest test case); empty when there is no report, Refused when it cannot be read."""
    from xml.etree.ElementTree import ParseError

    from defusedxml import DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden
    from defusedxml.ElementTree import iterparse

    cases: list[Case] = []
    with opened(folder, name, cap) as file:
        if file is None:
            return cases
        events = iterparse(file, events=("start", "end"), forbid_dtd=True)
        try:
            _collect(events, cases)
        except (DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden):
            raise Refused(f"The test report {name} declares a DTD; it was not read.") from None
        except ParseError as exc:
            raise Refused(f"The test report {name} is not well-formed XML ({exc}).") from None
    return cases


def _collect(events, cases: list[Case]) -> None:
    """Each testcase's outcome noted as its elements end, and every element dropped from the
    tree once it ends, so that the tree never holds more than the elements around the one
    being read (no deeper than MAX_DEPTH)."""
    around: list[ET.Element] = []
    outcomes: dict[int, str] = {}
    for event, element in events:
        if event == "start":
            around.append(element)
            if len(around) > MAX_DEPTH:
                raise Refused(f"The test report nests elements over {MAX_DEPTH} deep.")
            continue
        around.pop()
        parent = around[-1] if around else None
        if element.tag == "testcase":
            outcome = outcomes.pop(id(element), "passed")
            cases.append(Case(element.get("classname", ""), element.get("name", ""), outcome))
        elif _marks(element, parent) and outcomes.get(id(parent)) != "failed":
            # A failure or an error wins over a skip, whatever their order.
            outcomes[id(parent)] = OUTCOMES[element.tag]
        if parent is not None:
            parent.remove(element)


def _marks(element: ET.Element, parent: ET.Element | None) -> bool:
    """Whether element says how the test case it is in went."""
    return parent is not None and parent.tag == "testcase" and element.tag in OUTCOMES


class _Capped:
    """A file read to at most cap bytes: Refused past them."""

    def __init__(self, raw: BinaryIO, cap: int, name: str):
        self.raw, self.left, self.name, self.cap = raw, cap, name, cap

    def read(self, size: int = -1) -> bytes:
        want = self.left + 1 if size < 0 else min(size, self.left + 1)
        chunks = []
        while want > 0:
            chunk = self.raw.read(min(want, CHUNK))
            if not chunk:
                break
            chunks.append(chunk)
            want -= len(chunk)
            if size >= 0:
                break
        data = b"".join(chunks)
        self.left -= len(data)
        if self.left < 0:
            self.refuse()
        return data

    def refuse(self) -> None:
        raise Refused(
            f"The test report {self.name} is over {self.cap // 1024**2} MB; it was not read."
        )
