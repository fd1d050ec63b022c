"""Numbers, money and dates as the page's language writes them (Babel, CLDR data).

German pages use Austrian conventions (de-AT: "-€ 4,50", "Do., 3. Dez. 2026"), English
and Spanish pages theirs ("-€4.50", "-4,50 €"); money as the command line writes it
(escalero.i18n.money). Only what a person reads is formatted here: the JSON API and the CSV
keep plain numbers ("4.50") for programs.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from babel.dates import format_date, format_skeleton, format_time
from babel.numbers import format_decimal

from escalero.i18n import finite_decimal as _decimal
from escalero.i18n import locale_of, money


def _pattern(number: Decimal, pattern: str, lang: str, fallback: object) -> str:
    try:
        return format_decimal(number, pattern, locale=locale_of(lang))
    except (InvalidOperation, ValueError):  # beyond what Decimal rounds: shown as stored
        return str(fallback)


def decimal(value: object, lang: str, digits: int = 2) -> str:
    """A number with a fixed count of decimals ("0,50" in de and es, "0.50" in en)."""
    number = _decimal(value)
    if number is None:
        return str(value)
    return _pattern(number, "#,##0." + "0" * digits if digits else "#,##0", lang, value)


def points(value: int | float | Fraction | str, lang: str) -> str:
    """Game points with their sign: "+1", "-2", "+0,5" (halves from split ties)."""
    number = _decimal(float(value) if isinstance(value, Fraction) else value)
    if number is None:
        return str(value)
    if number == 0:
        return "0"
    return _pattern(number, "+#,##0.#;-#,##0.#", lang, value)


def _parsed(when: datetime | str) -> datetime | None:
    if isinstance(when, datetime):
        return when
    try:
        return datetime.fromisoformat(str(when))
    except ValueError:
        return None


def when(moment: datetime | str, lang: str) -> str:
    """A saved game's time as it was on the server's clock: "3. Dez. 2026, 07:49"."""
    dt = _parsed(moment)
    if dt is None:
        return str(moment)
    dt = dt.replace(tzinfo=None)  # the wall time it was saved at, not converted
    loc = locale_of(lang)
    return f"{format_skeleton('yMMMd', dt, locale=loc)}, {format_time(dt, 'short', locale=loc)}"


def evening(day: date | str, lang: str, weekday: bool = True) -> str:
    """An evening (its date): "Do., 3. Dez. 2026"."""
    try:
        d = day if isinstance(day, date) else date.fromisoformat(str(day))
    except ValueError:
        return str(day)
    loc = locale_of(lang)
    return format_skeleton("yMMMEd", d, locale=loc) if weekday else \
        format_date(d, "medium", locale=loc)


class Formats:
    """The formatters bound to one page's language (templates call `fmt.money(...)`)."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.locale = locale_of(lang).replace("_", "-")  # for the page's Intl API

    def money(self, amount: object, currency: str, signed: bool = False) -> str:
        return money(amount, currency, self.lang, signed)

    def decimal(self, value: object, digits: int = 2) -> str:
        return decimal(value, self.lang, digits)

    def points(self, value: int | float | Fraction | str) -> str:
        return points(value, self.lang)

    def when(self, moment: datetime | str) -> str:
        return when(moment, self.lang)

    def evening(self, day: date | str) -> str:
        return evening(day, self.lang)
