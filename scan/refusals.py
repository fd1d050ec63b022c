"""The scanner's refusals and photo errors in the user's language (`escalero scan --lang`).

A refusal's English text is its catalog msgid (marked N_ where the stage defines it); an
error raised `worded` carries its msgid and parameters. Either way its German and Spanish
come from escalero.i18n's catalog. A refusal whose text names what was found (a conflicting
code, the options given) is no msgid and stays in English.
"""

from __future__ import annotations

from escalero.scoring.errors import EscaleroError


def refusal_text(err: EscaleroError, lang: str) -> str:
    """The refusal's one line in `lang` (its own English text where there is none)."""
    return err.text_in(lang)


def in_language(err: EscaleroError, lang: str | None) -> EscaleroError:
    """`err` with its message in `lang` (None: as raised); the same error otherwise."""
    if lang is not None:
        err.args = (refusal_text(err, lang),)
    return err
