"""A sheet whose QR code names another layout than its corner marks (a code pasted over,
or another sheet's) is refused with its reason, never read by the code and settled as
certain; layout options that name another sheet than the photographed one are refused
too. The photos are the real printed sheet with the renderer's own QR code of another
spec pasted over the printed one."""

from __future__ import annotations

import numpy as np
import pytest
from escalero.scan.pipeline import ScanOptionError, ScanOptions, scan_photo
from escalero.scoring.errors import Reason, SheetNotFoundError
from escalero.sheets.layout import LayoutSpec, encode_code
from scan_support import InkRecognizer, encode_jpeg, paste_code, photo_of, written_sheet

PPM = 6.0
SERIAL = "K7Q2-001"
THREE = LayoutSpec(sides=3)
ENTRIES = {(0, 0, "nines"): 3, (1, 1, "poker"): 45, (2, 2, "grande"): 80, (0, 0, "total"): 3}


def _photo(spec: LayoutSpec, code: str | None = None) -> bytes:
    page = written_sheet(spec, ENTRIES, SERIAL, PPM)
    if code is not None:
        paste_code(page, spec, code, PPM)
    return encode_jpeg(photo_of(page, size=(1500, 2000), angle=3, seed=5))


def _scan(photo: bytes, **options: object):
    return scan_photo(photo, ScanOptions(**options), recognizer=InkRecognizer())


@pytest.mark.parametrize("forged", [
    LayoutSpec(variants=("weights-123",), sides=3),  # the payout changes, the grid not
    LayoutSpec(sides=2),  # a player would be dropped
    LayoutSpec(sides=2, pairs=True),
    LayoutSpec(sides=3, paper="a5"),  # no sheet: three sides do not fit on A5
    LayoutSpec(sides=3, version=1),
], ids=["weights-123", "2-sides", "pairs", "a5", "version-1"])
def test_a_code_naming_another_layout_than_the_marks_is_refused(forged) -> None:
    with pytest.raises(SheetNotFoundError) as err:
        _scan(_photo(THREE, encode_code(forged, SERIAL)))
    assert err.value.reason == Reason.LAYOUT_CONFLICT
    message = str(err.value)
    assert len(message.splitlines()) == 1
    assert "QR code" in message and "corner marks name escalero, 3 players" in message
    assert "photograph the sheet with its own code" in message


def test_the_sheets_own_code_still_reads_by_the_code() -> None:
    result = _scan(_photo(THREE, encode_code(THREE, SERIAL)))
    assert result.layout_source == "qr" and result.sheet_json["serial"] == SERIAL
    assert result.geometry.n_sides == 3


@pytest.mark.parametrize("forged", [
    LayoutSpec(sides=3),  # version 2: its marks would carry the spec, these are ids 0-3
    LayoutSpec(sides=6, version=1),  # printed landscape: the marks lie elsewhere
    LayoutSpec(sides=2, paper="a5", version=1),
    LayoutSpec(sides=3, paper="letter", version=1),  # its frame fits A4 marks, but worse
], ids=["version-2-code", "landscape-code", "a5-code", "letter-code"])
def test_an_old_sheet_with_a_code_its_marks_cannot_have_is_refused(forged) -> None:
    old = LayoutSpec(sides=3, version=1)
    with pytest.raises(SheetNotFoundError) as err:
        _scan(_photo(old, encode_code(forged, SERIAL)))
    assert err.value.reason == Reason.LAYOUT_CONFLICT


def test_an_old_sheet_still_reads_by_its_code() -> None:
    old = LayoutSpec(sides=3, version=1)  # ids 0-3: the marks name no layout
    result = _scan(_photo(old))
    assert result.layout_source == "qr" and result.geometry.n_sides == 3


def test_layout_options_that_name_another_sheet_are_refused() -> None:
    photo = _photo(THREE)
    with pytest.raises(ScanOptionError) as err:
        _scan(photo, layout=LayoutSpec(sides=4), layout_fields=frozenset({"sides", "pairs"}))
    assert err.value.reason == Reason.LAYOUT_NOT_AS_NAMED
    assert "4 players" in str(err.value) and "3 players" in str(err.value)
    # What the options leave out is not compared; what they name alike is no conflict.
    result = _scan(photo, layout=LayoutSpec(sides=3, variants=("strasse-25",)),
                   layout_fields=frozenset({"sides", "pairs"}))
    assert result.layout_source == "qr" and result.geometry.variants == ()


def test_the_web_app_answers_with_the_refusal_in_the_pages_language(tmp_path) -> None:
    from escalero.web.app import create_app
    from escalero.web.config import WebConfig
    from escalero.web.i18n import translate
    from fastapi.testclient import TestClient

    photo = _photo(THREE, encode_code(LayoutSpec(variants=("weights-123",), sides=3), SERIAL))
    with TestClient(create_app(WebConfig(db_path=tmp_path / "ledger.sqlite3"))) as client:
        r = client.post("/api/scan", content=photo)
        assert r.status_code == 422 and "certain" not in r.text
        assert r.json()["error"] == translate("err_layout_conflict", "de")
        r = client.post("/api/scan?players=4", content=_photo(THREE))
        assert r.status_code == 400
        client.cookies.set("escalero_lang", "es")
        r = client.post("/api/scan?players=4", content=_photo(THREE))
        assert r.json()["error"] == translate("err_layout_not_as_named", "es")


def test_the_command_line_refuses_with_one_line_and_its_exit_code(tmp_path, capsys) -> None:
    from escalero.cli import main

    forged = tmp_path / "forged.jpg"
    forged.write_bytes(_photo(THREE, encode_code(LayoutSpec(variants=("weights-123",), sides=3),
                                                 SERIAL)))
    assert main(["scan", str(forged)]) == 5
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "corner marks" in err
    own = tmp_path / "own.jpg"
    own.write_bytes(_photo(THREE))
    assert main(["scan", str(own), "--players", "2"]) == 2  # the sheet names 3
    assert "--players" in capsys.readouterr().err


def test_a_stray_text_where_a_worse_frame_puts_the_code_is_no_code(monkeypatch) -> None:
    """Only the frame the marks fit best holds the sheet's own QR box: a text that is not
    ours, decoded where the second frame puts the code (the print there read as a stray
    code), is dropped; the same text in the best frame's box is returned (and refused as
    pasted over by resolve_geometry)."""
    from escalero.scan import locate
    from escalero.scan.pipeline import is_our_code

    best = (0.5, np.eye(3), _Frame((0, 0, 10, 10)))
    worse = (3.0, np.eye(3), _Frame((50, 0, 10, 10)))
    texts = {(0, 0): "", (50, 0): "48747"}

    def variants(image, hom, box, zxing=True, settings=None):
        yield np.zeros((4, 4), np.uint8) + box[0], np.eye(3), "plain"

    def decode(detectors, name, crop):
        text = texts[(int(crop[0, 0]), 0)]
        return text, (np.zeros((4, 2), np.float32) if text else None)

    monkeypatch.setattr(locate, "_qr_variants", variants)
    monkeypatch.setattr(locate, "_decode", decode)
    image = np.zeros((8, 8), np.uint8)
    assert locate._qr_in_frames(image, [best, worse], is_our_code) is None
    texts[(0, 0)] = "48747"
    hit = locate._qr_in_frames(image, [best, worse], is_our_code)
    assert hit is not None and hit.text == "48747"


class _Frame:
    def __init__(self, qr_box) -> None:
        self.qr_box = qr_box
