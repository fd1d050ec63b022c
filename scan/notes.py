"""Why a cell is (un)sure: the notes the scanner attaches to a reading, in three languages.

A note is kept as a key and its parameters, so the scan's JSON, the command line and the
debug overlay can each say it in their own language (`Note.text`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

TEXTS: Final[dict[str, dict[str, str]]] = {
    "too_small": {
        "de": "im Foto zu klein: bitte prüfen",
        "en": "too small in the photo: please check",
        "es": "demasiado pequeña en la foto: revísela"},
    "faint_before_zero": {
        "de": "schwache Ziffer vor der 0? bitte prüfen",
        "en": "a faint digit before the 0? please check",
        "es": "¿una cifra tenue antes del 0? revísela"},
    "faint_before_digit": {
        "de": "schwache Ziffer vor der {digit}? bitte prüfen",
        "en": "a faint digit before the {digit}? please check",
        "es": "¿una cifra tenue antes del {digit}? revísela"},
    "by_total": {
        "de": "nach Summe: {read} statt {first}",
        "en": "by the total: {read}, not {first}",
        "es": "según el total: {read} en vez de {first}"},
    "backed_by_total": {
        "de": "durch Summe gestützt",
        "en": "supported by the total",
        "es": "respaldada por el total"},
    "confirmed_by_total": {
        "de": "durch Summe bestätigt",
        "en": "confirmed by the total",
        "es": "confirmada por el total"},
    "is_sum": {
        "de": "= Summe der Einträge",
        "en": "= sum of the entries",
        "es": "= suma de las anotaciones"},
    "check_column": {
        "de": "Kolonne ergibt {sum}, Summe geschrieben {written}: Kolonne prüfen",
        "en": "the column adds up to {sum}, the written total is {written}: check the column",
        "es": "la columna suma {sum}, el total escrito es {written}: revise la columna"},
    "total_fits": {
        "de": "Summe {written} passt zu {value}",
        "en": "the total {written} fits {value}",
        "es": "el total {written} encaja con {value}"},
    "total_differs": {
        "de": "Summe {written} ≠ {sum} (Summe der Einträge)",
        "en": "total {written} ≠ {sum} (sum of the entries)",
        "es": "total {written} ≠ {sum} (suma de las anotaciones)"},
    "place_unsure": {
        "de": "Lage unsicher (±{mm} mm): bitte prüfen",
        "en": "position unsure (±{mm} mm): please check",
        "es": "posición insegura (±{mm} mm): revísela"},
    "red_ink": {
        "de": "rote Tinte auf dem roten Raster: das Raster lässt sich nicht nach seiner Farbe "
              "ausblenden, nur nach seiner Helligkeit; unsichere Felder sind markiert, "
              "bitte prüfen",
        "en": "red ink on the red grid: the grid cannot be dropped out by its colour, only "
              "by its shade; unsure cells are flagged, please check them",
        "es": "tinta roja sobre la cuadrícula roja: la cuadrícula no se puede eliminar por "
              "su color, solo por su tono; las casillas inseguras están marcadas, revíselas"},
    "same_hand": {
        "de": "auf diesem Blatt sieht eine {written} wie eine {read} aus: bitte prüfen",
        "en": "on this sheet a {written} looks like a {read}: please check",
        "es": "en esta hoja un {written} parece un {read}: revísela"},
    "decides_payout": {
        "de": "sicher gelesen, entscheidet aber die Auszahlung",
        "en": "read with certainty, but it decides the payout",
        "es": "leída con certeza, pero decide el pago"},
}


# A cell's value inside a note, in the note's language: an empty or struck cell is a word.
EMPTY_VALUE, STRUCK_VALUE = "\u2205", "x"
VALUE_WORDS = {
    EMPTY_VALUE: {"de": "leer", "en": "empty", "es": "vacía"},
    STRUCK_VALUE: {"de": "gestrichen", "en": "struck", "es": "tachada"},
}
VALUE_PARAMS = frozenset({"value", "read", "first"})  # the params that hold a cell's value


def value_param(v: object) -> str:
    """A cell's value (None, "x" or a number) as a note parameter: see VALUE_WORDS."""
    return EMPTY_VALUE if v is None else STRUCK_VALUE if v == "x" else str(v)


@dataclass(frozen=True)
class Note:
    key: str
    params: tuple[tuple[str, str], ...] = ()

    def text(self, lang: str = "de") -> str:
        table = TEXTS[self.key]
        params = {k: VALUE_WORDS[v].get(lang, VALUE_WORDS[v]["de"])
                  if k in VALUE_PARAMS and v in VALUE_WORDS else v for k, v in self.params}
        return table.get(lang, table["de"]).format(**params)

    def __str__(self) -> str:
        return self.text()

    def __contains__(self, part: str) -> bool:
        return part in self.text()


def note(key: str, **params: object) -> Note:
    """A note by its key in TEXTS; parameters are formatted as given."""
    if key not in TEXTS:
        raise KeyError(f"no note text {key!r}")
    return Note(key, tuple((k, str(v)) for k, v in params.items()))
