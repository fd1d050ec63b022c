"""Printed words: taken from the ruleset, in every language."""

from __future__ import annotations

import pytest
from escalero.scoring.errors import UnknownRulesError
from escalero.scoring.house import PRESETS, HouseRules
from escalero.scoring.rulesets import LANGUAGES, get_ruleset
from escalero.sheets import texts


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_row_has_a_label_with_its_values(lang):
    for game, variants in [("escalero", ()), ("escalero", ("doppel-grande", "strasse-25")),
                           ("generala", ())]:
        rules = get_ruleset(game, variants)
        for row in rules.rows:
            name, detail, face = texts.row_label(rules, row.id, lang)
            assert name == row.labels.get(lang)
            printed = detail + face
            for value in (row.face_value,) if row.is_counting_row else row.allowed:
                if game == "escalero" or not row.is_counting_row:
                    assert str(value) in printed, (row.id, printed)
        assert texts.row_label(rules, "total", lang)[0] == texts.strings(lang)["total"]


def test_escalero_labels_piatnik_style():
    rules = get_ruleset("escalero", ("strasse-25",))
    assert texts.row_label(rules, "nines", "de") == ("Neuner", "", "9 | 1")
    assert texts.row_label(rules, "straight", "de") == ("Straße", "25 / 30 serv.", "")


def test_die_faces_are_named_in_the_sheets_language():
    rules = get_ruleset("escalero")
    assert texts.row_label(rules, "jacks", "de")[2] == "B | 3"
    assert texts.row_label(rules, "queens", "de")[2] == "D | 4"
    for lang in ("en", "es"):
        assert texts.row_label(rules, "jacks", lang)[2] == "J | 3"
        assert texts.row_label(rules, "queens", lang)[2] == "Q | 4"
        assert texts.row_label(rules, "kings", lang)[2] == "K | 5"


def test_legend_follows_the_ruleset():
    assert texts.legend(get_ruleset("escalero"), "de")[0] == (
        "Partiepunkte von jedem Gegner: Kolonnen 1/2/4 · alle drei +2 · Gleichstand oben: niemand")
    assert "Columns 1/2/3 · all three +2" in texts.legend(
        get_ruleset("escalero", ("weights-123",)), "en")[0]
    assert "Grande +30" in texts.legend(get_ruleset("escalero"), "de")[1]
    dg = texts.legend(get_ruleset("escalero", ("doppel-grande",)), "de")[1]
    assert "Poker +5" in dg and "Grande" not in dg
    gen = texts.legend(get_ruleset("generala"), "es")
    assert gen[1].endswith("+5") and "Doble Generala" in gen[2]


def test_unknown_language():
    with pytest.raises(UnknownRulesError, match="choose one of"):
        texts.strings("fr")


def test_piatnik_words_in_german():
    """Piatnik's leaflet says Kolonne, Partiepunkte, gestrichen, serviert."""
    t = texts.strings("de")
    assert (t["column"], t["columns"]) == ("Kolonne", "Kolonnen")
    printed = " ".join([*t.values(), *texts.legend(get_ruleset("escalero", ("one-column",)), "de"),
                        *texts.legend(get_ruleset("escalero"), "de")])
    assert "Spalte" not in printed and "Seite" not in printed
    assert "gestrichen" in printed and "serviert" in printed and "Partiepunkt" in printed
    assert texts.legend(get_ruleset("escalero", ("one-column",)), "de")[0] == (
        "Sieger: 1 Partiepunkt von jedem Gegner")


def test_spanish_words():
    t = texts.strings("es")
    assert t["column"] == "Columna" and t["struck"].startswith("tachado")
    assert "servido" in t["served_long"]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_language_has_every_string(lang):
    assert texts.strings(lang).keys() == texts.strings("de").keys()


def test_footer_states_the_house_rules_in_force():
    wirtshaus = texts.legend(get_ruleset("escalero"), "de", PRESETS["wirtshaus"])[0]
    assert wirtshaus == ("Partiepunkte von jedem Gegner: Kolonnen 1/2/4 · alle drei +3 · "
                         "Gleichstand oben geteilt")
    custom = HouseRules(column_points=(1, 3, 5), all_three_bonus=0)
    assert "Columns 1/3/5 · all three +0" in texts.legend(get_ruleset("escalero"), "en", custom)[0]
    one = texts.legend(get_ruleset("escalero", ("one-column",)), "de", PRESETS["wirtshaus"])[0]
    assert one == "Sieger: 1 Partiepunkt von jedem Gegner · Gleichstand oben geteilt"
