"""A lone stroke: a 1 or a strike? The network's split between them, refitted.

In the Neuner row and Generala's ones row a 1 and a strike are both allowed, and a
slanted 1 looks like a slash: that is the commonest unsure cell. The network learned its
odds between them from its training cells, which hold a strike about 7 times as often as a
lone 1 (samples.cell_crops.training_entry); a played Neuner row holds about three 1s per
strike. So its log-odds of 1 against struck are refitted as `slope * log_odds + intercept`
on cells by training writers, half 1s and half strikes (an even prior: no row's own mix is
assumed), and the accept threshold is measured again on evaluation writers with a played
row's mix (`tools/fit_lone_stroke.py`, `scan/models/lone_stroke.json`).

Only the mass the network gave to 1 and struck *together* is split anew; every other
reading (a 2, an empty cell, a number the row does not allow) keeps its probability, so
ink that looks like neither stays unsure. The stroke's geometry (length in mm, slant,
width) was tried as more evidence and added 9 accepted cells to 1,219 on 3,000 cells:
the window the network reads through already shows it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from escalero.scan import digit_model
from escalero.scoring.model import CellValue

MODEL_PATH = digit_model.MODEL_DIR / "lone_stroke.json"
# A numeric guard, not a tuned value: where the network gives 1 or struck no mass at all,
# its log-odds are this (sigmoid(1.5 * 30) is 1 to 19 digits).
LOG_ODDS_CLIP = 30.0


@dataclass(frozen=True)
class LoneStrokeSettings:
    """Which cells the refitted split applies to (ReadingSettings.lone_stroke; the split
    itself is fitted in models/lone_stroke.json, with tools/fit_lone_stroke.py choosing its
    cells by the same rule)."""

    # Only where 1 and struck hold at least this share of the cell's mass together. Set by
    # hand, not fitted (046f7fe: "most of the cell's mass").
    min_share: float = 0.5

    def __post_init__(self) -> None:
        if not 0.0 < self.min_share <= 1.0:
            raise ValueError("lone stroke: min_share is a share in (0, 1]")


LONE_STROKE = LoneStrokeSettings()


@dataclass(frozen=True)
class LoneStrokeModel:
    """P(1 | 1 or struck) = sigmoid(slope * log(p1 / p_struck) + intercept); a cell it
    splits is certain from `accept` on (measured on evaluation writers, never below the
    network's own threshold)."""

    slope: float
    intercept: float
    accept: float = 1.01  # never certain unless the model file says otherwise

    @staticmethod
    def load(path: Path = MODEL_PATH) -> LoneStrokeModel | None:
        if not path.exists():
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        return LoneStrokeModel(float(data["slope"]), float(data["intercept"]),
                               float(data["accept"]))

    def p_one(self, log_odds: float) -> float:
        z = self.slope * log_odds + self.intercept
        return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))

    def split(self, ranked: Sequence[tuple[CellValue, float]]
              ) -> tuple[tuple[CellValue, float], ...]:
        """The readings with the mass of 1 and struck split anew, best first."""
        probs = dict(ranked)
        mass = probs.get(1, 0.0) + probs.get("x", 0.0)
        p_one = self.p_one(log_odds(ranked))
        probs[1], probs["x"] = mass * p_one, mass * (1.0 - p_one)
        return tuple(sorted(probs.items(), key=lambda vp: -vp[1]))


@lru_cache(maxsize=2)
def load(path: Path = MODEL_PATH) -> LoneStrokeModel | None:
    return LoneStrokeModel.load(path)


def applies(ranked: Sequence[tuple[CellValue, float]], allowed: tuple[int, ...] | None,
            settings: LoneStrokeSettings = LONE_STROKE) -> bool:
    """A row cell that allows a 1, read as 1 or struck, those two holding at least
    settings.min_share of its mass."""
    if allowed is None or 1 not in allowed or not ranked or ranked[0][0] not in (1, "x"):
        return False
    probs = dict(ranked)
    return probs.get(1, 0.0) + probs.get("x", 0.0) >= settings.min_share


def log_odds(ranked: Sequence[tuple[CellValue, float]]) -> float:
    """The network's log-odds of 1 against struck (clipped: one of them may be ~0)."""
    probs = dict(ranked)
    p_one, p_struck = probs.get(1, 0.0), probs.get("x", 0.0)
    if p_one <= 0.0 or p_struck <= 0.0:
        return LOG_ODDS_CLIP if p_one > 0.0 else -LOG_ODDS_CLIP
    return max(-LOG_ODDS_CLIP, min(LOG_ODDS_CLIP, math.log(p_one) - math.log(p_struck)))

