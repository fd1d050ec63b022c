"""The scanner's refusals in the user's language (`escalero scan --lang de|es`).

Each refusal's English text is its catalog msgid (marked N_ where the stage defines it), so
its German and Spanish come from escalero.i18n's catalog. A refusal whose text names what
was found (a conflicting code, the options given) is no msgid and stays in English.
"""

from __future__ import annotations

from escalero.scoring.errors import EscaleroError

from escalero.i18n import translator


def refusal_text(err: EscaleroError, lang: str) -> str:
    """The refusal's one line in `lang` (its own English text where there is none)."""
    return translator(lang).gettext(str(err))


def in_language(err: EscaleroError, lang: str | None) -> EscaleroError:
    """`err` with its message in `lang` (None: as raised); the same error otherwise."""
    if lang is not None:
        err.args = (refusal_text(err, lang),)
    return err
