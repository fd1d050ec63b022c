"""Why a cell is (un)sure: the notes the scanner attaches to a reading.

A note is kept as a key and its parameters, so the scan's JSON, the command line and the
debug overlay can each say it in their own language (`Note.text`, from escalero.i18n's
catalog; the key is what code tests for, the English text the catalog's msgid).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from escalero.i18n import N_, pick_language, translator

TEXTS: Final[dict[str, str]] = {
    "too_small": N_("too small in the photo: please check"),
    "faint_before_zero": N_("a faint digit before the 0? please check"),
    "faint_before_digit": N_("a faint digit before the {digit}? please check"),
    "by_total": N_("by the total: {read}, not {first}"),
    "backed_by_total": N_("supported by the total"),
    "confirmed_by_total": N_("confirmed by the total"),
    "is_sum": N_("= sum of the entries"),
    "check_column": N_("the column adds up to {sum}, the written total is {written}: "
                       "check the column"),
    "total_fits": N_("the total {written} fits {value}"),
    "total_differs": N_("total {written} ≠ {sum} (sum of the entries)"),
    "place_unsure": N_("position unsure (±{mm} mm): please check"),
    "unsure_sheet": N_("most of this sheet is unsure: an empty cell may hold faint "
                       "writing, please check"),
    "red_ink": N_("red ink on the red grid: the grid cannot be dropped out by its colour, "
                  "only by its shade; unsure cells are flagged, please check them"),
    "same_hand": N_("on this sheet a {written} looks like a {read}: please check"),
    "decides_payout": N_("read with certainty, but it decides the payout"),
    "blurred": N_("the photo is blurred: please check"),
    "blurred_photo": N_("the photo is blurred: every entry is shown for checking; a "
                        "sharper photo (hold still, more light) is read faster"),
}


# A cell's value inside a note, in the note's language: an empty or struck cell is a word.
EMPTY_VALUE, STRUCK_VALUE = "\u2205", "x"
VALUE_PARAMS = frozenset({"value", "read", "first"})  # the params that hold a cell's value


def value_param(v: object) -> str:
    """A cell's value (None, "x" or a number) as a note parameter: see _value_word."""
    return EMPTY_VALUE if v is None else STRUCK_VALUE if v == "x" else str(v)


def _value_word(value: str, lang: str) -> str:
    # "cell" context: Spanish says it of a casilla (feminine), the validator of a value.
    t = translator(lang)
    if value == EMPTY_VALUE:
        return t.pgettext("cell", "empty")
    return t.pgettext("cell", "struck") if value == STRUCK_VALUE else value


@dataclass(frozen=True)
class Note:
    key: str
    params: tuple[tuple[str, str], ...] = ()

    def text(self, lang: str = "de") -> str:
        lang = pick_language(lang)
        params = {k: _value_word(v, lang) if k in VALUE_PARAMS else v for k, v in self.params}
        return translator(lang).gettext(TEXTS[self.key]).format(**params)

    def __str__(self) -> str:
        return self.text()

    def __contains__(self, part: str) -> bool:
        return part in self.text()


def note(key: str, **params: object) -> Note:
    """A note by its key in TEXTS; parameters are formatted as given."""
    if key not in TEXTS:
        raise KeyError(f"no note text {key!r}")
    return Note(key, tuple((k, str(v)) for k, v in params.items()))
