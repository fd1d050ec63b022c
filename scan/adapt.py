"""The sheet's own writer: re-read a sheet's unsure cells against its certain ones.

A sheet is filled by one scorekeeper, or a few. The cells the network read with certainty
are labelled examples of those hands. An unsure cell whose penultimate features (the
network's last hidden layer, `digit_model.FEATURES_OUTPUT`) lie much closer to the sheet's
certain examples of its first reading than to any example of its rivals is re-weighed:

    q(v) ∝ p(v) · exp(SHARPNESS · s(v))

with s(v) the cosine similarity to the nearest certain example of v. A rival that has no
example on the sheet cannot be ruled out by the hand, so it gets the best similarity any
candidate has (it loses nothing); neither does the mass on readings outside the
distribution. So adaptation only decides between numbers the sheet itself shows; a strike
or an empty cell is never made certain, nor ruled out, by it (`_number`).

Safety, as for the written totals (scan/cells.py): adaptation never changes a reading,
only makes the network's own first choice certain, and only when the network already gave
it at least MIN_OWN_CONFIDENCE and its nearest example is close (MIN_SIMILARITY). Cells it
does not make certain keep the network's reading and distribution untouched, so the calibration the
payout model relies on is the network's. The thresholds were set on bench photos, and the
count of wrong readings made certain is measured by `python -m benchmarks.adapt`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from escalero.scan.recognize import CellReading
from escalero.scoring.model import CellValue

SHARPNESS = 40.0  # log-odds per unit of cosine similarity
MIN_OWN_CONFIDENCE = 0.8  # the network's own confidence in a reading adaptation may make certain
MIN_SIMILARITY = 0.9  # cosine to the nearest certain example of that reading
MIN_CANDIDATE = 1e-3  # rivals below this are left with their (tiny) mass unchanged


@dataclass(frozen=True)
class AdaptParams:
    sharpness: float = SHARPNESS
    floor: float = MIN_OWN_CONFIDENCE
    min_similarity: float = MIN_SIMILARITY


@dataclass(frozen=True)
class Adapted:
    readings: tuple[CellReading, ...]
    made_certain: tuple[int, ...]  # indices of the cells adaptation made certain
    examples: int  # certain cells used as examples


def adapt(readings: Sequence[CellReading], features: np.ndarray,
          threshold: Callable[[int, CellValue], float],
          params: AdaptParams = AdaptParams()) -> Adapted:
    """Re-weigh each unsure cell's candidates by the sheet's certain cells (module doc).

    `features`: one row per reading (any scale; compared by cosine). `threshold(i, value)`:
    the accept threshold of cell i read as value (the recognizer's own).
    """
    out = list(readings)
    known = [i for i, r in enumerate(readings) if r.certain]
    if not known or len(features) != len(readings):
        return Adapted(tuple(out), (), len(known))
    unit = features / np.maximum(np.linalg.norm(features, axis=1, keepdims=True), 1e-9)
    by_value: dict[CellValue, np.ndarray] = {}
    for v in {readings[i].value for i in known}:
        by_value[v] = unit[[i for i in known if readings[i].value == v]]
    made = []
    for i, r in enumerate(readings):
        if r.certain or r.confidence < params.floor or not _number(r.value) \
                or r.value not in by_value:
            continue
        dist = r.distribution or ((r.value, r.confidence), *r.alternatives)
        sims = {v: float((by_value[v] @ unit[i]).max()) for v, p in dist
                if p >= MIN_CANDIDATE and v in by_value and _number(v)}
        if sims[r.value] < params.min_similarity:
            continue
        best = max(sims.values())  # what an unseen rival (or the rest) is granted
        weights = {v: p * np.exp(params.sharpness * (sims.get(v, best) - best))
                   if p >= MIN_CANDIDATE else p for v, p in dist}
        rest = max(0.0, 1.0 - sum(p for _, p in dist))  # readings outside the distribution
        norm = sum(weights.values()) + rest
        q = weights[r.value] / norm
        if q < threshold(i, r.value) or max(weights, key=weights.__getitem__) != r.value:
            continue
        ranked = sorted(((v, w / norm) for v, w in weights.items()), key=lambda a: -a[1])
        out[i] = CellReading.from_ranked(ranked, threshold(i, r.value))
        made.append(i)
    return Adapted(tuple(out), tuple(made), len(known))


def _number(value: CellValue) -> bool:
    """Only numbers are told apart by the hand. A strike is one stroke, like a hasty 1 or
    a dash, and carries too little of the writer to rule a number out (on the bench a
    writer's 1 matched their strikes better than their other 1s); empty against faint ink
    is a question of ink, not of hand (scan.marks)."""
    return isinstance(value, int) and not isinstance(value, bool)
