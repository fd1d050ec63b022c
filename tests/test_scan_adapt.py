"""scan.adapt: a sheet's certain cells as examples of its writer's hand."""

from __future__ import annotations

import numpy as np
import pytest
from escalero.scan.adapt import AdaptParams, adapt
from escalero.scan.recognize import Capability, CellReading

ACCEPT = 0.99


def reading(ranked: list[tuple[object, float]]) -> CellReading:
    return CellReading.from_ranked(ranked, ACCEPT)


def threshold(_i: int, _v: object) -> float:
    return ACCEPT


def unit(*xs: float) -> np.ndarray:
    v = np.array(xs, float)
    return v / np.linalg.norm(v)


# Feature directions: the writer's 7s, their 1s, a third shape.
SEVEN, ONE, OTHER = unit(1, 0, 0, 0.05), unit(0, 1, 0, 0.05), unit(0, 0, 1, 0.05)


def sheet(unsure: CellReading, near: np.ndarray) -> tuple[list[CellReading], np.ndarray]:
    """Two certain 7s, two certain 1s, then the unsure cell with features `near`."""
    certain = [reading([(7, 0.999), (1, 0.001)]), reading([(7, 0.998), (1, 0.002)]),
               reading([(1, 0.999), (7, 0.001)]), reading([(1, 0.999), (7, 0.001)])]
    feats = np.stack([SEVEN, SEVEN * 0.9 + OTHER * 0.1, ONE, ONE * 0.95 + OTHER * 0.05, near])
    return [*certain, unsure], feats


def test_an_unsure_cell_like_the_writers_own_becomes_certain() -> None:
    cell = reading([(7, 0.93), (1, 0.07)])
    readings, feats = sheet(cell, SEVEN * 0.98 + OTHER * 0.02)
    got = adapt(readings, feats, threshold)
    assert got.made_certain == (4,)
    new = got.readings[4]
    assert new.value == 7 and new.certain and new.confidence >= ACCEPT
    assert abs(sum(p for _, p in new.distribution) - 1.0) < 1e-6  # still a distribution
    assert dict(new.distribution).get(1, 0.0) < 0.07  # the rival the hand rules out lost mass
    assert got.readings[:4] == tuple(readings[:4])  # the examples are untouched
    assert got.examples == 4


def test_adaptation_never_changes_a_reading() -> None:
    cell = reading([(7, 0.93), (1, 0.07)])  # the network says 7, the hand says 1
    readings, feats = sheet(cell, ONE)
    got = adapt(readings, feats, threshold)
    assert got.made_certain == ()
    assert got.readings[4] == cell


def test_a_rival_the_sheet_never_shows_is_not_ruled_out() -> None:
    cell = reading([(7, 0.93), (9, 0.07)])  # no certain 9 on the sheet
    readings, feats = sheet(cell, SEVEN)
    assert adapt(readings, feats, threshold).readings[4] == cell


def test_unlike_every_example_or_too_unsure_stays_as_read() -> None:
    far = reading([(7, 0.93), (1, 0.07)])
    readings, feats = sheet(far, OTHER)
    assert adapt(readings, feats, threshold).made_certain == ()
    weak = reading([(7, 0.6), (1, 0.4)])  # below the network's own floor
    readings, feats = sheet(weak, SEVEN)
    assert adapt(readings, feats, threshold, AdaptParams(floor=0.8)).made_certain == ()


@pytest.mark.parametrize("ranked", [[("x", 0.95), (1, 0.05)], [(1, 0.95), ("x", 0.05)],
                                    [(None, 0.95), (1, 0.05)]])
def test_strikes_and_empty_cells_are_left_to_the_network(ranked) -> None:  # type: ignore[no-untyped-def]
    """A strike is one stroke like a hasty 1: the hand neither confirms nor rules it out."""
    certain = [reading([("x", 0.999)]), reading([(1, 0.999)]), reading([(None, 0.999)])]
    feats = np.stack([SEVEN, ONE, OTHER, SEVEN if ranked[0][0] != 1 else ONE])
    cell = reading(ranked)
    assert adapt([*certain, cell], feats, threshold).readings[3] == cell


def test_a_sheet_without_certain_cells_is_unchanged() -> None:
    cells = [reading([(7, 0.93), (1, 0.07)])] * 3
    got = adapt(cells, np.stack([SEVEN] * 3), threshold)
    assert got.readings == tuple(cells) and got.examples == 0


def test_the_recognizers_own_threshold_decides() -> None:
    """The unseen rival 4 keeps its mass, so the 7 ends near 0.99: just in or just out."""
    cell = reading([(7, 0.93), (1, 0.06), (4, 0.01)])
    readings, feats = sheet(cell, SEVEN)
    assert adapt(readings, feats, lambda i, v: 0.985).made_certain == (4,)
    assert adapt(readings, feats, lambda i, v: 0.995).made_certain == ()


def test_the_read_stage_adapts_a_sample_photo_and_only_adds_certainty() -> None:
    """samples/photos/01: adaptation makes right unsure readings certain, changes no
    value, and the scan without it (ScanOptions(adapt=False)) reads as before."""
    import json
    from pathlib import Path

    from escalero.samples.make_photos import comparable, truth_cells
    from escalero.scan.pipeline import ScanOptions, read_cells, scan_photo
    from escalero.scan.recognize import DigitModelRecognizer

    photo = Path(__file__).parents[1] / "samples" / "photos" / "01-easy-2-players.jpg"
    reader = DigitModelRecognizer()
    kept: list[object] = []

    class Keeper:
        name, calibration = reader.name, reader.calibration
        capabilities = frozenset({Capability.CALIBRATED})

        def available(self) -> bool:
            return True

        def read(self, crops):  # type: ignore[no-untyped-def]
            kept.extend(crops)
            return reader.read(crops)

    result = scan_photo(str(photo), ScanOptions(adapt=False), recognizer=Keeper())
    plain = read_cells(reader, kept, adapt=False)
    adapted = read_cells(reader, kept, adapt=True)
    assert [r.value for r in plain] == [r.value for r in adapted]
    assert all(a.certain for p, a in zip(plain, adapted, strict=True) if p.certain)
    gained = [i for i, (p, a) in enumerate(zip(plain, adapted, strict=True))
              if a.certain and not p.certain]
    assert gained
    truth = truth_cells(json.loads(photo.with_suffix(".json").read_text())["sheet"])
    cells = result.cells
    assert all(comparable(adapted[i].value) == truth[(cells[i].side, cells[i].column, cells[i].row)]
               for i in gained)
