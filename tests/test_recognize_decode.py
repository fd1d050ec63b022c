"""Constrained decoding of the cell network's outputs (no model file needed)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from escalero.scan.digit_model import (
    HEAD_OFFSET,
    N_OUT,
    CellScores,
    RowWeights,
    decode,
    row_key,
    row_weights,
    score_cell,
)
from escalero.scan.recognize import CellCrop, CellReading, DigitModelRecognizer

SURE, UNSURE = 9.0, 2.0


def logits(kind: str, digits: str = "", second: dict[int, str] | None = None) -> np.ndarray:
    """Logits that favour `kind`/`digits`; `second` gives a runner-up digit per position."""
    z = np.zeros(N_OUT)
    z[{"empty": 0, "struck": 1, "number": 2}[kind]] = SURE
    if digits:
        z[3 + len(digits) - 1] = SURE
        first = HEAD_OFFSET[len(digits)]
        for i, ch in enumerate(digits):
            z[first + 10 * i + int(ch)] = SURE
            if second and i in second:
                z[first + 10 * i + int(second[i])] = SURE - UNSURE
    return z


ACES = (6, 12, 18, 24, 30)


def test_reads_allowed_value() -> None:
    ranked = decode(score_cell(logits("number", "18")), ACES).ranked
    assert ranked[0][0] == 18 and ranked[0][1] > 0.99


def test_row_decides_between_similar_numbers() -> None:
    # The network leans to 13, but 13 is no aces value: 18 (its runner-up) is.
    z = logits("number", "13", second={1: "8"})
    assert decode(score_cell(z), None).ranked[0][0] == 13
    best, p = decode(score_cell(z), ACES).ranked[0]
    assert best == 18
    assert p < 0.99  # the 13 it saw keeps the cell from looking sure


def test_value_outside_row_is_never_returned_and_is_unsure() -> None:
    ranked = decode(score_cell(logits("number", "4")), ACES).ranked
    assert all(v != 4 for v, _ in ranked)
    assert ranked[0][1] < 0.5


def test_numbers_outside_the_row_are_kept_apart_with_their_share() -> None:
    # 13 leads, 18 is its runner-up: the aces row reads 18 and keeps 13 (and the other
    # numbers it does not allow) apart, where a mis-added column can ask about them;
    # ranked and outside together hold all the mass.
    decoded = decode(score_cell(logits("number", "13", second={1: "8"})), ACES)
    assert decoded.ranked[0][0] == 18
    assert decoded.outside[0][0] == 13 and len(decoded.outside) <= 64
    assert all(v not in ACES for v, _ in decoded.outside)
    ranked_mass = sum(p for _, p in decoded.ranked)
    outside_mass = sum(p for _, p in decoded.outside)
    assert ranked_mass + outside_mass == pytest.approx(1.0, abs=1e-3)
    assert decode(score_cell(logits("number", "18")), None).outside == ()  # totals: none


def test_totals_decode_any_number() -> None:
    ranked = decode(score_cell(logits("number", "245")), None).ranked
    assert ranked[0][0] == 245 and ranked[0][1] > 0.99
    assert decode(score_cell(logits("number", "7")), None).ranked[0][0] == 7


def test_a_total_above_the_column_maximum_is_a_misreading_not_a_reading() -> None:
    # The network leans to 907; under rows that add up to 290 at most, its runner-up 207
    # is the reading, and the 907 it saw keeps that reading from looking sure.
    z = logits("number", "907", second={0: "2"})
    assert decode(score_cell(z), None).ranked[0][0] == 907
    ranked = decode(score_cell(z), None, total_cap=310).ranked
    assert ranked[0][0] == 207 and ranked[0][1] < 0.99
    assert all(not isinstance(v, int) or v <= 310 for v, _ in ranked)
    # Under the cap nothing changes.
    sure = decode(score_cell(logits("number", "245")), None, total_cap=310).ranked
    assert sure[0][0] == 245 and sure[0][1] > 0.99


@pytest.mark.parametrize(("z", "expected"), [
    (logits("empty"), None),
    (logits("struck"), "x"),
    (logits("number", "0"), "x"),  # a written 0 is a strike
])
def test_empty_and_struck(z: np.ndarray, expected: object) -> None:
    assert decode(score_cell(z), ACES).ranked[0][0] == expected


def test_probabilities_are_normalised_and_ranked() -> None:
    ranked = decode(score_cell(logits("number", "12", second={1: "8"})), ACES).ranked
    probs = [p for _, p in ranked]
    assert probs == sorted(probs, reverse=True)
    assert sum(probs) <= 1.0 + 1e-9
    assert {12, 18} <= {v for v, _ in ranked}


def test_temperature_softens_confidence() -> None:
    z = logits("number", "12", second={1: "8"})
    sharp = decode(score_cell(z, 1.0), ACES).ranked[0][1]
    soft = decode(score_cell(z, 3.0), ACES).ranked[0][1]
    assert soft < sharp


def test_reading_from_ranked() -> None:
    r = CellReading.from_ranked([(18, 0.995), (12, 0.004), ("x", 0.0005)], accept=0.99)
    assert (r.kind, r.value, r.certain) == ("value", 18, True)
    assert r.alternatives == ((12, 0.004),)
    r = CellReading.from_ranked([("x", 0.7), (None, 0.3)], accept=0.99)
    assert (r.kind, r.value, r.certain) == ("struck", "x", False)
    assert CellReading.from_ranked([(None, 1.0)], accept=0.99).kind == "empty"


def test_totals_need_the_stricter_threshold_only_when_read_as_a_number() -> None:
    from escalero.scan.digit_model import Calibration

    cal = Calibration(temperature=1.0, accept=0.99, accept_total=0.999)
    assert cal.threshold((1, 2, 3), 5) == 0.99
    assert cal.threshold(None, 125) == 0.999
    assert cal.threshold(None, None) == cal.threshold(None, "x") == 0.99  # empty / struck


@pytest.mark.parametrize("width", [110, 200])  # narrower than the network's aspect, and wider
def test_writing_in_a_noisy_cell_survives_the_noise_floor(width: int) -> None:
    """Dim pencil on grainy paper: the floor is measured on the cell, not on the paper
    padding of a narrow cell (counted in, it doubled the spread and wiped a "45" out)."""
    import cv2
    from escalero.scan.digit_model import preprocess

    rng = np.random.default_rng(3)
    grey = np.full((150, width), 150.0) + rng.normal(0, 14, (150, width))
    ink = np.zeros((150, width), np.uint8)
    cv2.putText(ink, "45", (width // 2 - 40, 105), cv2.FONT_HERSHEY_SIMPLEX, 2.2, 1, 5)
    grey -= 55 * ink
    crop = cv2.cvtColor(np.clip(grey, 0, 255).astype(np.uint8), cv2.COLOR_GRAY2BGR)
    x = preprocess(crop)
    assert x.max() > 0.6
    assert (x > 0.5).mean() > 0.02  # the strokes, not a few specks


def test_a_printed_bar_across_the_crop_is_taken_off_and_a_strike_kept() -> None:
    """A score card's thick divider bar reaching into a box placed by hand spans the whole
    crop and is print (real golf cards: such empty cells were read as struck); a strike
    across the box, even from line to line, spans less and stays, as does a digit."""
    import cv2
    from escalero.scan.digit_model import preprocess

    def crop_with(draw) -> np.ndarray:  # type: ignore[no-untyped-def]
        crop = np.full((170, 290, 3), 235, np.uint8)
        draw(crop)
        return crop

    def bar(c: np.ndarray) -> None:
        c[128:150, :] = (0, 120, 60)  # green bar, 2.2 mm, its edge 2 mm inside the box

    def strike(c: np.ndarray) -> None:
        cv2.line(c, (15, 85), (275, 88), (120, 40, 20), 5)  # across the box, line to line

    def four(c: np.ndarray) -> None:
        cv2.putText(c, "4", (120, 120), cv2.FONT_HERSHEY_SIMPLEX, 2.5, (120, 40, 20), 6)

    assert preprocess(crop_with(bar)).max() < 0.2
    assert (preprocess(crop_with(strike)) > 0.5).sum() > 40
    kept = preprocess(crop_with(four))
    both = preprocess(crop_with(lambda c: (bar(c), four(c))))
    assert (both > 0.5).sum() >= 0.8 * (kept > 0.5).sum() > 40


def test_a_batch_is_scored_as_each_cell_alone() -> None:
    from escalero.scan.digit_model import score_cells

    rng = np.random.default_rng(5)
    z = rng.normal(0, 4, (40, N_OUT))
    empty, struck, numbers = score_cells(z, 1.3)
    for i in range(len(z)):
        one = score_cell(z[i], 1.3)
        assert (one.empty, one.struck) == (empty[i], struck[i])
        np.testing.assert_array_equal(one.numbers, numbers[i])
    assert score_cells(np.zeros((0, N_OUT)))[2].shape == (0, 1000)


def _weights(struck: float, numbers: dict[int, float]) -> RowWeights:
    arr = np.ones(1000)
    for v, w in numbers.items():
        arr[v] = w
    return RowWeights(struck, arr)


NINES = (1, 2, 3, 4, 5)


def test_row_weights_move_the_written_mass_and_nothing_else() -> None:
    # A cell the network calls struck (0.7) or 1 (0.2), with some empty and 7 (no Neuner).
    z = np.zeros(N_OUT)
    z[:3] = np.log([0.05, 0.7, 0.25])
    z[3] = 5.0
    z[HEAD_OFFSET[1] + 1], z[HEAD_OFFSET[1] + 7] = 2.0, 0.0
    scores = score_cell(z)
    plain = dict(decode(scores, NINES).ranked)
    shifted = dict(decode(scores, NINES, weights=_weights(0.1, {1: 1.0})).ranked)
    assert max(plain, key=plain.__getitem__) == "x"
    assert max(shifted, key=shifted.__getitem__) == 1
    assert shifted[None] == pytest.approx(plain[None])  # the empty reading keeps its mass
    written = [v for v in plain if v is not None]
    assert sum(shifted[v] for v in written) == pytest.approx(sum(plain[v] for v in written))
    # Bayes' rule: the odds of struck against 1 are the network's times the weights' ratio.
    assert shifted["x"] / shifted[1] == pytest.approx(plain["x"] / plain[1] * 0.1)


def test_equal_weights_change_nothing() -> None:
    scores = score_cell(logits("number", "13", second={1: "8"}))
    plain = decode(scores, ACES).ranked
    even = decode(scores, ACES, weights=_weights(3.0, dict.fromkeys(ACES, 3.0))).ranked
    assert [v for v, _ in even] == [v for v, _ in plain]
    assert [p for _, p in even] == pytest.approx([p for _, p in plain])


def test_every_row_of_every_ruleset_has_weights_for_all_its_readings() -> None:
    from escalero.scoring.rulesets import ESCALERO_VARIANTS, get_ruleset

    rulesets = [get_ruleset("escalero", ()), get_ruleset("generala", ()),
                *(get_ruleset("escalero", (v,)) for v in ESCALERO_VARIANTS)]
    for rules in rulesets:
        for row in rules.rows:
            w = row_weights(row_key(row.id, tuple(row.allowed)))
            assert w is not None, row.id
            assert w.struck > 0 and all(w.numbers[v] > 0 for v in row.allowed)
    assert row_weights(None) is None and row_weights("no_such_row:1") is None



def _nines_cell() -> CellCrop:
    return CellCrop(np.zeros((1, 1, 3), np.uint8), NINES, row=row_key("nines", NINES))


def _struck_or_1(p_struck: float) -> CellScores:
    z = np.full(N_OUT, -30.0)
    z[1], z[2] = np.log(p_struck), np.log(1 - p_struck)
    z[3] = 0.0
    z[HEAD_OFFSET[1] + 1] = 0.0
    return score_cell(z)


def test_the_row_prior_decides_only_cells_the_network_is_unsure_of() -> None:
    reader = DigitModelRecognizer(lone_stroke=False)  # the row prior alone (no refitted split)
    accept = reader.calibration.accept
    cell = _nines_cell()
    # Unsure between struck and 1 (0.8 : 0.2): in the Neuner row the 1 wins.
    unsure = reader._decode(_struck_or_1(0.8), cell)
    assert unsure.value == 1 and not unsure.certain
    # Nor does the prior make a reading certain: only the network or a written total can.
    tipped = reader._decode(_struck_or_1((1 - accept) * 3), cell)
    assert tipped.value == 1 and tipped.confidence >= accept and not tipped.certain
    assert reader._decode(_struck_or_1(0.8), replace(cell, row=None)).value == "x"
    # Sure it is struck: the reading and its probability are the network's own.
    p = (1 + accept) / 2
    sure = reader._decode(_struck_or_1(p), cell)
    assert sure.value == "x" and sure.certain
    assert sure.confidence == pytest.approx(p, abs=1e-6)


def test_a_struck_total_is_no_total() -> None:
    """The sheet holds a written total as a number or null: a strike's mass is the empty
    reading's, so an empty Summe cell is not unsure between empty and struck."""
    from escalero.scan.recognize import no_total_struck

    merged = no_total_struck(((None, 0.976), ("x", 0.013), (1, 0.011)))
    assert merged[0][0] is None and merged[0][1] == pytest.approx(0.989)
    assert "x" not in dict(merged)
    numbers = ((120, 0.9), (None, 0.06), ("x", 0.04))
    assert no_total_struck(numbers)[0] == (120, 0.9)
    assert dict(no_total_struck(numbers))[None] == pytest.approx(0.1)
    assert no_total_struck(((120, 1.0),)) == ((120, 1.0),)


def _struck_or(digit: int, p_struck: float) -> CellScores:
    z = np.full(N_OUT, -30.0)
    z[1], z[2] = np.log(p_struck), np.log(1 - p_struck)
    z[3] = 0.0
    z[HEAD_OFFSET[1] + digit] = 0.0
    return score_cell(z)


def _two_digits(tens: int, unit: int, other_unit: int, p: float) -> CellScores:
    z = np.full(N_OUT, -30.0)
    z[2], z[4] = 0.0, 0.0  # a number of two digits
    z[HEAD_OFFSET[2] + tens] = 0.0
    z[HEAD_OFFSET[2] + 10 + unit] = np.log(p)
    z[HEAD_OFFSET[2] + 10 + other_unit] = np.log(1 - p)
    return score_cell(z)


def test_the_accept_threshold_holds_on_real_photos() -> None:
    """benchmarks.real saw a 9 read as 8 at 0.982: no reading is certain below 0.985,
    whatever the fitted threshold in digits.json says."""
    from escalero.scan.recognize import READING

    least = READING.real_photo_accept
    reader = DigitModelRecognizer(lone_stroke=False)
    assert reader.calibration.accept >= least >= 0.983
    jacks = CellCrop(np.zeros((1, 1, 3), np.uint8), (3, 6, 9, 12, 15))
    nine = reader._decode(_struck_or(9, 0.018), jacks)
    assert nine.value == 9 and 0.98 < nine.confidence < least
    assert not nine.certain
    assert reader._decode(_struck_or(9, 0.01), jacks).certain


def test_lookalike_readings_need_more_to_be_certain() -> None:
    """A strike where the row allows a 9 or a 10, a 12 where 18 is allowed, a 6 where 9
    is: read at 0.99 they are not certain; the same confidence is where nothing allowed
    looks alike."""
    from escalero.scan.recognize import READING, lookalike

    reader = DigitModelRecognizer(lone_stroke=False)
    p = (reader.calibration.accept + READING.lookalike_accept) / 2
    jacks, queens = (3, 6, 9, 12, 15), (4, 8, 12, 16, 20)

    def crop(row: str, allowed: tuple[int, ...]) -> CellCrop:
        return CellCrop(np.zeros((1, 1, 3), np.uint8), allowed, row=row_key(row, allowed))

    struck_jacks = reader._decode(_struck_or(9, p), crop("jacks", jacks))
    assert not struck_jacks.certain
    struck_queens = reader._decode(_struck_or(8, p), crop("queens", queens))
    assert struck_queens.value == "x" and struck_queens.certain
    # A strike there (a 9's tail, a neighbour's stroke) needs struck_lookalike_accept.
    just_below = READING.struck_lookalike_accept - 0.0005
    assert not reader._decode(_struck_or(9, just_below), crop("jacks", jacks)).certain
    assert reader._decode(_struck_or(9, (1 + READING.struck_lookalike_accept) / 2),
                          crop("jacks", jacks)).certain
    twelve = reader._decode(_two_digits(1, 2, 8, p), crop("aces", ACES))
    assert twelve.value == 12 and not twelve.certain
    eighteen = reader._decode(_two_digits(1, 8, 2, p), crop("aces", ACES))
    assert eighteen.value == 18 and eighteen.certain
    assert lookalike(jacks, 6) and not lookalike(jacks, 9) and not lookalike(queens, 12)
    assert not lookalike(NINES, "x") and lookalike((2, 4, 6, 8, 10), "x")
