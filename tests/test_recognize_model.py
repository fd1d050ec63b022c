"""The committed digit model read through scan.recognize on unseen ("eval") writers."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from escalero.samples.cell_crops import synth_cell
from escalero.samples.handwriting import make_writer
from escalero.scan.recognize import (
    CellCrop,
    CellReading,
    DigitModelRecognizer,
    Recognizer,
    get_recognizer,
)
from escalero.scoring.errors import ToolMissingError
from escalero.scoring.rulesets import get_ruleset

RULES = get_ruleset("escalero")
ACES = RULES.row("aces").allowed


def golden_cells(n: int, seed: int = 11) -> list[tuple[CellCrop, object]]:
    """Mild photo crops by eval-pool writers: (crop, expected reading)."""
    rng = np.random.default_rng(seed)
    rows = RULES.rows
    cells = []
    for i in range(n):
        writer = make_writer(rng, "eval")
        row = rows[i % len(rows)]
        entry = [None, "x"][i % 2] if i % 5 == 0 else int(rng.choice(row.allowed))
        crop = synth_cell(rng, writer, entry, box_size=(140, 90)).image
        cells.append((CellCrop(crop, row.allowed), entry))
    return cells


@pytest.fixture(scope="module")
def recognizer() -> DigitModelRecognizer:
    rec = get_recognizer("default")
    assert isinstance(rec, DigitModelRecognizer)
    return rec


def test_protocol_and_availability(recognizer: DigitModelRecognizer) -> None:
    assert isinstance(recognizer, Recognizer)
    assert recognizer.available()
    assert recognizer.read([]) == []


def test_golden_cells(recognizer: DigitModelRecognizer) -> None:
    cells = golden_cells(60)
    readings = recognizer.read([c for c, _ in cells])
    right = [r.value == e for r, (_, e) in zip(readings, cells, strict=True)]
    certain = [r.certain for r in readings]
    assert all(isinstance(r, CellReading) for r in readings)
    assert sum(right) >= 0.9 * len(cells)
    assert sum(certain) >= 0.6 * len(cells)
    # The rule that matters: nothing reported certain is wrong.
    assert all(ok for ok, sure in zip(right, certain, strict=True) if sure)
    for r, (crop, _) in zip(readings, cells, strict=True):
        assert 0.0 <= r.confidence <= 1.0
        assert r.value in (None, "x") or r.value in crop.allowed
        assert r.value not in [v for v, _ in r.alternatives]
        assert r.kind == {None: "empty", "x": "struck"}.get(r.value, "value")  # type: ignore


def test_empty_struck_and_value(recognizer: DigitModelRecognizer) -> None:
    rng = np.random.default_rng(3)
    writer = make_writer(rng, "eval")
    crops = [CellCrop(synth_cell(rng, writer, e, box_size=(140, 90)).image, ACES)
             for e in (None, "x", 18, None, "x", 30)]
    kinds = [r.kind for r in recognizer.read(crops)]
    assert kinds == ["empty", "struck", "value", "empty", "struck", "value"]


def test_value_outside_the_row_is_not_read_as_certain(recognizer: DigitModelRecognizer) -> None:
    rng = np.random.default_rng(5)
    crops = []
    for _ in range(20):
        writer = make_writer(rng, "eval")
        crops.append(CellCrop(synth_cell(rng, writer, 7, box_size=(140, 90)).image, ACES))
    readings = recognizer.read(crops)
    assert all(r.value != 7 for r in readings)
    assert sum(r.certain for r in readings) <= 1


def test_totals_read_without_row(recognizer: DigitModelRecognizer) -> None:
    rng = np.random.default_rng(9)
    values = [128, 96, 213, 54, 170, 7]
    crops = [CellCrop(synth_cell(rng, make_writer(rng, "eval"), v, box_size=(140, 90)).image,
                      None) for v in values]
    readings = recognizer.read(crops)
    assert sum(r.value == v for r, v in zip(readings, values, strict=True)) >= 5
    assert all(r.value == v for r, v in zip(readings, values, strict=True) if r.certain)


def test_a_sheet_reads_in_one_batch_as_cell_by_cell(recognizer: DigitModelRecognizer) -> None:
    """A whole sheet goes through the network in one batch (its speed is in
    benchmarks/scan.py); batching must not change a single reading."""
    crops = [c for c, _ in golden_cells(90, seed=2)]
    together = recognizer.read(crops)
    alone = [recognizer.read([c])[0] for c in crops[:12]]
    assert [(r.value, r.certain) for r in together[:12]] == [(r.value, r.certain)
                                                             for r in alone]


def test_unknown_recognizer() -> None:
    with pytest.raises(ToolMissingError, match="choose one of"):
        get_recognizer("ocr9000")


def test_missing_tesseract_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    with pytest.raises(ToolMissingError, match="apt install tesseract-ocr"):
        get_recognizer("tesseract")


def test_missing_model_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    rec = DigitModelRecognizer(tmp_path / "none.onnx")
    assert not rec.available()
    with pytest.raises(ToolMissingError):
        rec.read([CellCrop(np.full((120, 170, 3), 230, np.uint8), None)])


def test_members_listed_in_the_json_are_read_together(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from escalero.scan import digit_model

    committed = digit_model.members()
    for i, path in enumerate(committed):  # the same team twice over: the mean is unchanged
        shutil.copy(path, tmp_path / f"a{i}.onnx")
        shutil.copy(path, tmp_path / f"b{i}.onnx")
    names = [f"{k}{i}.onnx" for k in "ab" for i in range(len(committed))]
    meta = json.loads(digit_model.CALIBRATION_PATH.read_text())
    (tmp_path / "a0.json").write_text(json.dumps({**meta, "members": names}))
    team = DigitModelRecognizer(tmp_path / "a0.onnx")
    assert team.available()
    assert digit_model.members(tmp_path / "a0.onnx") == tuple(tmp_path / n for n in names)
    crops = [c for c, _ in golden_cells(12)]
    want = DigitModelRecognizer().logits(crops)
    assert np.allclose(team.logits(crops), want, atol=1e-4)
    (tmp_path / "b0.onnx").unlink()  # a member gone: the recognizer says so
    assert not team.available()


@pytest.mark.tesseract
@pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract not installed")
def test_tesseract_reads_but_is_never_certain() -> None:
    rec = get_recognizer("tesseract")
    cells = golden_cells(6, seed=4)
    readings = rec.read([c for c, _ in cells])
    assert len(readings) == 6
    assert not any(r.certain for r in readings)
    for r, (crop, _) in zip(readings, cells, strict=True):
        assert r.value in (None, "x") or r.value in crop.allowed


def test_features_come_from_the_same_pass(recognizer: DigitModelRecognizer) -> None:
    crops = [c for c, _ in golden_cells(8)]
    readings, feats = recognizer.read_with_features(crops)
    assert readings == recognizer.read(crops)
    assert feats is not None and feats.shape[0] == len(crops)
    # Each member's features have unit length, so the team's do too.
    assert np.allclose(np.linalg.norm(feats, axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("members", [1, 2])
def test_onnxruntime_and_cv2_dnn_agree(members: int) -> None:
    pytest.importorskip("onnxruntime")
    crops = [c for c, _ in golden_cells(12)]
    ort = DigitModelRecognizer(max_members=members, engine="onnxruntime")
    cv = DigitModelRecognizer(max_members=members, engine="cv2")
    assert np.allclose(ort.logits(crops), cv.logits(crops), atol=1e-3)
    assert [r.value for r in ort.read(crops)] == [r.value for r in cv.read(crops)]


def test_read_threads_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from escalero.scan.digit_model import READ_THREADS_ENV, read_threads

    monkeypatch.setenv(READ_THREADS_ENV, "3")
    assert read_threads() == 3
    for unset in ("", "0", "two"):  # not a positive count: the default, one or two cores
        monkeypatch.setenv(READ_THREADS_ENV, unset)
        assert read_threads() in (1, 2)
