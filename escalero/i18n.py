"""One text catalog: every word a person reads, in German (default), English and Spanish.

The texts are gettext messages of the domain `escalero`, with English msgids; their German
and Spanish translations live in `escalero/locale/<lang>/LC_MESSAGES/escalero.po` and are
compiled to `.mo` with Babel (`python tools/catalog.py`). A module that must say a text
later, in a language it does not know yet (a scan's note, a refusal), keeps the English
msgid, marked with `N_` for extraction, and translates it on output. Money is written as
each language's Babel locale writes it (`money`).
"""

from __future__ import annotations

import errno
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


class Text:
    """A catalog message and its parameters, said later in a language not known yet
    (`text_in`): a part of an error's text ("side 2 (Anna), column I"), a problem a
    ValueError carries. A parameter may be a Text itself; str() is the English."""

    __slots__ = ("msgid", "params")

    def __init__(self, msgid: str, /, **params: object) -> None:
        self.msgid, self.params = msgid, params

    def text_in(self, lang: str) -> str:
        return translator(lang).gettext(self.msgid).format(**said(self.params, lang))

    def __str__(self) -> str:
        return self.text_in("en")

    def __repr__(self) -> str:
        return f"Text({self.msgid!r})"


class Listing(Text):
    """Parts said one after another, comma-separated ("escalero, 3 players, A4"): each a
    Text (said in the language) or a plain value (an id, a paper's name)."""

    __slots__ = ("parts",)

    def __init__(self, parts: list[object]) -> None:
        super().__init__("")
        self.parts = parts

    def text_in(self, lang: str) -> str:
        return ", ".join(str(p.text_in(lang) if isinstance(p, Text) else p) for p in self.parts)


# Why a file could not be read or written, for the errors a user is most likely to meet;
# others are named as the system names them.
OS_REASONS = {
    errno.ENOENT: N_("no such file or folder"), errno.EACCES: N_("permission denied"),
    errno.EISDIR: N_("it is a folder"), errno.ENOTDIR: N_("a part of the path is no folder"),
    errno.ENOSPC: N_("no space left on the disk"), errno.EROFS: N_("the disk is read-only"),
}


def os_reason(err: BaseException) -> Text | str:
    """Why reading or writing a file failed, as a Text where the catalog has its words."""
    if isinstance(err, UnicodeDecodeError):
        return Text(N_("the text is not UTF-8"))
    if isinstance(err, OSError) and err.errno in OS_REASONS:
        return Text(OS_REASONS[err.errno])
    return (err.strerror if isinstance(err, OSError) else None) or str(err)


# What Python's JSON reader says is wrong, as its messages name it.
JSON_REASONS = frozenset((
    N_("Expecting value"), N_("Expecting property name enclosed in double quotes"),
    N_("Expecting ',' delimiter"), N_("Expecting ':' delimiter"), N_("Extra data"),
    N_("Unterminated string starting at"), N_("Invalid control character at"),
    N_("Invalid \\escape"), N_("Invalid \\uXXXX escape"),
))


def json_reason(message: str) -> Text | str:
    """A JSONDecodeError's `msg` as a Text where the catalog has its words."""
    return Text(message) if message in JSON_REASONS else message


def said(params: dict[str, object], lang: str) -> dict[str, object]:
    """`params` with each Text among them in `lang`."""
    return {k: v.text_in(lang) if isinstance(v, Text) else v for k, v in params.items()}


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
