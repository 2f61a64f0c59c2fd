"""Errors shown to the user, each a clear line naming the bad value.

CoderError              base of every error shown to the user
├── UsageError          a command line coder cannot act on (exit status 2)
├── PathError           a path outside the repository, into .git/, or through a symlink leaving it
├── FileEncodingError   new text that cannot be written in its file's encoding
├── GitError            git refused, or is not set up (no identity, not a repository)
└── ModelError          the model could not answer (bad key, unknown model, timeout, too long)
"""


class CoderError(Exception):
    """Base of every error shown to the user."""


class UsageError(CoderError):
    """A command line coder cannot act on."""


class PathError(CoderError):
    """A path coder must not read or write."""


class FileEncodingError(CoderError):
    """Text that cannot be written in the file's encoding."""


class GitError(CoderError):
    """git refused, or is not set up."""


class ModelError(CoderError):
    """The model could not answer: a bad key, an unknown model, a timeout, a too-long chat."""

    def __init__(self, message: str, partial: str = ""):
        super().__init__(message)
        self.partial = partial
        """Text that had streamed in before the failure."""
