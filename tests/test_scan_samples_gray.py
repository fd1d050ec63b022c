"""Every committed sample saved as a grayscale JPEG and as a 16-bit PNG reads like the
original: the same sheets are read (or refused), nothing is silently misread, and no more
than a few cells fewer are right (a grey crop keeps the grid lines the colour drops)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from escalero.scan.pipeline import ScanOptions, scan_photo
from escalero.scoring.errors import EscaleroError
from PIL import Image

PHOTOS = sorted((Path(__file__).parent.parent / "samples" / "photos").glob("*.jpg"))
MAX_FEWER_RIGHT = 3  # cells per sheet the grey copy may read less well (flagged, not wrong)


def _recognizer_ready() -> bool:
    try:
        from escalero.scan.recognize import get_recognizer

        get_recognizer("default")
    except Exception:
        return False
    return True


pytestmark = pytest.mark.skipif(not PHOTOS or not _recognizer_ready(),
                                reason="sample photos or the digit model are not there")


def _gray_jpeg(photo: Path) -> bytes:
    out = io.BytesIO()
    Image.open(photo).convert("L").save(out, "JPEG", quality=92)
    return out.getvalue()


def _gray_16bit(photo: Path) -> bytes:
    grey = np.asarray(Image.open(photo).convert("L")).astype(np.uint16) * 257
    out = io.BytesIO()
    Image.fromarray(grey).save(out, "PNG")  # mode I;16
    return out.getvalue()


def _colour_16bit(photo: Path) -> bytes:
    bgr = cv2.imread(str(photo)).astype(np.uint16) * 257
    ok, buf = cv2.imencode(".png", bgr)
    assert ok
    return buf.tobytes()


def _outcome(source: Path | bytes, truth: dict) -> tuple[str, int, list]:
    """('read', cells right, silent errors) or ('refused: <type>', 0, [])."""
    try:
        result = scan_photo(source, ScanOptions())
    except EscaleroError as err:
        return f"refused: {type(err).__name__}", 0, []
    want: dict[tuple[int, int, str], object] = {}
    for s, side in enumerate(truth["sheet"]["sides"]):
        for c, col in enumerate(side["columns"]):
            for row, value in col.items():
                want[(s, c, row)] = "x" if value == 0 else value
        for c, total in enumerate(side.get("written_totals") or []):
            want[(s, c, "total")] = total
    right = sum(c.value == want.get((c.side, c.column, c.row)) for c in result.cells)
    silent = [(c.side, c.column, c.row, c.value) for c in result.cells
              if c.certain and c.value != want.get((c.side, c.column, c.row))]
    return "read", right, silent


@pytest.mark.parametrize("photo", PHOTOS, ids=[p.stem for p in PHOTOS])
def test_grayscale_and_16_bit_copies_read_like_the_original(photo: Path) -> None:
    truth = json.loads(photo.with_suffix(".json").read_text())
    copies = {"grayscale JPEG": _gray_jpeg(photo), "16-bit grey PNG": _gray_16bit(photo)}
    if photo.stem.startswith("02-"):
        copies["16-bit colour PNG"] = _colour_16bit(photo)
    if truth["sheet"] is None:
        for data in copies.values():
            with pytest.raises(EscaleroError):
                scan_photo(data, ScanOptions())
        return
    kind, right, silent = _outcome(photo, truth)
    for name, data in copies.items():
        got_kind, got_right, got_silent = _outcome(data, truth)
        assert got_kind == kind, f"{name}: {got_kind}, the original: {kind}"
        assert not got_silent, f"{name}: read wrong but reported as certain: {got_silent}"
        assert got_right >= right - MAX_FEWER_RIGHT, f"{name}: {got_right} right of {right}"
