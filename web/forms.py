"""Form and query values the pages send, read strictly."""

from __future__ import annotations

from typing import Any

from escalero.scoring.errors import UsageError

from escalero.i18n import N_


def form_flag(value: Any, what: str) -> bool:
    """A checkbox or query flag: '1', 'true', 'on', 'yes' are set; '', '0', 'false',
    'off', 'no' (or absent) are not; anything else is refused rather than guessed."""
    text = str(value if value is not None else "").strip().lower()
    if text in ("1", "true", "on", "yes"):
        return True
    if text in ("", "0", "false", "off", "no"):
        return False
    raise UsageError.worded(N_("{what} {text!r}: give 1 or 0"), what=what, text=text[:20])
