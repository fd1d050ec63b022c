"""Exceptions that carry a user-facing message, the CLI exit code and the HTTP status.

Exit codes (documented in README.md) are the members of ExitCode. Every error class names
its exit code and the HTTP status the web app answers with as class attributes, so the
command line and the web map an error the same way, in one place each.
"""

from __future__ import annotations

from enum import IntEnum, StrEnum
from typing import Any, ClassVar, Self

from escalero.i18n import N_, Text, said, translator


class ExitCode(IntEnum):
    """The documented exit codes of `escalero` (README.md, "Exit codes")."""

    OK = 0  # success (cells may still be flagged for review)
    USAGE = 2  # usage error (bad option; argparse)
    INPUT_FILE = 3  # input file unreadable or ill-formed (sheet JSON, layout JSON)
    PHOTO = 4  # photo unreadable (not an image, corrupt, truncated, too large)
    SHEET_NOT_FOUND = 5  # no sheet found in the photo, or its layout is unknown
    UNREADABLE_SHEET = 6  # sheet found but not readable safely (too small, too blurred)
    TOOL_MISSING = 7  # an optional tool is missing (e.g. tesseract)
    INTERNAL = 70  # internal error (a bug: please report it)
    OUTPUT = 74  # standard output cannot be written (a full disk, closed); sysexits EX_IOERR
    INTERRUPTED = 130  # Ctrl-C (128 + SIGINT, the shell's convention)


class Reason(StrEnum):
    """Why a photo was refused, as a stable code: callers (the web app's translations, the
    tests) tell refusals apart by it, never by the message text, which may change."""

    NO_SHEET = "no_sheet"  # no corner marks (or QR code) in the picture
    TWO_SHEETS = "two_sheets"
    NO_LAYOUT = "no_layout"  # a sheet, but its QR code is unreadable and no layout named
    TOO_SMALL = "too_small"
    TOO_BLURRED = "too_blurred"
    OUT_OF_VIEW = "out_of_view"  # part of the grid outside the picture
    GRID_MISSING = "grid_missing"  # the printed grid is not where the layout puts it
    # The QR code names another sheet than the corner marks do (pasted over, or another
    # sheet's): the layout, and so the payout, is not known.
    LAYOUT_CONFLICT = "layout_conflict"
    # --game/--players (the web page's layout form) name another sheet than the sheet does.
    LAYOUT_NOT_AS_NAMED = "layout_not_as_named"


class EscaleroError(Exception):
    """Base class: `str(err)` is a one-line message that tells the user what to do.

    A plain EscaleroError is something that should not happen (exit 70, HTTP 500).
    `reason`, where set, says which refusal it is (a `Reason`), independent of the text.
    `msgid` and `msg_params`, where set (`worded`), are the English text as a catalog
    message (escalero.i18n) and its parameters, so the text can be said in any language;
    a parameter that is a Text or an EscaleroError is said in that language too."""

    exit_code: ClassVar[ExitCode] = ExitCode.INTERNAL
    http_status: ClassVar[int] = 500
    reason: Reason | None = None
    msgid: str | None = None
    msg_params: dict[str, object] = {}  # never changed in place: `worded` sets its own

    def __init__(self, *args: object, reason: Reason | None = None) -> None:
        super().__init__(*args)
        if reason is not None:
            self.reason = reason

    @classmethod
    def worded(cls, msgid: str, /, *, reason: Reason | None = None,
               **params: object) -> Self:
        """The error whose text is the catalog message `msgid` with `params` filled in
        (and the refusal `reason`, where it is one)."""
        err = cls(msgid.format(**params), reason=reason)
        err.msgid, err.msg_params = msgid, params
        return err

    @classmethod
    def saying(cls, text: Text | str) -> Self:
        """The error whose text is `text`: a Text (what a ValueError of the rules carries)
        is said in any language, a str as it is."""
        if isinstance(text, Text):
            params: dict[str, Any] = dict(text.params)  # a Text's params never hold `reason`
            return cls.worded(text.msgid, **params)
        return cls(text)

    def text_in(self, lang: str) -> str:
        """This error's one line in `lang`: its catalog message, else its text as raised
        where that is a msgid itself (a refusal), else its English text."""
        t = translator(lang)
        if self.msgid is not None:
            params = {k: v.text_in(lang) if isinstance(v, EscaleroError) else v
                      for k, v in said(self.msg_params, lang).items()}
            return t.gettext(self.msgid).format(**params)
        return t.gettext(str(self))

    def details(self) -> dict[str, Any]:
        """Fields the web API adds to its {"error": message} body (none by default)."""
        return {}


class UsageError(EscaleroError):
    """A bad option value that argparse cannot check (e.g. a stake with fractions of a cent)."""

    exit_code = ExitCode.USAGE
    http_status = 400


class InputFileError(EscaleroError):
    """A sheet or layout file that cannot be read or has the wrong shape."""

    exit_code = ExitCode.INPUT_FILE
    http_status = 400


class UnknownRulesError(InputFileError):
    """An unknown game, variant or row id."""


class PhotoError(EscaleroError):
    """The photo itself cannot be decoded."""

    exit_code = ExitCode.PHOTO
    http_status = 422


class SheetNotFoundError(EscaleroError):
    """No sheet (or no known layout) in the photo."""

    exit_code = ExitCode.SHEET_NOT_FOUND
    http_status = 422


class LayoutUnknownError(SheetNotFoundError):
    """A sheet was found but its QR code cannot be read and no layout was named: the
    caller can ask for the layout (the CLI's options, the web page's form)."""


class UnreadableSheetError(EscaleroError):
    """A sheet was found but cannot be read safely: refused rather than guessed."""

    exit_code = ExitCode.UNREADABLE_SHEET
    http_status = 422


class ToolMissingError(EscaleroError):
    """An optional external tool (tesseract) is not installed."""

    exit_code = ExitCode.TOOL_MISSING
    http_status = 503


class OutputError(EscaleroError):
    """Standard output cannot be written (a full disk, /dev/full, closed)."""

    exit_code = ExitCode.OUTPUT


def internal_error(err: BaseException, lang: str = "en") -> str:
    """The one line an unexpected exception becomes: it is a bug, so ask for a report
    (in `lang`; what the exception says stays as it is)."""
    detail = str(err).splitlines()[0][:120] if str(err) else ""
    # A lone surrogate in the message must not fail the very line that reports it.
    detail = detail.encode("utf-8", "backslashreplace").decode("utf-8")
    kind = type(err).__name__ + (f": {detail}" if detail else "")
    return translator(lang).gettext(N_("internal error (a bug: please report it): {kind}")
                                    ).format(kind=kind)
