"""The scanner's notes on a cell speak the language asked for, with every text in all three."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from escalero.scan.notes import TEXTS, note
from escalero.scan.pipeline import ScanOptions, scan_photo

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "photos" / "02-3-players.jpg"
GERMAN = re.compile(r"Summe|Kolonne|prüfen|gestützt|bestätigt|Lage|gelesen|Auszahlung")


def test_every_note_has_all_three_languages_with_the_same_fields() -> None:
    for key in TEXTS:
        params = dict.fromkeys(re.findall(r"{(\w+)}", TEXTS[key]), "7")
        texts = {lang: note(key, **params).text(lang) for lang in ("de", "en", "es")}
        assert texts["en"] == TEXTS[key].format(**params), key
        assert texts["de"] != texts["en"] != texts["es"], key
        assert all("{" not in text and text.count("7") == texts["en"].count("7")
                   for text in texts.values()), key


def test_a_note_keeps_its_parameters_for_each_language() -> None:
    n = note("check_column", sum=129, written=131)
    assert n.text("de") == "Kolonne ergibt 129, Summe geschrieben 131: Kolonne prüfen"
    assert "129" in n.text("en") and "131" in n.text("es")
    assert "Kolonne prüfen" in n and str(n) == n.text("de")
    with pytest.raises(KeyError):
        note("no such note")


def test_an_empty_or_struck_value_in_a_note_is_a_word_of_its_language() -> None:
    from escalero.scan.notes import value_param

    by_total = note("by_total", read=value_param("x"), first=value_param(6))
    assert by_total.text("en") == "by the total: struck, not 6"
    assert by_total.text("de") == "nach Summe: gestrichen statt 6"
    assert "tachada" in by_total.text("es")
    fits = note("total_fits", written=120, value=value_param(None))
    assert fits.text("en") == "the total 120 fits empty" and "leer" in fits.text("de")
    assert note("total_fits", written=120, value=value_param(12)).text("en").endswith("12")


@pytest.mark.parametrize("lang", ["en", "es"])
def test_review_notes_of_a_real_scan_are_in_the_options_language(lang: str) -> None:
    result = scan_photo(str(SAMPLE), ScanOptions(lang=lang))
    notes = [item["note"] for item in result.review if "note" in item]
    assert notes, "the sample's totals check leaves notes on some cells"
    assert not [n for n in notes if GERMAN.search(n)]
    # An unnamed sheet's sides are named in the same language.
    word = {"en": "Player", "es": "Jugador"}[lang]
    assert [side["name"] for side in result.sheet_json["sides"]] == [
        f"{word} {i}" for i in (1, 2, 3)]
    german = scan_photo(str(SAMPLE), ScanOptions(lang="de"))
    assert any(GERMAN.search(item.get("note", "")) for item in german.review)
