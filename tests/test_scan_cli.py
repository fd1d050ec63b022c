"""`escalero scan`: output and exit codes (4 photo, 5 no sheet, 6 unreadable, worst wins)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from escalero.scan import pipeline
from escalero.sheets.layout import LayoutSpec
from scan_support import InkRecognizer, photo_of, written_sheet

from escalero.cli import main as escalero_main


@pytest.fixture(scope="module")
def photos(tmp_path_factory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("photos")
    page = written_sheet(LayoutSpec(), {(0, 0, "nines"): 3, (1, 0, "tens"): 4}, "T-2", 6.0)
    good = photo_of(page, size=(1500, 2000), angle=3)
    blurred = photo_of(page, size=(1500, 2000), angle=3, blur=7.0)
    table = np.full((900, 1200, 3), (60, 90, 120), np.uint8)
    paths = {"good": d / "good.jpg", "blurred": d / "blurred.jpg", "table": d / "table.png",
             "text": d / "notes.jpg"}
    cv2.imwrite(str(paths["good"]), good)
    cv2.imwrite(str(paths["blurred"]), blurred)
    cv2.imwrite(str(paths["table"]), table)
    paths["text"].write_text("not a photo")
    return {k: str(v) for k, v in paths.items()}


@pytest.fixture(autouse=True)
def ink_reader(monkeypatch) -> None:
    monkeypatch.setattr(pipeline, "_recognizer", lambda *_: InkRecognizer())


def test_single_photo_table(photos, capsys) -> None:
    assert escalero_main(["scan", photos["good"], "--names", "Anna,Bernd"]) == 0
    out = capsys.readouterr().out
    assert "Neuner" in out and "Anna" in out and "?" in out
    # The payout's status leads: this sheet is mostly empty, so the payout is provisional.
    assert out.startswith("Auszahlung vorläufig: das Blatt ist nicht fertig")
    assert out.count("gelesen") == 2


def test_single_photo_table_speaks_the_chosen_language(photos, capsys) -> None:
    assert escalero_main(["scan", photos["good"], "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Payout provisional: the sheet is not finished")
    assert "gelesen" not in out and "Summe (geschrieben)" not in out


def test_single_photo_json(photos, capsys) -> None:
    assert escalero_main(["scan", photos["good"], "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert len(obj["review"]) == 2 and "settlement" in obj and "validation" in obj
    assert obj["settlement"]["certain"] is False  # unfinished: never certain
    assert all(isinstance(r["affects_payout"], bool) for r in obj["review"])
    assert {(r["side"], r["column"], r["row"]) for r in obj["readings"]} >= {
        (r["side"], r["column"], r["row"]) for r in obj["review"]}


@pytest.mark.parametrize("name, code", [("text", 4), ("table", 5), ("blurred", 6)])
def test_exit_codes(photos, capsys, name, code) -> None:
    assert escalero_main(["scan", photos[name]]) == code
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error" in err


@pytest.mark.parametrize("lang, words", [
    ("de", "kein Spielblatt gefunden"), ("es", "no se encontró ninguna hoja"),
    ("en", "no score sheet found")])
def test_a_refusal_speaks_the_chosen_language(photos, capsys, lang, words) -> None:
    """`--lang` words the refusal too, for one photo and in a batch; the exit code stays."""
    assert escalero_main(["scan", photos["table"], "--lang", lang]) == 5
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1
    assert escalero_main(["scan", photos["table"], photos["blurred"], "--lang", lang]) == 6
    err = capsys.readouterr().err
    assert words in err
    if lang != "en":
        assert "no score sheet" not in err and "too blurred" not in err


def test_every_refusal_without_parameters_has_its_german_and_spanish_words() -> None:
    from escalero.scan import grid, locate, pipeline, rectify
    from escalero.scan.refusals import refusal_text
    from escalero.scoring.errors import EscaleroError, Reason

    # LAYOUT_CONFLICT and LAYOUT_NOT_AS_NAMED name what was found (tests/test_i18n.py).
    texts = {Reason.NO_SHEET: locate.NO_SHEET, Reason.TWO_SHEETS: locate.TWO_SHEETS,
             Reason.NO_LAYOUT: pipeline.NO_LAYOUT, Reason.TOO_SMALL: rectify.TOO_SMALL,
             Reason.TOO_BLURRED: rectify.TOO_BLURRED, Reason.OUT_OF_VIEW: rectify.OUT_OF_VIEW,
             Reason.GRID_MISSING: grid.GRID_MISSING}
    assert set(texts) == set(Reason) - {Reason.LAYOUT_CONFLICT, Reason.LAYOUT_NOT_AS_NAMED}
    for reason, english in texts.items():
        err = EscaleroError(english, reason=reason)
        assert refusal_text(err, "en") == english
        worded = {lang: refusal_text(err, lang) for lang in ("de", "es")}
        assert english not in worded.values() and all(worded.values()), reason


def test_batch_continues_and_returns_the_worst(photos, capsys) -> None:
    argv = ["scan", photos["good"], photos["text"], photos["blurred"], "--json"]
    assert escalero_main(argv) == 6
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines()]
    assert [("error" in obj) for obj in lines] == [False, True, True]
    assert lines[0]["photo"] == photos["good"] and "settlement" in lines[0]
    assert "[3/3]" in captured.err


def test_parallel_jobs(photos, capsys) -> None:
    argv = ["scan", photos["good"], photos["table"], photos["good"], "--json", "--jobs", "2"]
    assert escalero_main(argv) == 5
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [("error" in obj) for obj in lines] == [False, True, False]


def test_layout_options_and_debug(photos, capsys, tmp_path) -> None:
    argv = ["scan", photos["good"], "--players", "2", "--debug", str(tmp_path), "--stake", "0.5"]
    assert escalero_main(argv) == 0
    assert (tmp_path / "sheet_overlay.png").exists()
    assert "€\u00a00,50 pro Partiepunkt" in capsys.readouterr().out  # money as de-AT writes it
    assert escalero_main(["scan", photos["good"], "--players", "9"]) == 2
