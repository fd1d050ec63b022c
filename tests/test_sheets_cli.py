"""`escalero sheet`: good blocks, and bad options that end in a one-line error."""

from __future__ import annotations

import json

import pypdfium2 as pdfium
import pytest
from escalero.sheets.block import make_serials, plan_block
from escalero.sheets.layout import LayoutSpec, SheetOptionError

from escalero.cli import main


def test_block_with_names_pairs_and_layout_json(tmp_path, capsys):
    out, js = tmp_path / "block.pdf", tmp_path / "layout.json"
    rc = main(["sheet", "--names", "Anna,Bert,Cora,Dani,Emil", "--pairs", "--pages", "3",
               "--variant", "strasse-25", "--serial", "abcd", "-o", str(out),
               "--layout-json", str(js)])
    assert rc == 0
    doc = pdfium.PdfDocument(out)
    assert len(doc) == 3
    text = doc[2].get_textpage().get_text_range()
    assert "ABCD-003" in text and "Emil" in text and "Straße 25" in text
    data = json.loads(js.read_text())
    assert data["sides"] == 3 and data["pairs"] and data["variant"] == ["strasse-25"]
    assert len(data["names"]) == 6
    # What was written, in the sheet's language (German by default), counted in words.
    assert f"{out} geschrieben: 3 Seiten, 3 Spieltabellen A4" in capsys.readouterr().out


def test_two_up_with_backs(tmp_path):
    out, js = tmp_path / "b.pdf", tmp_path / "l.json"
    assert main(["sheet", "--two-up", "--pages", "2", "--back", "start-poker", "--lang", "en",
                 "-o", str(out), "--layout-json", str(js)]) == 0
    doc = pdfium.PdfDocument(out)
    assert len(doc) == 4
    assert [round(v) for v in doc[0].get_size()] == [842, 595]  # A4 landscape in points
    assert "START POKER" in doc[1].get_textpage().get_text_range()
    data = json.loads(js.read_text())
    assert data["paper"] == "a5" and data["two_up"]["offset_mm"] == [149.0, 0.0]


def test_generala_sheet(tmp_path):
    out = tmp_path / "g.pdf"
    assert main(["sheet", "--game", "generala", "--players", "8", "--lang", "es",
                 "-o", str(out)]) == 0
    assert "GENERALA" in pdfium.PdfDocument(out)[0].get_textpage().get_text_range()


@pytest.mark.parametrize("argv, code, words", [
    (["--players", "9"], 2, "--pairs"),
    (["--game", "generala", "--players", "9"], 2, "2-8 players"),
    (["--players", "3", "--paper", "a5"], 2, "--paper a4"),
    (["--players", "3", "--pairs"], 2, "at least 4"),
    (["--players", "3", "--names", "A,B"], 2, "--names lists 2"),
    (["--names", "A,,B"], 2, "empty name"),
    (["--names", "Anna," + "B" * 61], 2, "at most 40 characters"),  # settles and saves too
    (["--names", "Anna,B\x07b"], 2, "control character"),
    (["--variant", "triple"], 3, "unknown variant"),
    (["--game", "generala", "--variant", "strasse-25"], 3, "Escalero only"),
    (["--pages", "0"], 2, "--pages"),
    (["--two-up", "--paper", "letter"], 2, "A5"),
    (["--game", "generala", "--back", "start-poker"], 2, "--back"),
    (["--serial", "a/b"], 2, "--serial"),
])
def test_bad_options_fail_with_one_line(tmp_path, capsys, argv, code, words):
    out = tmp_path / "x.pdf"
    assert main(["sheet", *argv, "-o", str(out)]) == code
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err and "Traceback" not in err
    assert not out.exists()


def test_argparse_rejects_unknown_choices(tmp_path):
    with pytest.raises(SystemExit) as exc:
        main(["sheet", "--paper", "a3", "-o", str(tmp_path / "x.pdf")])
    assert exc.value.code == 2


def test_unwritable_output(tmp_path, capsys):
    assert main(["sheet", "-o", str(tmp_path / "missing" / "x.pdf")]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_pairs_are_formed_in_order_and_odd_count_plays_alone():
    block = plan_block("escalero", None, "A,B,C,D,E", True, (), "a4")
    assert block.names == (("A", "B"), ("C", "D"), ("E",))
    assert block.spec == LayoutSpec(sides=3, pairs=True)
    assert plan_block("escalero", 12, None, True, (), "a4").spec.sides == 6
    with pytest.raises(SheetOptionError):
        plan_block("escalero", 13, None, True, (), "a4")


def test_serials_are_unique_and_fit_the_code():
    serials = make_serials(1000)
    assert len(set(serials)) == 1000
    assert serials[0].endswith("-0001") and len({s.split("-")[0] for s in serials}) == 1
    assert make_serials(2, "k7q2") == ["K7Q2-001", "K7Q2-002"]
