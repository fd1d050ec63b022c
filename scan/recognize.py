"""Cell recognizers: turn cell crops into readings with calibrated confidence.

Contract (docs/ARCHITECTURE.md, "Cell reading contract"): a crop is the writable box grown
by 1.5 mm each side at 10 px/mm, BGR. A reading's `value` is what the sheet JSON holds:
None (empty), "x" (struck; a written 0 is struck too) or an int. `confidence` is the
probability that the reading is right; `certain` says it reached the recognizer's accept
threshold. A recognizer never returns a number the row does not allow: such writing draws
probability away from the allowed readings, so the cell comes back uncertain instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np
from escalero.scan import (
    digit_model,
    edge_ink,
    jitter,
    line_strikes,
    rings,
    small_ink,
    written_zero,
)
from escalero.scan import lone_stroke as lone_stroke_mod
from escalero.scan.digit_model import DECODING, DecodeSettings
from escalero.scan.edge_ink import EDGE_INK, EdgeInkSettings
from escalero.scan.jitter import JITTERS, Jitter
from escalero.scan.line_strikes import LINE_STRIKES, LineStrikeSettings
from escalero.scan.lone_stroke import LONE_STROKE, LoneStrokeSettings
from escalero.scan.rings import RINGS, RingSettings
from escalero.scan.small_ink import SMALL_INK, SmallInkSettings
from escalero.scan.written_zero import WRITTEN_ZERO, WrittenZeroSettings
from escalero.scoring.errors import ToolMissingError
from escalero.scoring.model import CellValue

# The output's format, not tuned: a reading lists the next few likely readings as its
# alternatives, down to a small probability (set by hand; the review shows them).
MAX_ALTERNATIVES = 3
MIN_ALTERNATIVE = 0.001

@dataclass(frozen=True)
class ReadingSettings:
    """When the recognizer calls a reading certain, beyond the threshold fitted next to the
    weights (models/digits.json: temperature, accept, accept_total; models/lone_stroke.json:
    the 1-or-struck split and its own accept; their recipes in docs/digit-model.md). A
    recognizer reads with one (DigitModelRecognizer(settings=...), ScanOptions.reading).
    Each field says what it was fitted on."""

    # No reading is certain below this, whatever digits.json says (0.98): fitted on
    # benchmarks.real (818 cells of 15 real photos, truth by eye; d03e04c), where a 9 with a
    # long tail read as 8 at 0.982; too few cells to fit a threshold on, so the stricter holds.
    real_photo_accept: float = 0.985
    # Readings the network is surer of than it should be on other writers' hands
    # (lookalike()): a strike where the row allows a number a quick hand writes as one
    # stroke (a slashed 9, a 10 whose 1 is faint), and a number where the row also allows it
    # with one digit drawn alike (a 12 that is an 18, a 6 that is a 9). Fitted on 6,298
    # stored bench sheets (seeds 42x0000-45x0000, 55x0000-58x0000; 10778b7): such certain
    # readings between 0.98 and 0.995 were wrong 1-5% of the time (a Buben strike: 16 of
    # 308), where the accept threshold is fitted for 0.02%.
    lookalike_accept: float = 0.995
    # A strike there needs more still: fitted on benchmarks.real (d03e04c), where an empty
    # golf cell holding a circled number's tail read as struck at 0.998; on the 6,298 bench
    # sheets 0.999 cost 0.06 flags per sheet and left one silent cell fewer. The team of
    # stage 17 + stage 18 reads no real strike wrong above 0.986, and at 0.995 would read 47
    # more real written 0s certain, all right; but on fresh pub photo 13500000-049 it reads
    # a Buben 9 as struck at 0.996 (the 9 at 0.003), certain and wrong there.
    struck_lookalike_accept: float = 0.999
    # A strike whose ink is one written 0 (scan.written_zero: no tail, stem or 1 beside
    # it) needs only this there, and where the row allows a 1 instead of the 1-or-struck
    # split's accept, never less than the floor above: the shape rules out the lookalikes
    # above and a lone stroke. Set on benchmarks.real (2026-12-07): 42 more written 0s
    # certain where a 9 is allowed, 11 more where a 1 is, all right; fresh mild 3 / 6-side
    # and pub sets (600 photos) no silent error more.
    written_zero_accept: float = 0.985
    # Only an unsure reading this sure gets the second look (scan.jitter): fitted on 300
    # tuning sheets (51e83eb), where every cell the second look made certain had been read
    # at >= 0.90.
    second_look_from: float = 0.8
    # An unsure cell read otherwise without a neighbour's stroke at its edge takes that
    # second reading (never certain) only this sure of it. Fitted on benchmarks.real's
    # digit strings (the ones written close, where the neighbours' digits reach into every
    # crop: 24 second readings at 0.95-1.0 right, two at 0.25-0.36 wrong) and fresh pub
    # photos 11200000 (a Damen 8 read as 4 at 0.56 with the 8's own bow taken off).
    neighbour_free_from: float = 0.9
    # A reading certain only as read without that stroke (read through it, the cell was
    # unsure) needs this: the accept threshold was fitted on crops with nothing painted
    # out. Fitted on benchmarks.real (team of stage 17 + stage 18), where a 9 with a small
    # loop and a long tail, its neighbour's 9 taken off, read as 8 at 0.993 (0.982 with
    # the team before).
    neighbour_free_accept: float = 0.994
    # A cell read below enlarged_below whose writing is much smaller than its box
    # (scan.small_ink) takes the reading of it enlarged (never certain) only this sure of
    # it and surer than the first. Set by hand on benchmarks.real's digit strings, where
    # small 0s read at 0.00-0.73 enlarged read as written 0s at 0.97-0.99 (2026-12-06).
    # A reading nearly sure at the writing's own size is not read again: fresh mild 6-side
    # photo 11800000-048's small Neuner 2, read as 1 at 0.987, read as 1 at 0.9989
    # enlarged, and the column's total, weighing that, confirmed it (a silent error).
    enlarged_from: float = 0.9
    enlarged_below: float = 0.8
    # A cell whose row allows no reading the network gives more than box_alone_below,
    # while it reads a number with more digits than the row's values have (a digit string
    # written across the lines: the neighbours' digits lie in the crop's margin and
    # reach into the box), is read again with only its writable box; that reading stands
    # (never certain) where it is box_alone_from sure and surer than the first. Set by hand
    # on benchmarks.real's digit strings (2026-12-07): 11 cells read so, 10 right at
    # 0.45-0.98 (6 of them wrong before), a 2 read as 4 at 0.97 (read 4 before too); box
    # readings at 0.22-0.29 were wrong.
    box_alone_below: float = 0.1
    box_alone_from: float = 0.4
    # The second look's small changes of the crop (fitted on 300 tuning sheets: jitter.JITTERS).
    jitters: tuple[Jitter, ...] = JITTERS
    # How a cell's scores are ranked (digit_model.DecodeSettings), what counts as a
    # neighbour's stroke at its edge (scan.edge_ink) and which cells the 1-or-struck split
    # is refitted for (scan.lone_stroke); each field there says what it was fitted on.
    decoding: DecodeSettings = DECODING
    edge_ink: EdgeInkSettings = EDGE_INK
    lone_stroke: LoneStrokeSettings = LONE_STROKE
    # What counts as a ring drawn round a cell's writing (scan.rings), set by hand there.
    rings: RingSettings = RINGS
    # When a line across the whole crop is a hand's strike (scan.line_strikes), set by hand.
    line_strikes: LineStrikeSettings = LINE_STRIKES
    # When writing counts as small, and how far it is enlarged (scan.small_ink), by hand.
    small_ink: SmallInkSettings = SMALL_INK
    # What counts as a strike written as a 0 (scan.written_zero), set by hand there.
    written_zero: WrittenZeroSettings = WRITTEN_ZERO

    def __post_init__(self) -> None:
        if not all(0.0 < v <= 1.0 for v in (self.second_look_from, self.neighbour_free_from,
                                            self.neighbour_free_accept, self.enlarged_from,
                                            self.enlarged_below, self.box_alone_below,
                                            self.box_alone_from)):
            raise ValueError("reading: need 0 < second_look_from, neighbour_free_from, "
                             "neighbour_free_accept, enlarged_from, enlarged_below, "
                             "box_alone_below, box_alone_from <= 1")
        if not self.jitters or any(j.scale <= 0 or j.thicker < 0 for j in self.jitters):
            raise ValueError("reading: the second look needs at least one jitter, each "
                             "with scale > 0 and thicker >= 0")
        if not 0.0 <= self.real_photo_accept <= self.lookalike_accept \
                <= self.struck_lookalike_accept <= 1.0 \
                or not 0.0 < self.written_zero_accept <= self.struck_lookalike_accept:
            raise ValueError("reading: need 0 <= real_photo_accept <= lookalike_accept <= "
                             "struck_lookalike_accept <= 1 and 0 < written_zero_accept <= "
                             "struck_lookalike_accept")


READING = ReadingSettings()
STRUCK_LOOKALIKES = (9, 10)  # numbers a strike may be
DIGIT_LOOKALIKES = (("2", "8"), ("6", "9"))  # (digit read, digit it may be)


def lookalike(allowed: tuple[int, ...], reading: CellValue) -> bool:
    """Whether `reading` of a cell whose row allows `allowed` is one of the readings that
    need ReadingSettings.lookalike_accept (see there)."""
    if reading == "x":
        return any(v in allowed for v in STRUCK_LOOKALIKES)
    if not isinstance(reading, int):
        return False
    return any(one_digit_swap(reading, v) in DIGIT_LOOKALIKES for v in allowed)


def one_digit_swap(a: object, b: object) -> tuple[str, str] | None:
    """The one digit that differs between two numbers written with as many digits
    (92, 98 -> ("2", "8")), else None."""
    da, db = str(a), str(b)
    if len(da) != len(db):
        return None
    diff = [(x, y) for x, y in zip(da, db, strict=True) if x != y]
    return diff[0] if len(diff) == 1 else None


def top_alternatives(ranked: Sequence[tuple[CellValue, float]]
                     ) -> tuple[tuple[CellValue, float], ...]:
    """The readings after the first of `ranked` (best first) that a review shows."""
    return tuple((v, p) for v, p in ranked[1:1 + MAX_ALTERNATIVES] if p >= MIN_ALTERNATIVE)


@dataclass(frozen=True)
class CellCrop:
    image: np.ndarray  # BGR uint8 (grey is accepted too)
    allowed: tuple[int, ...] | None  # the row's values; None: any number 0-999 (totals)
    box_px: tuple[int, int, int, int] | None = None  # writable box inside the crop
    # A written total (allowed None): numbers above this only draw mass, as a row's
    # disallowed values do. None: every number up to 999 is a total's reading.
    total_cap: int | None = None
    # The row (digit_model.row_key): its entries' shares weigh the readings. None: the
    # network's own prior (written totals, or ScanOptions.row_priors off).
    row: str | None = None


@dataclass(frozen=True)
class CellReading:
    kind: str  # "empty", "struck" or "value"
    value: CellValue
    confidence: float
    alternatives: tuple[tuple[CellValue, float], ...]  # next likely readings, best first
    certain: bool
    # Every reading the recognizer weighed, best first, down to 1e-6: the totals check
    # needs a written total's probability of *any* sum, not only of the top few.
    distribution: tuple[tuple[CellValue, float], ...] = ()
    # The likeliest numbers the row does not allow (digit_model.Decoded.outside).
    outside: tuple[tuple[int, float], ...] = ()
    # Why the recognizer calls it certain or not (its confidence against its accept
    # threshold, or the step that changed its verdict): the reading pass records it in the
    # cell's reasons (scan.cells.to_results). A record for developers, never shown, and no
    # part of what the reading is (readings compare without it).
    why: str = field(default="", compare=False)

    @staticmethod
    def from_ranked(ranked: Sequence[tuple[CellValue, float]], accept: float,
                    outside: Sequence[tuple[int, float]] = (), by: str = "") -> CellReading:
        """The reading of `ranked` (best first): certain from `accept` on. `by`: what read it
        so, if not the recognizer's first reading (said in `why`)."""
        value, conf = ranked[0]
        kind = "empty" if value is None else "struck" if value == "x" else "value"
        alts = tuple((v, round(float(p), 4)) for v, p in top_alternatives(ranked))
        dist = tuple((v, float(p)) for v, p in ranked if p >= 1e-6)
        certain = bool(conf >= accept)
        return CellReading(kind=kind, value=value, confidence=float(conf),
                           alternatives=alts, certain=certain, distribution=dist,
                           outside=tuple((v, p) for v, p in outside if p >= 1e-6),
                           why=verdict_why(float(conf), accept, certain, by))


def verdict_why(confidence: float, accept: float, certain: bool, by: str = "") -> str:
    """A reading's `why`: "confidence 0.9312 below accept 0.9850" (by: "second look: ...")."""
    said = (f"confidence {confidence:.4f} at or above accept {accept:.4f}" if certain
            else f"confidence {confidence:.4f} below accept {accept:.4f}")
    return f"{by}: {said}" if by else said


def lowered(reading: CellReading, why: str) -> CellReading:
    """`reading` no longer certain, and why: the one way the recognizer takes back a
    verdict it gave (raising one is a new reading, from_ranked)."""
    return replace(reading, certain=False, why=why)


def no_total_struck(ranked: Sequence[tuple[CellValue, float]]
                    ) -> tuple[tuple[CellValue, float], ...]:
    """A written total is a number or none (the sheet holds an int or null): a strike, or a
    written 0, in the Summe row is no total, so its mass joins the empty reading's."""
    probs = dict(ranked)
    if "x" not in probs:
        return tuple(ranked)
    probs[None] = probs.get(None, 0.0) + probs.pop("x")
    return tuple(sorted(probs.items(), key=lambda vp: -vp[1]))


class Capability(StrEnum):
    """What a recognizer offers beyond `read`, declared in its `capabilities`."""

    # read_with_features(crops) -> (readings, penultimate features or None): scan.adapt
    # compares a sheet's cells with them (FeatureRecognizer).
    FEATURES = "features"
    # .calibration, a digit_model.Calibration: its accept thresholds and how often its
    # certain readings were wrong, which the payout keeps as doubt (Calibrated).
    CALIBRATED = "calibrated"


@runtime_checkable
class Recognizer(Protocol):
    name: str
    capabilities: frozenset[Capability]

    def available(self) -> bool: ...

    def read(self, crops: Sequence[CellCrop]) -> list[CellReading]: ...


class Calibrated(Recognizer, Protocol):
    """A recognizer with Capability.CALIBRATED."""

    calibration: digit_model.Calibration


class FeatureRecognizer(Calibrated, Protocol):
    """A recognizer with Capability.FEATURES (and CALIBRATED: adapt needs its thresholds)."""

    def read_with_features(self, crops: Sequence[CellCrop], features: bool = True
                           ) -> tuple[list[CellReading], np.ndarray | None]: ...


class DigitModelRecognizer:
    """The default: the committed CNN (scan/models/digits.onnx), batched, via ONNX Runtime
    where it is installed, else cv2.dnn."""

    name = "default"
    capabilities = frozenset({Capability.FEATURES, Capability.CALIBRATED})

    def __init__(self, model_path: Path | None = None, max_members: int | None = None,
                 engine: str | None = None, lone_stroke: bool = True,
                 edge_ink: bool = True, second_look: bool = True,
                 settings: ReadingSettings = READING) -> None:
        self.model_path = Path(model_path or digit_model.MODEL_PATH)
        self.settings = settings
        # Temperature and accept threshold live next to the weights (digits.json).
        self.calibration = digit_model.Calibration.load(self.model_path.with_suffix(".json"),
                                                        settings.real_photo_accept)
        # Read once, not per photo. `max_members` only serves benchmarks: the calibration
        # in digits.json is fitted to the whole team's mean logits.
        team = digit_model.members(self.model_path)
        self.members = team[:max_members]
        self.engine = engine or digit_model.default_engine()  # onnxruntime, else cv2.dnn
        # The 1-or-struck split refitted for this team (scan.lone_stroke); not for a part
        # of the team, nor where the model folder has none.
        self.lone_stroke = (lone_stroke_mod.load(self.model_path.parent / "lone_stroke.json")
                            if lone_stroke and len(self.members) == len(team) else None)
        self.edge_ink = edge_ink  # read cells again without a neighbour's ink at their edge
        self.second_look = second_look  # read unsure cells again, jittered (scan.jitter)

    def available(self) -> bool:
        return self.model_path.exists() and all(p.exists() for p in self.members)

    def _batch(self, crops: Sequence[CellCrop]) -> np.ndarray:
        if not self.available():
            raise ToolMissingError(
                f"digit model {self.model_path} is missing; reinstall escalero or run "
                "tools/train_digits.py")
        return digit_model.preprocess_batch([c.image for c in crops])

    def logits(self, crops: Sequence[CellCrop]) -> np.ndarray:
        return digit_model.run_members(self._batch(crops), self.members, self.engine)

    def _logits_of(self, images: Sequence[np.ndarray], keep_rules: bool = False
                   ) -> np.ndarray:
        """The team's mean logits of crop images read again (the model is known present;
        `keep_rules`: digit_model.preprocess_batch's)."""
        return digit_model.run_members(digit_model.preprocess_batch(images, keep_rules),
                                       self.members, self.engine)

    def read(self, crops: Sequence[CellCrop]) -> list[CellReading]:
        return self.read_with_features(crops, features=False)[0]

    def read_with_features(self, crops: Sequence[CellCrop], features: bool = True
                           ) -> tuple[list[CellReading], np.ndarray | None]:
        """The readings and, from the same pass, each cell's penultimate features (None if
        the model has no such output): scan.adapt compares cells of one sheet with them."""
        batch = self._batch(crops)
        if features:
            logits, feats = digit_model.run_members_features(batch, self.members, self.engine)
        else:
            logits, feats = digit_model.run_members(batch, self.members, self.engine), None
        out = self._decode_all(logits, crops)
        cut = crops  # as cut: edge_ink may paint a line's ends at the edge as a neighbour's
        cleaned: set[int] = set()
        if self.edge_ink:
            out, crops, logits, cleaned = self._without_neighbours(crops, out, logits)
            out, boxed = self._box_alone(crops, out)
            cleaned |= boxed
        out, ringed = self._without_rings(crops, out)
        out, enlarged = self._enlarged(crops, out, skip=ringed)
        out, lined = self._with_lines_kept(cut, out)
        if self.second_look:
            out = self._jittered(crops, logits, out, skip=cleaned | ringed | enlarged | lined)
        return out, feats

    def _decode_all(self, logits: np.ndarray, crops: Sequence[CellCrop], by: str = ""
                    ) -> list[CellReading]:
        """Each crop's reading from its logits; `by`: what read it (CellReading.why)."""
        empty, struck, numbers = digit_model.score_cells(
            logits.reshape(len(crops), digit_model.N_OUT), self.calibration.temperature)
        return [self._decode(digit_model.CellScores(float(empty[i]), float(struck[i]),
                                                    numbers[i]), c, by)
                for i, c in enumerate(crops)]

    def _without_neighbours(self, crops: Sequence[CellCrop], readings: list[CellReading],
                            logits: np.ndarray
                            ) -> tuple[list[CellReading], list[CellCrop], np.ndarray, set[int]]:
        """Unsure cells with a neighbour's stroke at their edge (scan.edge_ink) read again
        without it. Where both readings agree on the value, the second stands (the first
        was read through the stroke), certain only from ReadingSettings.
        neighbour_free_accept (the cleaned crop is new to the network). Where they
        differ, the second stands only where it is nearly sure (ReadingSettings.
        neighbour_free_from) and holds as many digits, and the cell stays unsure: the
        stroke may have been the writer's own digit, but a number read through a
        neighbour's half-seen digits is a guess (on the real photos' digit
        strings such first readings were unsure at 0.00-0.05). Certain cells are not read
        again: on 80 tuning
        sheets no second reading of one disagreed, and a sheet's unsure cells are few, so
        the second batch is small. The exception is a certain number of two or more digits:
        a neighbour's stroke at the edge reads as a leading 1 (a 5 read as 15 at 0.988 on a
        fresh sheet), so where it reads otherwise without the stroke it is no longer
        certain. Returns the readings, the crops and logits they stand on (the cleaned
        crop where the second reading stood), for the second look, and the cells the
        second look must leave unsure: those whose value the second reading changed, and
        those it left short of neighbour_free_accept."""
        again = [(i, clean) for i, c in enumerate(crops)
                 if (not readings[i].certain or _multi_digit(readings[i].value))
                 and (clean := edge_ink.without_neighbours(c.image, c.box_px,
                                                          self.settings.edge_ink)) is not None]
        if not again:
            return readings, list(crops), logits, set()
        cleaned = [replace(crops[i], image=clean) for i, clean in again]
        second_logits = self._logits_of([clean for _, clean in again])
        second = self._decode_all(second_logits, cleaned, by="without a neighbour's stroke")
        out, used, logits = list(readings), list(crops), logits.copy()
        leave_unsure = set()
        for k, ((i, _), reading) in enumerate(zip(again, second, strict=True)):
            if readings[i].certain:
                if reading.value != readings[i].value:
                    out[i] = lowered(readings[i], f"reads {_said(reading.value)} without "
                                     "a neighbour's stroke at its edge")
            elif reading.value == readings[i].value:
                out[i], used[i], logits[i] = reading, cleaned[k], second_logits[k]
                floor = self.settings.neighbour_free_accept
                if reading.certain and reading.confidence < floor:
                    out[i] = lowered(reading, f"{reading.why}; below {floor} read so only "
                                     "without a neighbour's stroke")
                    leave_unsure.add(i)
            elif (reading.confidence >= self.settings.neighbour_free_from
                  and digit_count(reading.value) >= digit_count(readings[i].value)):
                # (A digit fewer is the writer's own leading digit taken for a neighbour's:
                # 126 read as 26 with its 1 in the margin, a 10 as a written 0.)
                out[i] = lowered(reading, f"{reading.why}; reads {_said(readings[i].value)} "
                                 "with the stroke, so never certain by itself")
                used[i], logits[i] = cleaned[k], second_logits[k]
                leave_unsure.add(i)
        return out, used, logits, leave_unsure

    def _box_alone(self, crops: Sequence[CellCrop], readings: list[CellReading]
                   ) -> tuple[list[CellReading], set[int]]:
        """Unsure cells that read as a number longer than any their row allows, and as none
        of its values (ReadingSettings.box_alone_below), read again with only their
        writable box (scan.edge_ink.box_alone): the reading stands where it is
        box_alone_from sure and surer than the first, never certain by itself (the
        network was trained on crops with their margin). Returns the readings and the
        cells read so."""
        settings = self.settings
        again = [(i, clean) for i, c in enumerate(crops)
                 if c.allowed and not readings[i].certain
                 and readings[i].confidence < settings.box_alone_below
                 and readings[i].outside and readings[i].outside[0][1] > readings[i].confidence
                 and digit_count(readings[i].outside[0][0])
                 > max(digit_count(v) for v in c.allowed)
                 and (clean := edge_ink.box_alone(c.image, c.box_px)) is not None]
        return self._read_instead(
            crops, readings, again, "from its box alone",
            lambda first, second: second.confidence >= max(settings.box_alone_from,
                                                           first.confidence))

    def _read_instead(self, crops: Sequence[CellCrop], readings: list[CellReading],
                      again: list[tuple[int, np.ndarray]], by: str,
                      stands: Callable[[CellReading, CellReading], bool]
                      ) -> tuple[list[CellReading], set[int]]:
        """The cells `again` ((index, the crop's image to read instead)) read so (`by`);
        a second reading takes a cell's place where `stands(first, second)`, and is never
        certain by itself. Returns the readings and the cells whose reading was taken."""
        if not again:
            return readings, set()
        cleaned = [replace(crops[i], image=image) for i, image in again]
        second = self._decode_all(self._logits_of([image for _, image in again]), cleaned,
                                  by=by)
        out, taken = list(readings), set()
        for (i, _), reading in zip(again, second, strict=True):
            if stands(readings[i], reading):
                out[i] = lowered(reading, f"{reading.why}; read {by}, which never makes a "
                                 "reading certain")
                taken.add(i)
        return out, taken

    def _without_rings(self, crops: Sequence[CellCrop], readings: list[CellReading]
                       ) -> tuple[list[CellReading], set[int]]:
        """Unsure cells with a ring drawn round their writing (scan.rings) read again
        without it; the second reading stands where it is surer than the first, but is
        never certain by itself: the accept threshold was fitted on cells that hold no
        ring, and what is left of one is new to the network. (The written totals may still
        confirm it.) Returns the readings and the cells read so."""
        again = [(i, clean) for i, c in enumerate(crops) if not readings[i].certain
                 and (clean := rings.without_ring(c.image, c.box_px, self.settings.rings,
                                                  self.settings.edge_ink)) is not None]
        return self._read_instead(
            crops, readings, again, "without the ring drawn round it",
            lambda first, second: second.confidence > first.confidence)

    def _enlarged(self, crops: Sequence[CellCrop], readings: list[CellReading], skip: set[int]
                  ) -> tuple[list[CellReading], set[int]]:
        """Cells read below ReadingSettings.enlarged_below whose writing is much smaller
        than their box (scan.small_ink), read again with it enlarged to the size the
        network knows (cells read without a ring are left as they are: their ring is ink
        too). The second reading stands where it is at least ReadingSettings.enlarged_from
        sure and surer than the first, and is never certain by itself: the accept threshold
        was fitted on writing at its own size. A number read with a digit fewer does not
        stand, and written totals are not read so: a faint leading 1, too faint to count
        as a stroke, fell outside the enlarged crop (fresh mild 6-side photo 11700000-163:
        totals read 24 and 61 at 0.99, their columns flagged whole). Returns the readings
        and the cells read so."""
        again = [(i, big) for i, c in enumerate(crops)
                 if c.allowed is not None and i not in skip
                 and readings[i].confidence < self.settings.enlarged_below
                 and (big := small_ink.enlarged(c.image, c.box_px, self.settings.small_ink,
                                                self.settings.edge_ink)) is not None]
        if not again:
            return readings, set()
        second = self._decode_all(self._logits_of([big for _, big in again]),
                                  [crops[i] for i, _ in again],
                                  by="with its small writing enlarged")
        out, changed = list(readings), set()
        for (i, _), reading in zip(again, second, strict=True):
            if reading.confidence >= max(self.settings.enlarged_from, readings[i].confidence) \
                    and (not isinstance(reading.value, int)
                         or digit_count(reading.value) >= digit_count(readings[i].value)):
                out[i] = lowered(reading, f"{reading.why}; read with its small writing "
                                 "enlarged, which never makes a reading certain")
                changed.add(i)
        return out, changed

    def _with_lines_kept(self, crops: Sequence[CellCrop], readings: list[CellReading]
                         ) -> tuple[list[CellReading], set[int]]:
        """Cells read as empty, certain or not, with a line drawn across the middle of
        their box (scan.line_strikes) read again with the line kept, where the
        preprocessing took it off as a printed rule (`crops` as cut: the line runs to their
        edges). Such a cell is not certain; the second reading stands where it is surer
        than the first, and is never certain by itself. Returns the readings and the cells
        read again (lowered or not)."""
        again = [i for i, c in enumerate(crops) if readings[i].value is None
                 and line_strikes.line_across(c.image, c.box_px, self.settings.line_strikes)]
        if not again:
            return readings, set()
        picked = [crops[i] for i in again]
        second = self._decode_all(self._logits_of([c.image for c in picked], keep_rules=True),
                                  picked, by="with the line across it kept")
        out = list(readings)
        for i, reading in zip(again, second, strict=True):
            keep = reading if reading.confidence > readings[i].confidence else readings[i]
            out[i] = lowered(keep, f"{keep.why}; a line is drawn across the box, which "
                             "the first reading took for a printed rule")
        return out, set(again)

    def _jittered(self, crops: Sequence[CellCrop], logits: np.ndarray,
                  readings: list[CellReading], skip: set[int] | None = None
                  ) -> list[CellReading]:
        """Unsure cells read at least ReadingSettings.second_look_from read again at the
        small changes of scan.jitter, their logits averaged with the reading so far (of the
        crop without a neighbour's stroke where scan.edge_ink took one off). The average
        stands only where it agrees with the reading so far on the value, so it can make a
        cell certain but never changes what it says."""
        unsure = [i for i, r in enumerate(readings)
                  if not r.certain and r.confidence >= self.settings.second_look_from
                  and i not in (skip or ())]
        if not unsure:
            return readings
        jitters = self.settings.jitters
        k = len(jitters)
        moved = [m for i in unsure for m in jitter.jittered(crops[i].image, jitters)]
        second = self._logits_of(moved).reshape(len(unsure), k, -1)
        mean = (logits.reshape(len(crops), -1)[unsure] + second.sum(axis=1)) / (k + 1)
        again = self._decode_all(mean, [crops[i] for i in unsure],
                                 by=f"second look, {k} small changes averaged")
        out = list(readings)
        for i, reading in zip(unsure, again, strict=True):
            if reading.certain and reading.value == readings[i].value:
                out[i] = reading
        return out

    def _decode(self, scores: digit_model.CellScores, crop: CellCrop, by: str = ""
                ) -> CellReading:
        """A cell's reading. Where a 1 and a strike are both allowed, the network's split
        between them is the refitted one (scan.lone_stroke, its threshold measured again on
        evaluation writers). The row's prior (digit_model.row_weights) weighs only cells the
        network is unsure of, and never makes one certain: the accept threshold was fitted
        without it, and what a row usually holds is no evidence of this cell's ink. It
        ranks the readings and gives the totals check and the payout their probabilities;
        a written total that agrees can then confirm the reading."""
        threshold, decoding = self.calibration.threshold, self.settings.decoding
        decoded = digit_model.decode(scores, crop.allowed, crop.total_cap, settings=decoding)
        ranked = decoded.ranked
        if crop.allowed is None:
            ranked = no_total_struck(ranked)
        accept = threshold(crop.allowed, ranked[0][0])
        lookalikes = [self.settings.lookalike_accept] if crop.allowed is not None \
            and lookalike(crop.allowed, ranked[0][0]) else []
        if self.lone_stroke is not None and lone_stroke_mod.applies(ranked, crop.allowed,
                                                                    self.settings.lone_stroke):
            ranked = self.lone_stroke.split(ranked)
            lookalikes.append(self.lone_stroke.accept)
        if lookalikes:
            accept = max(accept, self._lookalike_accept(ranked[0][0], crop, max(lookalikes)))
        reading = CellReading.from_ranked(ranked, accept, decoded.outside, by)
        weights = digit_model.row_weights(crop.row)
        if weights is None or reading.certain:
            return reading
        decoded = digit_model.decode(scores, crop.allowed, crop.total_cap, weights, decoding)
        return replace(CellReading.from_ranked(decoded.ranked, math.inf,  # never certain by it
                                               decoded.outside),
                       why=f"{reading.why}; ranked by its row's prior, which never makes a "
                           "reading certain")


    def _lookalike_accept(self, reading: CellValue, crop: CellCrop, needed: float) -> float:
        """What a reading that may be another needs: `needed` (ReadingSettings.
        lookalike_accept where the row allows a lookalike, the 1-or-struck split's accept
        where it allows a 1), a strike there struck_lookalike_accept. A strike written as
        one 0 (scan.written_zero) needs only written_zero_accept: a closed loop with an
        empty middle is neither a 9's or a 10's quick stroke nor a lone stroke that may be
        a 1."""
        if reading != "x":
            return needed
        if written_zero.is_written_zero(crop.image, self.settings.written_zero):
            return self.settings.written_zero_accept
        if crop.allowed is not None and lookalike(crop.allowed, reading):
            return max(needed, self.settings.struck_lookalike_accept)
        return needed


def digit_count(value: CellValue) -> int:
    """The digits a reading holds: none for a strike or an empty cell."""
    return len(str(value)) if isinstance(value, int) else 0


def _multi_digit(value: CellValue) -> bool:
    return isinstance(value, int) and value >= 10


def _said(value: CellValue) -> str:
    """A reading in a `why`: empty, struck or the number."""
    return "empty" if value is None else "struck" if value == "x" else str(value)


RECOGNIZERS = ("default", "tesseract")


def get_recognizer(name: str = "default", settings: ReadingSettings = READING) -> Recognizer:
    """The recognizer called `name` (the default reading with `settings`); raises
    ToolMissingError if it cannot run here."""
    if name in ("default", "cnn", "digits"):
        rec: Recognizer = DigitModelRecognizer(settings=settings)
    elif name == "tesseract":
        from escalero.scan.tesseract_reader import TesseractRecognizer

        rec = TesseractRecognizer()
        if not rec.available():
            raise ToolMissingError(
                "tesseract is not installed; install it (Debian/Ubuntu: "
                "sudo apt install tesseract-ocr) or use --recognizer default")
    else:
        raise ToolMissingError(
            f"unknown recognizer {name!r}; choose one of {', '.join(RECOGNIZERS)}")
    if not rec.available():
        raise ToolMissingError(f"recognizer {name!r} cannot run: its model file is missing; "
                               "reinstall escalero")
    return rec
