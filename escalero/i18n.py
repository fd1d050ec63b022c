"""One text catalog: every word a person reads, in German (default), English and Spanish.

The texts are gettext messages of the domain `escalero`, with English msgids; their German
and Spanish translations live in `escalero/locale/<lang>/LC_MESSAGES/escalero.po` and are
compiled to `.mo` with Babel (`python tools/catalog.py`). A module that must say a text
later, in a language it does not know yet (a scan's note, a refusal), keeps the English
msgid, marked with `N_` for extraction, and translates it on output. Money is written as
each language's Babel locale writes it (`money`).
"""

from __future__ import annotations

import gettext
import re
from decimal import Decimal, InvalidOperation
from functools import cache
from pathlib import Path

from babel import Locale
from babel.numbers import format_currency, format_decimal, format_percent

LANGUAGES = ("de", "en", "es")
DEFAULT_LANGUAGE = "de"
# The Babel locale each language writes numbers, money and dates in: German as in Austria,
# Piatnik's home ("-€ 4,50").
LOCALES = {"de": "de_AT", "en": "en", "es": "es"}
ISO_CURRENCY = re.compile(r"^[A-Z]{3}$")
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


def locale_of(lang: str) -> str:
    """The Babel locale `lang` is written in (German's for an unknown one)."""
    return LOCALES.get(lang, LOCALES[DEFAULT_LANGUAGE])


def finite_decimal(value: object) -> Decimal | None:
    """`value` as a finite Decimal; None for anything else ("abc", "NaN", "Infinity")."""
    try:
        number = Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None
    return number if number.is_finite() else None


def money(amount: object, currency: str, lang: str, signed: bool = False) -> str:
    """An amount ("4.50", Decimal) in `currency`: "-€ 4,50" (de), "+4,50 €" (es, signed).
    A currency that is no ISO code ("Bier") follows the number."""
    value = finite_decimal(amount)
    if value is None:
        return f"{amount} {currency}"
    loc = locale_of(lang)
    try:
        if ISO_CURRENCY.match(currency):
            text = format_currency(value, currency, locale=loc)
        else:
            text = f"{format_decimal(value, '#,##0.00', locale=loc)} {currency}"
    except (InvalidOperation, ValueError):  # beyond what Decimal rounds: shown as stored
        text = f"{amount} {currency}"
    return f"+{text}" if signed and value > 0 else text


def percent(value: Decimal, lang: str, digits: int = 0) -> str:
    """`value` (0.996) as a percentage with `digits` decimals, as `lang` writes one:
    "99,6 %" (de, es), "99.6%" (en)."""
    loc = locale_of(lang)
    pattern = Locale.parse(loc).percent_formats[None].pattern
    if digits:  # CLDR's pattern has one integer 0 ("#,##0 %"): the decimals follow it
        pattern = pattern.replace("0", "0." + "0" * digits, 1)
    return format_percent(value, pattern, locale=loc)
