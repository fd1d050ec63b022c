"""Server messages in the page's language.

An error the web app raises itself carries a catalog key and its parameters (`keyed`); a
refusal raised by the scanner is recognised by its reason code (`scoring.errors.Reason`)
and mapped to its key here; every Reason has one. Either way the text comes from web.i18n,
so a German page never shows an English refusal. An error raised as a catalog message
(`EscaleroError.worded`: a bad stake, a sheet's content) is said in the page's language
too; anything else is shown as raised. The API's error body carries the reason as well
("reason"), so a client tells refusals apart without reading the text.
"""

from __future__ import annotations

from typing import Any, TypeVar

from escalero.scoring.errors import EscaleroError, Reason
from escalero.web.i18n import translate
from escalero.web.locale_format import when

E = TypeVar("E", bound=EscaleroError)


def keyed(cls: type[E], key: str, **params: Any) -> E:
    """An error whose English text comes from the catalog and that knows its key."""
    english = {k.removesuffix("_key"): translate(v, "en") if k.endswith("_key") else v
               for k, v in params.items()}
    err = cls(translate(key, "en", **english))
    err.key = key  # type: ignore[attr-defined]
    err.params = params  # type: ignore[attr-defined]
    return err


# The scanner's refusals (by their stable reason code) -> catalog keys.
REASON_KEYS: dict[Reason, str] = {
    Reason.NO_SHEET: "err_no_sheet",
    Reason.TWO_SHEETS: "err_two_sheets",
    Reason.TOO_SMALL: "err_too_small",
    Reason.TOO_BLURRED: "err_too_blurred",
    Reason.OUT_OF_VIEW: "err_out_of_view",
    Reason.GRID_MISSING: "err_grid_missing",
    Reason.LAYOUT_CONFLICT: "err_layout_conflict",
    Reason.LAYOUT_NOT_AS_NAMED: "err_layout_not_as_named",
    Reason.NO_LAYOUT: "err_no_layout",
}


def localize(err: EscaleroError, lang: str) -> str:
    """`err`'s message in `lang`: its own catalog key, else its refusal reason's, else
    the text as raised."""
    key = getattr(err, "key", None)
    if key:
        # A parameter named *_key is itself a catalog key (a field's label); one named
        # *_when holds times (ISO), written as the page's language writes them.
        params = {}
        for k, v in getattr(err, "params", {}).items():
            if k.endswith("_key"):
                params[k.removesuffix("_key")] = translate(v, lang)
            elif k.endswith("_when"):
                params[k.removesuffix("_when")] = ", ".join(when(t, lang) for t in v)
            else:
                params[k] = v
        return translate(key, lang, **params)
    fixed = REASON_KEYS.get(err.reason) if err.reason else None
    if fixed:
        return translate(fixed, lang)
    return err.text_in(lang) if err.msgid is not None else str(err)
