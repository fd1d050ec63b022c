"""Server messages in the page's language.

An error the web app raises itself carries a catalog key and its parameters (`keyed`); a
refusal raised by the scanner or the sheet planner is recognised by its fixed text and
mapped to its key here. Either way the text comes from web.i18n, so a German page never
shows an English refusal. Anything not in the catalog is shown as raised.
"""

from __future__ import annotations

import functools
from typing import Any, TypeVar

from escalero.scoring.errors import EscaleroError
from escalero.web.i18n import translate

E = TypeVar("E", bound=EscaleroError)


def keyed(cls: type[E], key: str, **params: Any) -> E:
    """An error whose English text comes from the catalog and that knows its key."""
    english = {k.removesuffix("_key"): translate(v, "en") if k.endswith("_key") else v
               for k, v in params.items()}
    err = cls(translate(key, "en", **english))
    err.key = key  # type: ignore[attr-defined]
    err.params = params  # type: ignore[attr-defined]
    return err


@functools.cache
def _fixed_texts() -> dict[str, str]:
    """The scanner's fixed refusals -> catalog keys (empty when the scanner is absent)."""
    out: dict[str, str] = {}
    try:
        from escalero.scan import grid, locate, rectify
    except ModuleNotFoundError:
        return out
    out[locate.NO_SHEET] = "err_no_sheet"
    out[locate.TWO_SHEETS] = "err_two_sheets"
    out[rectify.TOO_SMALL] = "err_too_small"
    out[rectify.TOO_BLURRED] = "err_too_blurred"
    out[rectify.OUT_OF_VIEW] = "err_out_of_view"
    out[grid.GRID_MISSING] = "err_grid_missing"
    return out


def localize(err: EscaleroError, lang: str) -> str:
    key = getattr(err, "key", None)
    if key:
        # A parameter named *_key is itself a catalog key (a field's label).
        params = {k.removesuffix("_key"): translate(v, lang) if k.endswith("_key") else v
                  for k, v in getattr(err, "params", {}).items()}
        return translate(key, lang, **params)
    fixed = _fixed_texts().get(str(err))
    return translate(fixed, lang) if fixed else str(err)
