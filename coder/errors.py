"""Errors shown to the user, each a clear line naming the bad value.

CoderError              base of every error shown to the user
├── UsageError          a command line coder cannot act on (exit status 2)
├── PathError           a path outside the repository, into .git/, or through a symlink leaving it
├── FileEncodingError   new text that cannot be written in its file's encoding
├── WriteError          a write failed or a file changed meanwhile (nothing was written)
├── GitError            git refused, or is not set up (no identity, not a repository)
│   └── NotCommitted    the edit is written, but git failed to commit it
├── ModelError          the model could not answer (bad key, unknown model, a server that
│                       cannot be reached, timeout, too long)
└── SandboxFailure      the sandbox could not run the test command at all (the harness's
                        failure, not the code's)
"""


class CoderError(Exception):
    """Base of every error shown to the user."""


class UsageError(CoderError):
    """A command line coder cannot act on."""


class PathError(CoderError):
    """A path coder must not read or write."""


class FileEncodingError(CoderError):
    """Text that cannot be written in the file's encoding."""


class WriteError(CoderError):
    """The files could not be written (the system refused, or one changed on disk meanwhile);
    every file is as it was."""


class GitError(CoderError):
    """git refused, or is not set up."""


class NotCommitted(GitError):
    """The edit is written to the files, but committing it failed."""

    def __init__(self, message: str, paths: tuple[str, ...]):
        super().__init__(message)
        self.paths = paths
        """The files that hold the uncommitted edit."""


class ModelError(CoderError):
    """The model could not answer: a bad key, an unknown model, a server that cannot be
    reached, a timeout, a too-long chat."""

    def __init__(self, message: str, partial: str = ""):
        super().__init__(message)
        self.partial = partial
        """Text that had streamed in before the failure."""


class SandboxFailure(CoderError):
    """The sandbox could not run the test command at all: it did not start, or the command
    could not be executed. Nothing about the code under test is known."""
