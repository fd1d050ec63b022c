"""The sheet's own writer: re-read a sheet's unsure cells against its certain ones.

A sheet is filled by one scorekeeper, or a few. The cells the network read with certainty
are labelled examples of those hands. An unsure cell whose penultimate features (the
network's last hidden layer, `digit_model.FEATURES_OUTPUT`) lie much closer to the sheet's
certain examples of its first reading than to any example of its rivals is re-weighed:

    q(v) ∝ p(v) · exp(sharpness · s(v))

with s(v) the cosine similarity to the nearest certain example of v. A rival that has no
example on the sheet cannot be ruled out by the hand, so it gets the best similarity any
candidate has (it loses nothing); neither does the mass on readings outside the
distribution. So adaptation only decides between numbers the sheet itself shows; a strike
or an empty cell is never made certain, nor ruled out, by it (`_number`).

Safety, as for the written totals (scan/cells.py): adaptation never changes a reading,
only makes the network's own first choice certain, and only when the network already gave
it at least AdaptParams.floor and its nearest example is close (min_similarity). Cells it
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


@dataclass(frozen=True)
class AdaptParams:
    """The adaptation's values (adapt(..., params); benchmarks.adapt varies them). Set on
    bench photos by hand (0fe3c5e), each measured with benchmarks.adapt (the wrong readings
    it makes certain); adaptation is off by default (ScanOptions.adapt)."""

    # Log-odds per unit of cosine similarity. Set by hand on bench photos (0fe3c5e;
    # benchmarks.adapt tries 20, 40 and 80).
    sharpness: float = 40.0
    # The network's own confidence a reading needs before adaptation may make it certain.
    # Set by hand on bench photos (0fe3c5e).
    floor: float = 0.8
    # Cosine similarity to the nearest certain example of that reading it needs. Set by
    # hand on bench photos (0fe3c5e).
    min_similarity: float = 0.9
    # Rivals less likely than this are left with their (tiny) mass unchanged. Set by hand,
    # not fitted (0fe3c5e).
    min_candidate: float = 1e-3

    def __post_init__(self) -> None:
        if self.sharpness < 0 or not 0.0 <= self.floor <= 1.0:
            raise ValueError("adapt: need sharpness >= 0 and floor in [0, 1]")
        if not -1.0 <= self.min_similarity <= 1.0 or not 0.0 <= self.min_candidate <= 1.0:
            raise ValueError("adapt: min_similarity is a cosine in [-1, 1], min_candidate a "
                             "probability in [0, 1]")


ADAPT = AdaptParams()


@dataclass(frozen=True)
class Adapted:
    readings: tuple[CellReading, ...]
    made_certain: tuple[int, ...]  # indices of the cells adaptation made certain
    examples: int  # certain cells used as examples


def adapt(readings: Sequence[CellReading], features: np.ndarray,
          threshold: Callable[[int, CellValue], float],
          params: AdaptParams = ADAPT) -> Adapted:
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
                if p >= params.min_candidate and v in by_value and _number(v)}
        if sims[r.value] < params.min_similarity:
            continue
        best = max(sims.values())  # what an unseen rival (or the rest) is granted
        weights = {v: p * np.exp(params.sharpness * (sims.get(v, best) - best))
                   if p >= params.min_candidate else p for v, p in dist}
        rest = max(0.0, 1.0 - sum(p for _, p in dist))  # readings outside the distribution
        norm = sum(weights.values()) + rest
        q = weights[r.value] / norm
        if q < threshold(i, r.value) or max(weights, key=weights.__getitem__) != r.value:
            continue
        ranked = sorted(((v, w / norm) for v, w in weights.items()), key=lambda a: -a[1])
        out[i] = CellReading.from_ranked(ranked, threshold(i, r.value),
                                          by="the sheet's own hand (scan.adapt)")
        made.append(i)
    return Adapted(tuple(out), tuple(made), len(known))


def _number(value: CellValue) -> bool:
    """Only numbers are told apart by the hand. A strike is one stroke, like a hasty 1 or
    a dash, and carries too little of the writer to rule a number out (on the bench a
    writer's 1 matched their strikes better than their other 1s); empty against faint ink
    is a question of ink, not of hand (scan.marks)."""
    return isinstance(value, int) and not isinstance(value, bool)
