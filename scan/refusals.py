"""The scanner's refusals in the user's language (`escalero scan --lang de|es`).

The English text is each error's own (raised where the stage refuses); German and Spanish
come from the refusal's stable reason (`scoring.errors.Reason`). A refusal whose text
names what was found (a conflicting code, the options given) stays in English.
"""

from __future__ import annotations

from escalero.scoring.errors import EscaleroError, Reason

REFUSALS: dict[Reason, dict[str, str]] = {
    Reason.NO_SHEET: {
        "de": "kein Spielblatt gefunden: das Handy so halten, dass alle vier Eckmarken im "
              "Bild sind",
        "es": "no se encontró ninguna hoja: sostenga el teléfono de modo que las cuatro "
              "marcas de las esquinas estén en la imagen"},
    Reason.TWO_SHEETS: {
        "de": "zwei Spielblätter im Bild: ein Blatt nach dem anderen fotografieren (das "
              "andere abdecken oder wegfalten)",
        "es": "dos hojas en la imagen: fotografíe una hoja a la vez (tape o doble la otra)"},
    Reason.NO_LAYOUT: {
        "de": "Blatt gefunden, aber sein QR-Code ist unlesbar: das Layout mit --game und "
              "--players angeben (und --pairs, --variant, --paper, falls verwendet)",
        "es": "hoja encontrada, pero su código QR es ilegible: indique el diseño con --game "
              "y --players (y --pairs, --variant, --paper si se usan)"},
    Reason.TOO_SMALL: {
        "de": "Blatt zu klein im Bild, um es sicher zu lesen: näher herangehen, bis das "
              "Blatt das Bild füllt",
        "es": "la hoja sale demasiado pequeña para leerla con seguridad: acérquese hasta "
              "que la hoja llene la imagen"},
    Reason.TOO_BLURRED: {
        "de": "Blatt zu unscharf, um es sicher zu lesen: ruhig halten, die Kamera scharf "
              "stellen lassen, mehr Licht",
        "es": "hoja demasiado borrosa para leerla con seguridad: no se mueva, deje enfocar "
              "la cámara, use más luz"},
    Reason.OUT_OF_VIEW: {
        "de": "ein Teil der Tabelle liegt außerhalb des Bildes: das Handy so halten, dass "
              "das ganze Blatt im Bild ist",
        "es": "parte de la tabla queda fuera de la imagen: sostenga el teléfono de modo "
              "que toda la hoja esté en la imagen"},
    Reason.GRID_MISSING: {
        "de": "die gedruckte Tabelle liegt nicht dort, wo das Layout sie hat: das ganze "
              "Blatt flach fotografieren oder --game/--players/--variant prüfen",
        "es": "la tabla impresa no está donde la pone el diseño: fotografíe la hoja entera "
              "y plana, o revise --game/--players/--variant"},
}


def refusal_text(err: EscaleroError, lang: str) -> str:
    """The refusal's one line in `lang` (its own English text where there is none)."""
    texts = REFUSALS.get(err.reason) if err.reason is not None else None
    return (texts or {}).get(lang) or str(err)


def in_language(err: EscaleroError, lang: str | None) -> EscaleroError:
    """`err` with its message in `lang` (None: as raised); the same error otherwise."""
    if lang is not None:
        err.args = (refusal_text(err, lang),)
    return err
