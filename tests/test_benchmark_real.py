"""benchmarks.real: the truth files are well-formed, and a cell is cut where its block's
corners put it, by the cell reading contract."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from benchmarks import real

TRUTHS = real.truth_files()


def test_there_are_truth_files() -> None:
    assert len(TRUTHS) >= 7
    assert (real.TRUTH_DIR / "README.md").exists()  # sources and licences beside them


@pytest.mark.parametrize("path", TRUTHS, ids=lambda p: p.stem)
def test_truth_file_is_well_formed(path: Path) -> None:
    truth = real.load_truth(path)  # corners inside the photo, rows x cols tokens
    raw = json.loads(path.read_text(encoding="utf-8"))
    width, height = truth.size
    assert width > 0 and height > 0
    assert truth.source in real.SOURCES
    assert truth.photo.startswith(truth.source + "/")
    assert path.stem == f"{truth.source}-{Path(truth.photo).stem}"
    assert truth.blocks
    for block, raw_block in zip(truth.blocks, raw["blocks"], strict=True):
        for x, y in block.corners:
            assert 0 <= x < width and 0 <= y < height
        assert len(block.cells) == block.rows == len(raw_block["cells"])
        assert all(len(row) == block.cols for row in block.cells)
        assert sum(len(r) for r in block.cells) == block.rows * block.cols
        for row in block.cells:
            for cell in row:
                assert cell.kind in real.KINDS + real.LEFT_OUT
                if cell.kind == "entry":
                    assert cell.truth in block.allowed
                if cell.kind == "total":
                    assert isinstance(cell.truth, int) and 0 <= cell.truth <= 999
        # A convex quadrilateral in reading order (TL, TR, BR, BL): no corner swapped.
        c = np.asarray(block.corners, np.float64)
        edges = [c[(i + 1) % 4] - c[i] for i in range(4)]
        cross = [a[0] * b[1] - a[1] * b[0] for a, b in zip(edges, edges[1:] + edges[:1],
                                                          strict=True)]
        assert all(v > 0 for v in cross) or all(v < 0 for v in cross)


def test_tokens() -> None:
    assert real.parse_token(".") == real.Cell(None, "empty")
    assert real.parse_token("5") == real.Cell(5, "entry")
    assert real.parse_token("=35") == real.Cell(35, "total")
    assert real.parse_token("0") == real.Cell("x", "strike", "written 0")
    assert real.parse_token("-").kind == "strike"
    assert real.parse_token("4o") == real.Cell(4, "entry", "circled")
    assert real.parse_token("=3o*") == real.Cell(3, "total", "circled, by the sums")
    assert real.parse_token("?3~").kind == "unsure"
    assert real.parse_token("!-1").kind == "not_a_number"
    with pytest.raises(ValueError):
        real.parse_token("4z")


def _coded_block(rows: int, cols: int, pitch: int) -> np.ndarray:
    """A flat block whose cell (r, c) is filled with grey level 10 + 10 * (r * cols + c)."""
    flat = np.zeros((rows * pitch, cols * pitch, 3), np.uint8)
    for r in range(rows):
        for c in range(cols):
            flat[r * pitch:(r + 1) * pitch, c * pitch:(c + 1) * pitch] = 10 + 10 * (r * cols + c)
    return flat


@pytest.mark.parametrize("turn", [0, 1, 2])
def test_cells_are_cut_where_the_corners_put_them(turn: int) -> None:
    # A 3 x 4 block warped into a "photo" in perspective (turned by `turn` quarters, as a
    # card photographed sideways or upside down): every crop's box holds its own cell, its
    # margin the neighbours', at the contract's scale.
    rows, cols, pitch = 3, 4, 60
    flat = _coded_block(rows, cols, pitch)
    size = (900, 800)
    quad = np.asarray([[120, 90], [700, 140], [660, 560], [150, 500]], np.float32)
    quad = np.roll(quad, -turn, axis=0)  # the block's TL corner moves round the photo
    src = np.asarray([[0, 0], [cols * pitch, 0], [cols * pitch, rows * pitch],
                      [0, rows * pitch]], np.float32)
    h = cv2.getPerspectiveTransform(src, quad)
    photo = cv2.warpPerspective(flat, h, size, flags=cv2.INTER_NEAREST,
                                borderValue=(255, 255, 255))
    block = real.Block("b", tuple((float(x), float(y)) for x, y in quad), rows, cols,
                       (), tuple(range(1, 10)))
    bw, bh = real.box_size(block)
    # Square cells fit the Escalero box by its height: 14 mm at 10 px/mm.
    assert bh == round(real.ESCALERO_BOX_MM[1] * real.PX_PER_MM)
    assert bw <= round(real.ESCALERO_BOX_MM[0] * real.PX_PER_MM)
    m = round(real.MARGIN_MM * real.PX_PER_MM)
    for r in range(rows):
        for c in range(cols):
            crop, box = real.cut_cell(photo, block, r, c)
            assert crop.dtype == np.uint8 and crop.shape[2] == 3
            assert box == (m, m, bw, bh) and crop.shape[:2] == (bh + 2 * m, bw + 2 * m)
            x, y, w, hh = box
            inner = crop[y + 3:y + hh - 3, x + 3:x + w - 3, 0]
            assert np.median(inner) == 10 + 10 * (r * cols + c)
            if c > 0:  # the left margin shows the cell to the left
                assert crop[y + hh // 2, 2, 0] == 10 + 10 * (r * cols + c - 1)
            if r < rows - 1:  # the bottom margin shows the cell below
                assert crop[y + hh + m - 2, x + w // 2, 0] == 10 + 10 * ((r + 1) * cols + c)


def test_missing_photos_exit_with_a_message(tmp_path: Path, capsys) -> None:
    assert real.main(["--data", str(tmp_path / "nowhere")]) == 2
    assert "no photos at" in capsys.readouterr().err


@pytest.mark.skipif(not real.DEFAULT_DATA.is_dir(), reason="../shared/data/real is absent")
@pytest.mark.parametrize("path", TRUTHS, ids=lambda p: p.stem)
def test_truth_matches_its_photo(path: Path) -> None:
    truth = real.load_truth(path)
    photo = real.DEFAULT_DATA / truth.photo
    if not photo.exists():
        pytest.skip(f"{truth.photo} is absent")
    image = cv2.imread(str(photo), cv2.IMREAD_COLOR)
    assert image is not None and (image.shape[1], image.shape[0]) == truth.size
