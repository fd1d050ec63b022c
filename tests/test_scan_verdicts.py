"""Every cell's verdict, certain or not, is recorded with its reason by the pass that gave
it, in the passes' order; and the reading stages' tuned values live in validated settings,
not in module constants."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from escalero.scan.adapt import AdaptParams
from escalero.scan.cells import CellResult, Pass
from escalero.scan.digit_model import DecodeSettings, Preprocessing
from escalero.scan.edge_ink import EdgeInkSettings
from escalero.scan.infer_layout import InferenceSettings
from escalero.scan.ink import InkSettings
from escalero.scan.jitter import Jitter
from escalero.scan.lone_stroke import LoneStrokeSettings
from escalero.scan.passes import CELL_PASSES
from escalero.scan.pipeline import ScanOptions, scan_photo
from escalero.scan.recognize import CellReading, ReadingSettings, lowered
from escalero.scan.same_hand import SameHandSettings
from escalero.scan.tesseract_reader import TesseractSettings

ROOT = Path(__file__).resolve().parents[1]
PHOTOS = ROOT / "samples" / "photos"
ORDER = [p.name for p in CELL_PASSES]
FIRST = re.compile(r"^(?:(?P<by>[^:]+): )?confidence (?P<conf>\d\.\d{4}) "
                   r"(?P<verdict>at or above|below) accept (?P<accept>\d\.\d{4}|inf)")


def _check_reasons(cell: CellResult) -> None:
    where = (cell.side, cell.column, cell.row)
    assert cell.reasons, f"{where}: no verdict recorded"
    first = cell.reasons[0]
    assert first.by is Pass.READING and first.detail, f"{where}: {cell.reasons}"
    said = FIRST.match(first.detail)
    if said is not None:  # the recognizer's own verdict: its confidence against its accept
        assert first.certain == (said["verdict"] == "at or above"), f"{where}: {first}"
    else:  # or the step that took a verdict back
        assert not first.certain and "without a neighbour's stroke" in first.detail
    assert all(d.why is not None or d.detail for d in cell.reasons), f"{where}: {cell.reasons}"
    steps = list(cell.reasons)
    if cell.held is not None and steps[-1] == cell.held and len(steps) > 1:
        steps = steps[:-1]  # the held verdict restated at the end (cells.settle_held)
    ranks = [ORDER.index(d.by) for d in steps]
    assert ranks == sorted(ranks), f"{where}: passes out of order: {[d.by for d in steps]}"
    # Nothing changed the verdict but through set_certainty: the last decision stands.
    assert cell.certain == cell.reasons[-1].certain, f"{where}: {cell.reasons}"


@pytest.mark.parametrize("photo", ["02-3-players.jpg", "17-pub-grid-faint.jpg"])
def test_every_cell_verdict_is_recorded_with_its_reason_in_pass_order(photo: str) -> None:
    result = scan_photo(PHOTOS / photo)
    for cell in (*result.unchecked, *result.cells):
        _check_reasons(cell)
    passes = {d.by for c in result.cells for d in c.reasons}
    assert Pass.TOTALS in passes  # the photos' written totals weigh in
    assert any(not c.certain for c in result.cells)
    if photo.startswith("17"):  # the faint grid's loosely placed cells
        assert Pass.PLACEMENT in passes


def test_a_reading_says_why_it_is_certain_or_not() -> None:
    sure = CellReading.from_ranked([(3, 0.9991), (None, 0.0009)], 0.998)
    unsure = CellReading.from_ranked([(3, 0.93), ("x", 0.07)], 0.985, by="second look")
    assert sure.certain and sure.why == "confidence 0.9991 at or above accept 0.9980"
    assert not unsure.certain
    assert unsure.why == "second look: confidence 0.9300 below accept 0.9850"
    taken = lowered(sure, "reads 13 without a neighbour's stroke at its edge")
    assert not taken.certain and taken.why.startswith("reads 13")
    # The record is no part of the reading itself.
    assert taken == CellReading.from_ranked([(3, 0.9991), (None, 0.0009)], 1.0)


@pytest.mark.parametrize("make", [
    lambda: InkSettings(red_ink_share=0.0),
    lambda: InkSettings(step_px=0),
    lambda: InkSettings(shade_paper_px=0),
    lambda: EdgeInkSettings(scale=0.0),
    lambda: EdgeInkSettings(tolerance_px=-1),
    lambda: LoneStrokeSettings(min_share=0.0),
    lambda: DecodeSettings(max_numbers=0),
    lambda: DecodeSettings(out_of_row_prior=1.5),
    lambda: Preprocessing(grid_quantile=120.0),
    lambda: Preprocessing(paper_px=0),
    lambda: TesseractSettings(max_confidence=0.995),  # its readings would turn certain
    lambda: InferenceSettings(max_frames=0),
    lambda: InferenceSettings(min_score=1.5),
    lambda: SameHandSettings(min_shown=0),
    lambda: AdaptParams(floor=1.5),
    lambda: AdaptParams(min_similarity=2.0),
    lambda: ReadingSettings(jitters=()),
    lambda: ReadingSettings(jitters=(Jitter(0.0, 0),)),
    lambda: ReadingSettings(box_alone_from=0.0),
])
def test_settings_refuse_values_out_of_range(make) -> None:
    with pytest.raises(ValueError):
        make()


def test_scan_options_carry_the_ink_settings() -> None:
    photo = PHOTOS / "16-upload-red-ink.jpg"
    red = "red ink on the red grid"
    assert any(red in w for w in scan_photo(photo, ScanOptions(lang="en")).warnings)
    never = ScanOptions(lang="en", ink=InkSettings(red_ink_share=1.0, ink_green=0.01))
    assert not any(red in w for w in scan_photo(photo, never).warnings)


# Module constants of the reading stages that are facts or formats, not tuned values.
FACTS = {
    "recognize.py": {"MAX_ALTERNATIVES", "MIN_ALTERNATIVE"},  # the output's format
    "digit_model.py": {"PREPROCESS_VERSION"},  # a cache key's version
    "load.py": {"MAX_PIXELS", "WORK_MAX_SIDE", "MIN_SIDE"},  # limits on the photo
    "imaging.py": {"MAD_TO_SIGMA"},  # the normal distribution's
    "lone_stroke.py": {"LOG_ODDS_CLIP"},  # a numeric guard
}
STAGES = ("ink", "edge_ink", "lone_stroke", "infer_layout", "same_hand", "adapt", "jitter",
          "load", "tesseract_reader", "imaging", "recognize", "digit_model")


def _numeric_constants(path: Path) -> set[str]:
    def number(v: ast.expr) -> bool:
        if isinstance(v, ast.UnaryOp) and isinstance(v.op, ast.USub):
            v = v.operand
        return isinstance(v, ast.Constant) and type(v.value) in (int, float)

    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and number(node.value):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and node.value is not None \
                and number(node.value) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


@pytest.mark.parametrize("stage", STAGES)
def test_reading_stages_keep_tuned_values_in_settings(stage: str) -> None:
    name = f"{stage}.py"
    loose = _numeric_constants(ROOT / "scan" / name) - FACTS.get(name, set())
    assert not loose, f"scan/{name}: tuned values belong in its settings: {sorted(loose)}"
