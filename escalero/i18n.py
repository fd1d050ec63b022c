"""One text catalog: every word a person reads, in German (default), English and Spanish.

The texts are gettext messages of the domain `escalero`, with English msgids; their German
and Spanish translations live in `escalero/locale/<lang>/LC_MESSAGES/escalero.po` and are
compiled to `.mo` with Babel (`python tools/catalog.py`). A module that must say a text
later, in a language it does not know yet (a scan's note, a server error), keeps the
English msgid, marked with `N_` or `N_plural` for extraction, and translates it on output.
"""

from __future__ import annotations

import gettext
from functools import cache
from pathlib import Path

LANGUAGES = ("de", "en", "es")
DEFAULT_LANGUAGE = "de"
DOMAIN = "escalero"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"


def pick_language(lang: str | None) -> str:
    """`lang` where it is one of LANGUAGES, else the default (German)."""
    return lang if lang in LANGUAGES else DEFAULT_LANGUAGE


@cache
def translator(lang: str) -> gettext.NullTranslations:
    """The catalog of `lang` (one of LANGUAGES); English is the msgids themselves."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; choose one of {', '.join(LANGUAGES)}")
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[lang], fallback=lang == "en")


def N_(message: str) -> str:
    """Marks `message` for extraction; it is translated where it is shown."""
    return message


def N_plural(singular: str, plural: str) -> tuple[str, str]:
    """Marks a plural message for extraction; `ngettext(*forms, n)` translates it."""
    return singular, plural


def text(lang: str, message: str, **params: object) -> str:
    """`message` in `lang`, its {placeholders} filled in."""
    translated = translator(lang).gettext(message)
    return translated.format(**params) if params else translated


def plural(lang: str, forms: tuple[str, str], n: int, **params: object) -> str:
    """The form of a plural message (N_plural) that `n` takes in `lang`; {n} is `n`."""
    return translator(lang).ngettext(*forms, n).format(n=n, **params)
