"""scan.shifted: a loosely placed cell keeps its certainty only where it reads the same at
the far ends of its window."""

from __future__ import annotations

from dataclasses import dataclass

from escalero.scan.geometry import Slot
from escalero.scan.grid import SnappedSlot
from escalero.scan.shifted import MOVES, tolerated_mm


@dataclass(frozen=True)
class Reading:
    kind: str
    value: object
    certain: bool


def _slot(x: float, unsure_mm: float) -> SnappedSlot:
    box = (x, 50.0, 20.0, 10.0)
    return SnappedSlot(Slot(0, 0, "nines", box), box, 0.0, 0, unsure_mm)


SURE_3 = Reading("value", 3, True)


def test_only_certain_cells_placed_loosely_but_within_reach_are_read_again() -> None:
    snapped = [_slot(10, 0.5), _slot(40, 2.0), _slot(70, 2.0), _slot(100, 4.0)]
    readings = [SURE_3, SURE_3, Reading("value", 3, False), SURE_3]
    asked: list[SnappedSlot] = []

    def read(slots: list[SnappedSlot]) -> list[Reading]:
        asked.extend(slots)
        return [SURE_3] * len(slots)

    out = tolerated_mm(snapped, readings, read, least_mm=1.0, most_mm=3.0)
    assert out == [0.0, 2.0, 0.0, 0.0]
    # Only the second cell, moved by its whole uncertainty each way.
    assert sorted((s.box[0] - 40, s.box[1] - 50) for s in asked) == sorted(
        (mx * 2.0, my * 2.0) for mx, my in MOVES)


def test_a_cell_that_reads_otherwise_or_unsure_at_one_end_keeps_its_doubt() -> None:
    snapped = [_slot(10, 2.0), _slot(40, 2.0), _slot(70, 2.0)]

    def read(slots: list[SnappedSlot]) -> list[Reading]:
        out = []
        for s in slots:
            moved_right = s.box[0] in (12.0, 42.0, 72.0)
            if s.slot.box[0] == 10 and moved_right:
                out.append(Reading("value", 8, True))  # the neighbour's ink in view
            elif s.slot.box[0] == 40 and moved_right:
                out.append(Reading("value", 3, False))
            else:
                out.append(SURE_3)
        return out

    assert tolerated_mm(snapped, [SURE_3] * 3, read, 1.0, 3.0) == [0.0, 0.0, 2.0]


def test_nothing_to_try_reads_nothing() -> None:
    def read(slots: list[SnappedSlot]) -> list[Reading]:
        raise AssertionError("no cell needed a second reading")

    assert tolerated_mm([_slot(10, 0.4)], [SURE_3], read, 1.0, 3.0) == [0.0]


def test_reaim_takes_the_surest_moved_reading_of_the_whole_writing() -> None:
    from dataclasses import replace

    from escalero.scan.recognize import CellReading
    from escalero.scan.shifted import reaim

    def reading(value: object, confidence: float) -> CellReading:
        kind = "empty" if value is None else "value"
        return CellReading(kind, value, confidence, (), False)

    snapped = [_slot(10, 2.0), _slot(40, 2.0), _slot(70, 2.0)]
    first = [reading(4, 0.5), reading(7, 0.5), reading(146, 0.5)]

    def read(slots: list[SnappedSlot]) -> tuple[list[str], list[CellReading]]:
        out = []
        for s in slots:
            off = (s.box[0] - s.slot.box[0], s.box[1] - s.slot.box[1])
            if s.slot.box[0] == 10:  # up: off the writing; right: all of it in view
                out.append(reading(None, 0.99) if off == (0.0, -2.0)
                           else reading(4, 0.9) if off == (2.0, 0.0) else reading(4, 0.4))
            elif s.slot.box[0] == 40:  # every move leaves the writing: nothing to go by
                out.append(reading(None, 0.99))
            else:  # left: the leading 1 cut off; down: a stroke of a digit, as a strike
                out.append(reading(46, 0.99) if off == (-2.0, 0.0)
                           else replace(reading("x", 0.99), kind="struck") if off == (0.0, 2.0)
                           else reading(146, 0.6))
        return [f"crop {s.box}" for s in slots], out

    slots, readings, crops = reaim(snapped, first, ["a", "b", "c"], read, 1.0, 3.0, gain=0.2)
    assert readings[0].value == 4 and readings[0].confidence == 0.9
    assert not readings[0].certain and "moved right" in readings[0].why
    assert slots[0].box[0] == 12.0 and crops[0] == f"crop {slots[0].box}"
    assert readings[1] == first[1] and slots[1] == snapped[1] and crops[1] == "b"
    assert readings[2] == first[2] and crops[2] == "c"  # 0.6 is not 0.2 surer
