"""Validation messages and table words in every language (placeholders: tests/test_i18n.py)."""

from __future__ import annotations

from typing import Any

import pytest
from escalero.scoring import text
from escalero.scoring.dice import POKER_CATEGORIES
from escalero.scoring.errors import UnknownRulesError
from escalero.scoring.model import Sheet
from escalero.scoring.report import settle_report
from escalero.scoring.rulesets import LANGUAGES, get_ruleset
from escalero.scoring.validate import describe_allowed, validate


def _sheet(**overrides: Any) -> Sheet:
    anna = {"name": "Anna", "columns": [{"nines": 7}, {}, {}], "written_totals": [888, None, None]}
    ben = {"name": "Ben", "columns": [{}, {}, {}]}
    return Sheet.from_json({"game": "escalero", "sides": [anna, ben], **overrides})


GENERALA = {"game": "generala", "sides": [
    {"name": "Ana", "columns": [{"generala": "x", "doble_generala": 100}]},
    {"name": "Luis", "columns": [{"doble_generala": 105, "escalera": 30}]}]}

EXPECTED = {
    "de": ["Anna, Kolonne I, Neuner: 7 ist in Neuner nicht erlaubt (1-5)",
           "Anna, Kolonne I, Zehner: Zehner ist leer; Wert eintragen oder streichen (x)",
           "Anna, Kolonne I, Summe: Summe geschrieben 888, die Einträge ergeben 7; "
           "es zählen die Einträge"],
    "en": ["Anna, column I, Nines: 7 is not allowed in Nines (1-5)",
           "Anna, column I, Tens: Tens is empty; write a value or strike it (x)",
           "Anna, column I, Total: written total 888 differs from the sum of the entries 7; "
           "the entries count"],
    "es": ["Anna, columna I, Nueves: 7 no está permitido en Nueves (1-5)",
           "Anna, columna I, Dieces: Dieces sin anotar; anote un valor o tache la casilla (x)",
           "Anna, columna I, Total: total escrito 888, las anotaciones suman 7; "
           "cuentan las anotaciones"],
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_escalero_messages(lang: str) -> None:
    got = [str(p) for p in validate(_sheet(), lang)]
    for line in EXPECTED[lang]:
        assert line in got


REQUIRES = {
    "de": ("Ana, Doble Generala: Doble Generala 100 ohne Generala (Generala ist gestrichen); "
           "Doble Generala streichen oder Generala berichtigen",
           "Luis, Escalera: 30 ist in Escalera nicht erlaubt (20, serviert 25)",
           "Luis, Doble Generala: Doble Generala 105 ohne Generala (Generala ist leer); "
           "Doble Generala streichen oder Generala berichtigen"),
    "en": ("Ana, Double Generala: Double Generala 100 needs a Generala first, but Generala "
           "is struck; strike Double Generala or correct Generala",
           "Luis, Straight: 30 is not allowed in Straight (20, served 25)",
           "Luis, Double Generala: Double Generala 105 needs a Generala first, but Generala "
           "is empty; strike Double Generala or correct Generala"),
    "es": ("Ana, Doble Generala: Doble Generala 100 sin Generala (Generala: tachado); "
           "tache Doble Generala o corrija Generala",
           "Luis, Escalera: 30 no está permitido en Escalera (20, servido 25)",
           "Luis, Doble Generala: Doble Generala 105 sin Generala (Generala: vacío); "
           "tache Doble Generala o corrija Generala"),
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_generala_messages(lang: str) -> None:
    got = [str(p) for p in validate(Sheet.from_json(GENERALA), lang) if p.kind != "empty"]
    assert got == list(REQUIRES[lang])


SHAPE_WORDS = {"de": ("Spieltabelle: nur 1 Partei: Eskalero braucht mindestens 2", "Mitspieler",
                      "7 Parteien: Eskalero spielen höchstens 6", "Spieler 'Anna' steht 2-mal"),
               "en": ("sheet: only 1 side: Escalero needs at least 2", "members",
                      "7 sides: Escalero is played by at most 6", "player 'Anna' appears 2"),
               "es": ("planilla: solo 1 equipo: Escalero necesita al menos 2", "integrantes",
                      "7 equipos: Escalero se juega como máximo entre 6",
                      "el jugador 'Anna' aparece 2")}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_shape_messages(lang: str) -> None:
    one = [str(p) for p in validate(_sheet(sides=[
        {"name": "A", "members": ["A", "B", "C"], "columns": [{}, {}, {}]}]), lang)
        if p.kind == "shape"]
    seven = [str(p) for p in validate(_sheet(sides=[
        {"name": f"P{i}", "members": ["Anna" if i < 2 else f"P{i}"], "columns": [{}, {}, {}]}
        for i in range(7)]), lang) if p.kind == "shape"]
    few, members, many, duplicate = SHAPE_WORDS[lang]
    assert one[0].startswith(few) and members in one[1]
    sheet = {"de": "Spieltabelle", "en": "sheet", "es": "planilla"}[lang]
    assert seven[0].startswith(f"{sheet}: {many}")
    assert duplicate in seven[1]


def test_kinds_and_places_do_not_depend_on_language() -> None:
    runs = [validate(Sheet.from_json(GENERALA), lang) for lang in LANGUAGES]
    assert len({tuple((p.kind, p.side, p.column, p.row) for p in run) for run in runs}) == 1
    assert len({run[0].message for run in runs}) == len(LANGUAGES)


def test_settle_report_passes_lang_through_english_by_default() -> None:
    sheet = _sheet()
    assert settle_report(sheet)["validation"] == settle_report(sheet, lang="en")["validation"]
    de = settle_report(sheet, "0.50", lang="de")["validation"]
    assert de[0]["message"] == "7 ist in Neuner nicht erlaubt (1-5)"
    assert de[0]["where"] == "Anna, Kolonne I, Neuner"


def test_describe_allowed_words() -> None:
    rules = get_ruleset("escalero", ("doppel-grande",))
    assert describe_allowed(rules.row("double_grande"), "de") == "100 (serviert)"
    assert describe_allowed(rules.row("poker"), "es") == "40, servido 45"
    assert describe_allowed(rules.row("poker"), "en") == rules.row("poker").describe_allowed()
    assert describe_allowed(rules.row("nines"), "de") == "1-5"


def test_unknown_language() -> None:
    with pytest.raises(UnknownRulesError, match="choose one of"):
        validate(_sheet(), "fr")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_start_poker_hand_is_named(lang: str) -> None:
    names = [text.hand_name(hand, lang) for hand in POKER_CATEGORIES]
    assert len(set(names)) == len(POKER_CATEGORIES) and all(names)
    assert text.hand_name("three of a kind", "de") == "drei gleiche"
    assert text.hand_name("three of a kind", "es") == "trío"
