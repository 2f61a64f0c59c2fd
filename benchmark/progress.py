"""A progress bar that the benchmark's workers, threads or Ray tasks, advance as results
arrive."""

from __future__ import annotations


class Progress:
    """A rich progress bar (or nothing, when quiet) advanced as results arrive."""

    def __init__(self, quiet: bool, total: int):
        self.quiet, self.total = quiet, total

    def __enter__(self) -> Progress:
        if not self.quiet:
            from rich.progress import Progress as Bar

            self.bar = Bar(transient=True)
            self.bar.start()
            self.task = self.bar.add_task("exercises", total=self.total)
        return self

    def advance(self, n: int) -> None:
        """Count n more exercises done."""
        if not self.quiet and n:
            self.bar.advance(self.task, n)

    def __exit__(self, *exc) -> None:
        if not self.quiet:
            self.bar.stop()
