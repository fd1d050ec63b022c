"""The text catalog (escalero/locale): complete, compiled, and used in every language."""

from __future__ import annotations

import importlib.util
import json
import re
import string
from pathlib import Path
from types import ModuleType

import pytest
from escalero.scoring import rulesets

from escalero import i18n
from escalero.cli import main as escalero_main

ROOT = Path(__file__).resolve().parents[1]
NO_SHEET_PHOTO = ROOT / "samples" / "photos" / "14-no-sheet.jpg"
# Words only German output has (Piatnik's terms and the scanner's own); "leer" (empty) is
# also Spanish (to read), so only English output is checked for it.
GERMAN = re.compile(r"\b(Summe|Kolonnen?|gestrichen|serviert|Spieler|Partiepunkte?|Kassa|"
                    r"Auszahlung|gelesen|prüfen|Feld(ern)?|Zahlungen|Spieltabelle)\b")


def _german_in(text: str, lang: str) -> re.Match[str] | None:
    return GERMAN.search(text) or (re.search(r"\bleer\b", text) if lang == "en" else None)


def _catalog_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("catalog", ROOT / "tools" / "catalog.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    return _catalog_tool()


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_the_committed_mo_files_are_the_po_files_compiled(tool: ModuleType,
                                                          tmp_path: Path) -> None:
    tool.compile_catalogs(target=tmp_path)
    for lang in i18n.LANGUAGES:
        built = tool.po_path(lang, tmp_path).with_suffix(".mo").read_bytes()
        committed = tool.po_path(lang).with_suffix(".mo").read_bytes()
        assert built == committed, f"{lang}: run `python tools/catalog.py compile`"


def test_every_message_of_the_code_is_in_each_catalog_and_translated(tool: ModuleType) -> None:
    extracted = {(m.context, m.id) for m in tool.extract() if m.id}
    assert len(extracted) >= 300  # the scanner, the settlement, the sheet and the web app
    for lang in i18n.LANGUAGES:
        catalog = {(m.context, m.id): m for m in tool.read(lang) if m.id}
        assert set(catalog) == extracted, f"{lang}: run `python tools/catalog.py`"
        if lang == "en":  # English is the msgids themselves
            continue
        untranslated = [key for key, m in catalog.items()
                        if not all(m.string if isinstance(m.string, tuple) else (m.string,))]
        assert not untranslated, (lang, untranslated)


@pytest.mark.parametrize("lang", ["de", "es"])
def test_a_translation_has_the_placeholders_of_its_msgid(tool: ModuleType, lang: str) -> None:
    for m in tool.read(lang):
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        forms = m.string if isinstance(m.string, tuple) else (m.string,)
        # de, en and es have two plural forms, as English has: each matches its msgid.
        for msgid, form in zip(ids, forms, strict=True):
            assert _fields(form) == _fields(msgid), (lang, m.id, form)


def test_one_language_list() -> None:
    assert i18n.LANGUAGES == ("de", "en", "es")
    assert rulesets.LANGUAGES is i18n.LANGUAGES
    with pytest.raises(ValueError, match="choose one of"):
        i18n.translator("fr")


@pytest.mark.parametrize("lang, one, two", [
    ("de", "1 Partiepunkt", "2 Partiepunkte"), ("en", "1 point", "2 points"),
    ("es", "1 punto", "2 puntos")])
def test_plural_forms(lang: str, one: str, two: str) -> None:
    t = i18n.translator(lang)
    assert [t.ngettext("{n} point", "{n} points", n).format(n=n) for n in (1, 2)] == [one, two]


def test_a_count_of_cells_takes_its_plural_form() -> None:
    t = i18n.translator("de")
    hangs = ("Payout depends on {n} cell (certain to {p}):",
             "Payout depends on {n} cells (certain to {p}):")
    assert t.ngettext(*hangs, 1).format(n=1, p="90%") == \
        "Auszahlung hängt an 1 Feld (sicher zu 90%):"
    assert t.ngettext(*hangs, 2).format(n=2, p="90%") == \
        "Auszahlung hängt an 2 Feldern (sicher zu 90%):"


@pytest.mark.parametrize("lang, words", [
    ("de", "kein Spielblatt gefunden"), ("es", "no se encontró ninguna hoja")])
def test_the_no_sheet_sample_is_refused_in_the_chosen_language(capsys, lang: str,
                                                              words: str) -> None:
    assert escalero_main(["scan", str(NO_SHEET_PHOTO), "--lang", lang]) == 5
    err = capsys.readouterr().err
    assert words in err and "no score sheet" not in err


@pytest.mark.parametrize("lang", ["en", "es"])
def test_settle_and_rules_say_no_german_word_in_english_or_spanish(capsys, tmp_path: Path,
                                                                   lang: str) -> None:
    sheet = json.loads((ROOT / "samples" / "photos" / "02-3-players.json").read_text())["sheet"]
    del sheet["sides"][0]["columns"][0]["nines"]  # a problem to word, too
    path = tmp_path / "sheet.json"
    path.write_text(json.dumps(sheet))
    assert escalero_main(["settle", str(path), "--lang", lang, "--stake", "0.5"]) == 0
    assert escalero_main(["rules", "--game", "escalero", "--lang", lang]) == 0
    out = capsys.readouterr().out
    assert out and not _german_in(out, lang), _german_in(out, lang)


@pytest.mark.parametrize("lang, missing, not_photo", [
    ("de", "keine solche Datei", "kein Bild"), ("es", "no existe ese archivo", "no es una imagen"),
    (None, "no such file", "not an image")])
def test_a_photo_error_speaks_the_chosen_language(capsys, lang: str | None, missing: str,
                                                  not_photo: str) -> None:
    chosen = ["--lang", lang] if lang else []
    assert escalero_main(["scan", str(ROOT / "no-such-photo.jpg"), *chosen]) == 4
    assert escalero_main(["scan", str(ROOT / "README.md"), *chosen]) == 4
    err = capsys.readouterr().err.splitlines()
    assert missing in err[0] and "no-such-photo.jpg" in err[0]
    assert not_photo in err[1] and "README.md" in err[1]


@pytest.mark.parametrize("lang, words", [
    ("de", "keine solche Datei"), ("es", "no existe ese archivo"), ("en", "no such file")])
def test_a_sheet_file_error_speaks_the_chosen_language(capsys, lang: str, words: str) -> None:
    assert escalero_main(["settle", str(ROOT / "no-such-sheet.json"), "--lang", lang]) == 3
    err = capsys.readouterr().err
    assert words in err and "no-such-sheet.json" in err and err.count("\n") == 1


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_web_pages_say_no_german_word_in_english_or_spanish(tmp_path: Path,
                                                                lang: str) -> None:
    pytest.importorskip("httpx")
    from escalero.web.app import create_app
    from escalero.web.config import WebConfig
    from fastapi.testclient import TestClient

    with TestClient(create_app(WebConfig(db_path=tmp_path / "ledger.sqlite3"))) as client:
        for path in ("/", "/tafel", "/scan", "/print", "/ledger"):
            page = client.get(path, params={"lang": lang})
            assert page.status_code == 200, path
            found = _german_in(page.text, lang)
            assert not found, (path, found)


@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_scan_says_no_german_word_in_english_or_spanish(capsys, lang: str) -> None:
    photo = ROOT / "samples" / "photos" / "02-3-players.jpg"
    assert escalero_main(["scan", str(photo), "--lang", lang, "--stake", "0.5"]) == 0
    out = capsys.readouterr().out
    assert out and not _german_in(out, lang), _german_in(out, lang)


@pytest.mark.parametrize("lang, money, share", [
    ("de", "-€\u00a04,50", "99,6\u00a0%"), ("en", "-€4.50", "99.6%"),
    ("es", "-4,50\u00a0€", "99,6\u00a0%")])
def test_money_and_shares_as_each_language_writes_them(lang: str, money: str,
                                                       share: str) -> None:
    from decimal import Decimal

    assert i18n.money("-4.50", "EUR", lang) == money
    assert i18n.percent(Decimal("0.996"), lang, 1) == share


# English words that no German or Spanish error holds, once option names, quoted values
# and paths are taken out ("error" is Spanish too: it is looked for in German only).
ENGLISH = re.compile(r"\b(the|is|are|must|give|not|unknown|invalid|argument|arguments|"
                     r"required|choose|cannot|should|drop|expected|sheet|sides?|players?|"
                     r"columns?|stake|file|number|only|fewer|more|most|least)\b")
NOT_WORDS = re.compile(r"^escalero \w+:|--[\w-]+|\w+-[\w-]+|'[^']*'|\"[^\"]*\"|\S*/\S*")


def _english_in(line: str, lang: str) -> re.Match[str] | None:
    words = NOT_WORDS.sub(" ", line)
    return ENGLISH.search(words) or (re.search(r"\berror\b", words) if lang == "de" else None)


def _bad_input(tmp_path: Path) -> dict[str, Path]:
    files = {"notjson": "{not json", "game": '{"game": 5, "sides": []}',
             "row": '{"sides": [{"name": "A", "columns": [{"foo": 3}, {}, {}]}]}',
             "range": '{"sides": [{"name": "A", "columns": [{"nines": 99999999}, {}, {}]}]}',
             "house": '{"column_points": [4, 2, 1]}'}
    for name, text in files.items():
        (tmp_path / f"{name}.json").write_text(text)
    return {name: tmp_path / f"{name}.json" for name in files}


# Each way a command line goes wrong, with its exit code: argparse's own refusals, option
# values, a sheet file's content, house rules, the sheet planner and the scan options.
BAD_COMMAND_LINES = [
    (["sheet", "--game", "poker", "-o", "{tmp}/x.pdf"], 2),
    (["sheet", "--players", "zwei", "-o", "{tmp}/x.pdf"], 2),
    (["sheet"], 2),
    (["settle", "{notjson}", "--bogus"], 2),
    (["settle", "{notjson}", "--stake"], 2),
    (["rules", "--game", "poker"], 2),
    (["scan", "--recognizer", "foo", "{tmp}/x.jpg"], 2),
    (["settle", "{notjson}", "--stake", "abc"], 2),
    (["settle", "{notjson}", "--stake", "0.001"], 2),
    (["settle", "{notjson}", "--currency", "EUROLONGXX"], 2),
    (["settle", "{notjson}"], 3),
    (["settle", "{game}"], 3),
    (["settle", "{row}"], 3),
    (["settle", "{range}"], 3),
    (["settle", "{row}", "--house-rules", "{house}"], 3),
    (["settle", "{row}", "--house-rules", "bogus"], 2),
    (["settle", "{row}", "--column-points", "x"], 2),
    (["rules", "--game", "generala", "--house-rules", "wirtshaus"], 2),
    (["rules", "--variant", "bogus"], 3),
    (["dice", "9", "9", "9", "9", "Z"], 2),
    (["sheet", "--players", "9", "-o", "{tmp}/x.pdf"], 2),
    (["sheet", "--game", "generala", "--pairs", "-o", "{tmp}/x.pdf"], 2),
    (["sheet", "--serial", "!!", "-o", "{tmp}/x.pdf"], 2),
    (["sheet", "-o", "{tmp}/no-such-folder/x.pdf"], 2),
    (["scan", "--jobs", "0", "{tmp}/x.jpg"], 2),
    (["scan", "--debug", "{house}", "{tmp}/x.jpg"], 2),
]


def _error_line(capsys, argv: list[str], code: int) -> str:
    try:
        got = escalero_main(argv)
    except SystemExit as stop:  # argparse's refusals
        got = int(stop.code or 0)
    lines = capsys.readouterr().err.splitlines()
    assert got == code and lines, (argv, got)
    return lines[-1]


@pytest.mark.parametrize("argv, code", BAD_COMMAND_LINES, ids=lambda v: " ".join(v)
                         if isinstance(v, list) else str(v))
def test_an_error_speaks_the_chosen_language(capsys, tmp_path: Path, argv: list[str],
                                             code: int) -> None:
    paths = {"tmp": tmp_path, **_bad_input(tmp_path)}
    argv = [a.format(**paths) for a in argv]
    english = _error_line(capsys, argv, code)
    assert not _german_in(english, "en"), english  # without --lang: English
    assert _english_in(english, "de"), english  # which the check below would catch
    for lang in ("de", "es"):
        line = _error_line(capsys, [*argv, "--lang", lang], code)
        assert line != english and not _english_in(line, lang), (lang, line)
        if lang == "es":
            assert not _german_in(line, lang), line


def test_an_option_error_shows_the_usage_in_the_language_and_help_stays_english(
        capsys) -> None:
    with pytest.raises(SystemExit):
        escalero_main(["rules", "--game", "poker", "--lang", "de"])
    err = capsys.readouterr().err
    assert err.startswith("Aufruf: escalero rules") and "Fehler: Angabe --game" in err
    with pytest.raises(SystemExit):
        escalero_main(["rules", "--lang", "es", "--help"])
    assert capsys.readouterr().out.startswith("usage: escalero rules")
    with pytest.raises(SystemExit):  # argparse speaks English again after a German refusal
        escalero_main(["rules", "--game", "poker"])
    assert "invalid choice: 'poker'" in capsys.readouterr().err


@pytest.mark.parametrize("lang", ["de", "es"])
def test_a_layout_named_against_the_sheets_own_is_refused_in_the_chosen_language(
        capsys, lang: str) -> None:
    photo = ROOT / "samples" / "photos" / "02-3-players.jpg"
    english = _error_line(capsys, ["scan", str(photo), "--players", "5"], 2)
    assert "options name 5 players, but the sheet's QR code names 3 players" in english
    line = _error_line(capsys, ["scan", str(photo), "--players", "5", "--lang", lang], 2)
    assert line != english and not _english_in(line, lang), line


def test_a_batch_says_each_photos_error_in_the_chosen_language(capsys) -> None:
    photos = [str(NO_SHEET_PHOTO), str(ROOT / "README.md")]
    assert escalero_main(["scan", *photos, "--lang", "de"]) == 5
    errors = [line for line in capsys.readouterr().err.splitlines() if line[:1] != "["]
    assert len(errors) == 2, errors
    assert all(line.startswith("escalero scan: Fehler: ") and not _english_in(line, "de")
               for line in errors), errors
