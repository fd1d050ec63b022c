"""The scanner's refusals and photo errors in the user's language (`escalero scan --lang`).

A refusal's English text is its catalog msgid (marked N_ where the stage defines it); an
error raised `worded` carries its msgid and parameters. Either way its German and Spanish
come from escalero.i18n's catalog. A refusal whose text names what was found (a conflicting
code, the options given) is no msgid and stays in English.
"""

from __future__ import annotations

from escalero.scoring.errors import EscaleroError

from escalero.i18n import translator


def refusal_text(err: EscaleroError, lang: str) -> str:
    """The refusal's one line in `lang` (its own English text where there is none)."""
    t = translator(lang)
    if err.msgid is not None:
        return t.gettext(err.msgid).format(**err.msg_params)
    return t.gettext(str(err))


def in_language(err: EscaleroError, lang: str | None) -> EscaleroError:
    """`err` with its message in `lang` (None: as raised); the same error otherwise."""
    if lang is not None:
        err.args = (refusal_text(err, lang),)
    return err
