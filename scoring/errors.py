"""Exceptions that carry a user-facing message and the CLI exit code.

Exit codes (documented in README.md):
  0  success
  2  usage error (bad option; argparse)
  3  input file unreadable or ill-formed (sheet JSON, layout JSON)
  4  photo unreadable (not an image, corrupt, truncated, too large)
  5  no sheet found in the photo, or its layout is unknown
  6  sheet found but not readable safely (too small, too blurred)
  7  an optional tool is missing (e.g. tesseract)
  70 internal error (a bug: please report it)
"""

from __future__ import annotations


class EscaleroError(Exception):
    """Base class: `str(err)` is a one-line message that tells the user what to do."""

    exit_code: int = 70


class UsageError(EscaleroError):
    """A bad option value that argparse cannot check (e.g. a stake with fractions of a cent)."""

    exit_code = 2


class InputFileError(EscaleroError):
    """A sheet or layout file that cannot be read or has the wrong shape."""

    exit_code = 3


class UnknownRulesError(InputFileError):
    """An unknown game, variant or row id."""


class PhotoError(EscaleroError):
    """The photo itself cannot be decoded."""

    exit_code = 4


class SheetNotFoundError(EscaleroError):
    """No sheet (or no known layout) in the photo."""

    exit_code = 5


class UnreadableSheetError(EscaleroError):
    """A sheet was found but cannot be read safely: refused rather than guessed."""

    exit_code = 6


class ToolMissingError(EscaleroError):
    """An optional external tool (tesseract) is not installed."""

    exit_code = 7


INTERNAL_ERROR = 70  # the exit code of an unexpected exception


def internal_error(err: BaseException) -> str:
    """The one line an unexpected exception becomes: it is a bug, so ask for a report."""
    detail = str(err).splitlines()[0][:120] if str(err) else ""
    # A lone surrogate in the message must not fail the very line that reports it.
    detail = detail.encode("utf-8", "backslashreplace").decode("utf-8")
    kind = type(err).__name__ + (f": {detail}" if detail else "")
    return f"internal error (a bug: please report it): {kind}"
