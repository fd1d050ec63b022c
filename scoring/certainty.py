"""How sure is the payout? The probability that a sheet's settlement is the one it shows,
given a reading distribution for every cell that a person (or a scanner) is unsure of.

Model (docs/sheet-json.md, "Payout certainty"):

- Cells are independent given what was seen of them (their crops). A cell with a belief
  has its own distribution over readings (a scanner gives one for every cell, with a small
  error left even on the ones it calls certain); a cell without one is taken as written,
  exactly (a person typed or confirmed it). Readings a belief does not list share what the
  listed ones leave, evenly over the other readings the row allows (over all of them when
  it lists every one: ink that fits none of the row's readings says little about which).
- A side's column sum is the convolution of its cells' point distributions.
- A written total weighs in by its whole reading distribution: it is the true sum with
  probability `right` when read right, else any number (`wrong_share` each;
  scoring.written_total, the one model the scanner's totals check uses too). A
  mis-added total that matches no plausible sum of its column is flat and so has no say
  (the entries count); one that matches another plausible reading of a cell speaks for
  that reading, since a misread cell explains the disagreement as well as a mis-addition.
- From the sums: per column the distribution of who is at the top (the set of sides
  sharing the highest sum); columns are independent, so the joint outcome is their product,
  and each joint outcome is settled by `scoring.settle.settle_totals`, bonus and pairs
  included. The confidence is the mass of the outcomes whose points equal the shown ones.

An unfinished sheet (an entry the rules need is empty) is never certain.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
from escalero.scoring.model import (
    TOTAL_ROW,
    CellKey,
    CellValue,
    Sheet,
    cell_points,
    cell_to_json,
    with_cell,
)
from escalero.scoring.rulesets import Ruleset
from escalero.scoring.settle import settle, settle_totals
from escalero.scoring.written_total import WRITTEN_TOTAL


@dataclass(frozen=True)
class CertaintySettings:
    """When a payout is certain and which cells a person is asked about (the scanner's
    scan.payout.PayoutSettings carries one). Each field says what it was fitted on."""

    # A payout is "certain" at or above this probability of being exactly the one shown.
    # Chosen on the tuning benchmark sets (456 read sheets, 2/3/6 sides, mild and harsh;
    # 0ac3665): no payout read at 0.96 or more was wrong there; 0.99 keeps a margin for the
    # model's independence assumption. The fresh sets in the README check it.
    accept: float = 0.99
    # A reading needs at least this much of its cell's distribution to count as one that
    # "could" change the payout (smaller ones stay in the confidence, not in the
    # questions). Not fitted: chosen by hand (0ac3665).
    plausible: float = 0.001
    # ...and it must move its column's top by at least this much (total variation): less
    # means another cell of the column is the one that decides it. Not fitted: chosen by
    # hand (db3de71).
    affects: float = 0.1
    # At most this many cells are asked about when the doubt is spread over a close column.
    # Not fitted: chosen by hand (aca3069).
    max_doubt_cells: int = 4
    # An unfinished sheet with at most this many empty entries is taken for a finished game
    # with misread cells, and those cells are asked about first. Not fitted: chosen by hand
    # (dde3be3).
    max_empty_asked: int = 4

    def __post_init__(self) -> None:
        if not 0.0 < self.accept <= 1.0 or not 0.0 <= self.plausible <= 1.0 \
                or not 0.0 <= self.affects <= 1.0:
            raise ValueError("certainty: accept in (0, 1], plausible and affects in [0, 1]")
        if self.max_doubt_cells < 0 or self.max_empty_asked < 0:
            raise ValueError("certainty: max_doubt_cells and max_empty_asked must be >= 0")


CERTAINTY = CertaintySettings()
# Outcomes below this mass are not enumerated (their mass counts as "not as shown", which
# can only lower the confidence; at most a few 1e-6 on a sheet).
_NEGLIGIBLE = 1e-9

Outcome = frozenset[int]  # the sides sharing a column's highest sum


@dataclass(frozen=True)
class CellBelief:
    """One unsure cell: its readings and their probabilities (sheet-JSON values)."""

    side: int
    column: int
    row: str
    distribution: tuple[tuple[CellValue, float], ...]

    @property
    def key(self) -> CellKey:
        return (self.side, self.column, self.row)


@dataclass(frozen=True)
class CellImpact:
    """What settling one unsure cell would do to the payout."""

    key: CellKey
    # A person is asked about it: a plausible reading of it moves a column's top, and it is
    # among the cells (largest gain first) whose confirmation would make the payout certain.
    affects_payout: bool
    gain: float  # rise of the confidence if a person confirms the reading shown
    # Not among the cells asked about (read as certain), yet the payout hangs on it: only
    # listed while the payout is not certain.
    extra: bool = False
    # A plausible reading of it moves a column's top (whether or not it is asked about).
    could_change: bool = False


@dataclass(frozen=True)
class PayoutCertainty:
    confidence: float  # probability that the settlement shown is right
    certain: bool  # confidence >= CertaintySettings.accept and the sheet is finished
    finished: bool
    impacts: tuple[CellImpact, ...]  # one per unsure cell, largest gain first

    def impact(self, key: CellKey) -> CellImpact | None:
        return next((i for i in self.impacts if i.key == key), None)

    @property
    def deciding(self) -> tuple[CellKey, ...]:
        """The cells the payout hangs on, most useful to answer first."""
        return tuple(i.key for i in self.impacts if i.affects_payout)


def payout_certainty(sheet: Sheet, beliefs: Iterable[CellBelief], asked: Iterable[CellKey] = (),
                     settings: CertaintySettings = CERTAINTY) -> PayoutCertainty:
    """The settlement's confidence, and the impact on it of each cell in `asked` (the
    cells a person may be asked about; each needs a belief). See the module doc."""
    accept = settings.accept
    model = _Model(sheet, {b.key: b for b in beliefs}, settings)
    shown = settle(sheet).points
    outcomes = [model.column_outcomes(c) for c in range(model.columns)]
    confidence = model.joint(outcomes, shown)
    keys = [k for k in dict.fromkeys(asked) if k in model.beliefs]
    impacts = [model.impact(key, outcomes, confidence) for key in keys]
    # Cells read as certain are asked about only once the unsure ones cannot explain the
    # doubt: first those with a plausible other reading, then the thin spread of a close
    # column (each round of answers recomputes this).
    if confidence < accept and not any(i.affects_payout for i in impacts):
        impacts += model.extra_impacts(set(keys), outcomes, confidence)
    if confidence < accept and not any(i.affects_payout for i in impacts):
        impacts += model.doubt_impacts({i.key for i in impacts}, outcomes, confidence,
                                       accept - confidence)
    impacts.sort(key=lambda i: (-i.affects_payout, -i.gain, _reading_order(i.key, sheet)))
    if confidence < accept:
        impacts = _needed(impacts, lambda keys: _confirmed(model, keys, shown, outcomes),
                          accept)
    else:
        impacts = [replace(i, affects_payout=False, could_change=True) if i.affects_payout
                   else i for i in impacts]
    finished = sheet_finished(sheet)
    if not finished:
        impacts = _empty_first(impacts, model, outcomes, confidence)
    return PayoutCertainty(confidence=confidence, certain=finished and confidence >= accept,
                           finished=finished, impacts=tuple(impacts))


def _needed(impacts: list[CellImpact], confirmed: Callable[[set[CellKey]], float],
            accept: float) -> list[CellImpact]:
    """Ask only what the certainty needs: of the cells that could change the payout
    (largest gain first), the shortest run whose confirmation together would lift the
    confidence to the threshold (`confirmed` weighs them jointly: doubts that compound
    lift more together than their gains add up to). The others stay listed (could_change)
    but are not asked about: a person answers the first ones, the confidence is
    recomputed, and the rest are asked again only if an answer leaves the payout in doubt."""
    chosen: set[CellKey] = set()
    enough = False
    out = []
    for impact in impacts:
        if not impact.affects_payout:
            out.append(impact)
        elif not enough:
            out.append(replace(impact, could_change=True))
            chosen.add(impact.key)
            enough = confirmed(chosen) >= accept
        else:
            out.append(replace(impact, affects_payout=False, could_change=True))
    return out


def _confirmed(full: _Model, keys: set[CellKey], shown: Sequence[object],
               outcomes: Sequence[Mapping[Outcome, float]]) -> float:
    """The confidence once a person has confirmed the readings shown of `keys` (only
    their columns' outcomes change)."""
    model = _Model(full.sheet, {k: b for k, b in full.beliefs.items() if k not in keys},
                   full.settings)
    touched = {key[1] for key in keys}
    return model.joint([model.column_outcomes(c) if c in touched else outcomes[c]
                        for c in range(model.columns)], shown)


def _empty_first(impacts: list[CellImpact], model: _Model,
                 outcomes: Sequence[Mapping[Outcome, float]], confidence: float
                 ) -> list[CellImpact]:
    """An unfinished sheet is never certain, so its empty entries are asked first, read as
    empty for sure or not: at the end of a game a few empty entries are more likely
    misread than unwritten. Many empty entries mean a game in progress: nothing is added."""
    empty = empty_entries(model.sheet)
    if len(empty) > model.settings.max_empty_asked:
        return impacts
    by_key = {i.key: i for i in impacts}
    first = []
    for key in empty:
        impact = by_key.pop(key, None)
        if impact is None:
            impact = (replace(model.impact(key, outcomes, confidence), extra=True)
                      if key in model.beliefs else CellImpact(key, True, 0.0, extra=True))
        first.append(replace(impact, affects_payout=True, could_change=True))
    return first + [i for i in impacts if i.key in by_key]


def empty_entries(sheet: Sheet) -> list[CellKey]:
    """The entries the rules need that hold nothing, in reading order."""
    rows = sheet.ruleset.row_ids
    return [(s, c, r) for s, side in enumerate(sheet.sides)
            for c, col in enumerate(side.columns) for r in rows if col.get(r) is None]


def sheet_finished(sheet: Sheet) -> bool:
    """Every entry the rules need holds something (a number or a strike)."""
    return not empty_entries(sheet)


def _reading_order(key: CellKey, sheet: Sheet) -> tuple[int, int, int]:
    rows = sheet.ruleset.row_ids
    side, column, row = key
    return (column, rows.index(row) if row in rows else len(rows), side)


def _with_rest(pairs: Sequence[tuple[CellValue, float]], allowed: Sequence[int]
               ) -> list[tuple[CellValue, float]]:
    """A belief's readings, plus the row's unlisted readings sharing evenly what the listed
    ones leave (a doubted reading can leave half of the mass to them). When every reading
    is listed, what they leave is shared by all of them evenly: a cell whose ink fits none
    of the row's readings well says little about which of them it holds."""
    out = list(pairs)
    listed = {v for v, _ in out}
    rest = max(0.0, 1.0 - sum(p for _, p in out))
    readings = (*allowed, "x", None)
    others = [v for v in readings if v not in listed]
    if rest > 0 and others:
        out += [(v, rest / len(others)) for v in others]
    elif rest > 0:
        out = [(v, p + rest / len(readings)) if v in readings else (v, p) for v, p in out]
    return out


class _Model:
    """The sheet's cells as point distributions, column by column (see module doc)."""

    def __init__(self, sheet: Sheet, beliefs: Mapping[CellKey, CellBelief],
                 settings: CertaintySettings):
        self.sheet = sheet
        self.settings = settings
        self.rules: Ruleset = sheet.ruleset
        self.columns = self.rules.columns
        self.n = len(sheet.sides)
        self.beliefs = {k: b for k, b in beliefs.items()
                        if 0 <= k[0] < self.n and 0 <= k[1] < self.columns}
        # Per side and column: each entry's distribution over points, rows in order.
        self.cells: dict[tuple[int, int], list[tuple[str, np.ndarray]]] = {}
        for s, side in enumerate(sheet.sides):
            for c in range(self.columns):
                self.cells[(s, c)] = [(r.id, self._spread((s, c, r.id),
                                                           cell_to_json(side.cell(c, r.id)),
                                                           r.allowed))
                                      for r in self.rules.rows]
        self._points_cache: dict[tuple[Outcome, ...], tuple[object, ...]] = {}
        self._sums: dict[tuple[int, int], np.ndarray] = {}
        self.size = 1 + max(sum(len(d) - 1 for _, d in col) for col in self.cells.values())

    # --- cells -------------------------------------------------------------------------

    def _spread(self, key: CellKey, shown: CellValue, allowed: Sequence[int]) -> np.ndarray:
        """The cell's distribution over points (index = points)."""
        belief = self.beliefs.get(key)
        pairs = _with_rest(belief.distribution, allowed) if belief else [(shown, 1.0)]
        top = max([cell_points(v) for v, _ in pairs] + [0])
        dist = np.zeros(top + 1)
        for v, p in pairs:
            dist[cell_points(v)] += p
        return dist / dist.sum() if dist.sum() > 0 else dist

    def readings(self, key: CellKey) -> list[tuple[CellValue, float]]:
        """A cell's readings as the model weighs them (an entry's unlisted readings
        included; a written total's are its listed ones)."""
        pairs = self.beliefs[key].distribution
        if key[2] == TOTAL_ROW:
            return list(pairs)
        return _with_rest(pairs, self.rules.row(key[2]).allowed)

    def total_fit(self, s: int, c: int) -> np.ndarray | None:
        """Likelihood of the written total given each true sum of the column: the total
        is the sum as scoring.written_total models it, if read right, else any number. A total
        that disagrees with the column as shown still counts: where it matches another
        plausible reading it pulls towards it (a cell misread as 80 against a total that
        adds up with the strike), where it matches nothing it is flat."""
        belief = self.beliefs.get((s, c, TOTAL_ROW))
        written = self.sheet.sides[s].written_totals[c]
        if belief is not None:
            read = {v: p for v, p in belief.distribution if isinstance(v, int)}
        else:
            read = {written: 1.0} if written is not None else {}
        if not read:
            return None
        return WRITTEN_TOTAL.fit(read, self.size)

    def side_sum(self, s: int, c: int, fixed: Mapping[str, CellValue] | None = None
                 ) -> np.ndarray:
        """Distribution of side s's sum in column c, some rows fixed to a reading."""
        fixed = fixed or {}
        acc = np.ones(1)
        for rid, dist in self.cells[(s, c)]:
            if rid in fixed:
                acc = np.concatenate([np.zeros(cell_points(fixed[rid])), acc])
            else:
                acc = np.convolve(acc, dist)
        out = np.zeros(self.size)
        out[:min(self.size, len(acc))] = acc[:self.size]
        fit = self.total_fit(s, c)
        if fit is not None:
            out = out * fit
        total = out.sum()
        return out / total if total > 0 else out

    # --- columns and the whole sheet ---------------------------------------------------

    def column_outcomes(self, c: int, replaced: Mapping[int, np.ndarray] | None = None
                        ) -> dict[Outcome, float]:
        given = replaced or {}
        return top_sets([given[s] if s in given else self.base_sum(s, c)
                         for s in range(self.n)])

    def base_sum(self, s: int, c: int) -> np.ndarray:
        """side_sum with nothing answered, computed once per side and column."""
        if (s, c) not in self._sums:
            self._sums[(s, c)] = self.side_sum(s, c)
        return self._sums[(s, c)]

    def joint(self, outcomes: Sequence[Mapping[Outcome, float]], shown: Sequence[object]
              ) -> float:
        """Mass of the joint column outcomes whose settlement has the shown points.
        Outcomes below _NEGLIGIBLE (alone, or as a product) are left out: their mass
        counts as "not as shown", so leaving them out can only lower the confidence."""
        per_column = [sorted(((o, p) for o, p in col.items() if p > _NEGLIGIBLE),
                             key=lambda a: -a[1]) for col in outcomes]
        shown_t = tuple(shown)
        mass = 0.0
        stack: list[tuple[int, float, tuple[Outcome, ...]]] = [(0, 1.0, ())]
        while stack:
            depth, p, tops = stack.pop()
            if depth == len(per_column):
                if self._points_of(tops) == shown_t:
                    mass += p
                continue
            for o, q in per_column[depth]:
                if p * q <= _NEGLIGIBLE:
                    break  # sorted: the rest are smaller still
                stack.append((depth + 1, p * q, (*tops, o)))
        return min(1.0, mass)

    def _points_of(self, tops: tuple[Outcome, ...]) -> tuple[object, ...]:
        """Points when each column's top is the given set of sides (the rules look at
        nothing else, house rules included): settled on stand-in totals, 1 for the top
        and 0 for the rest."""
        if tops not in self._points_cache:
            totals = [[1 if s in tops[c] else 0 for c in range(self.columns)]
                      for s in range(self.n)]
            # The sheet's house rules too: split ties pay by the same top sets.
            self._points_cache[tops] = tuple(
                settle_totals(self.rules, totals, self.sheet.house).points)
        return self._points_cache[tops]

    def impact(self, key: CellKey, outcomes: Sequence[Mapping[Outcome, float]],
               confidence: float) -> CellImpact:
        """Does a plausible reading of `key` move its column's top, and how much would the
        confidence rise if a person confirmed the reading shown?"""
        s, c, row = key
        shown_value = (self.sheet.sides[s].written_totals[c] if row == TOTAL_ROW
                       else cell_to_json(self.sheet.sides[s].cell(c, row)))
        base = self._conditioned(key, shown_value)
        affects = any(_total_variation(self._conditioned(key, v), base) >= self.settings.affects
                      for v, p in self.readings(key)
                      if p >= self.settings.plausible and v != shown_value)
        shown = settle(self.sheet).points
        confirmed = self.joint([*outcomes[:c], base, *outcomes[c + 1:]], shown)
        return CellImpact(key=key, affects_payout=affects, gain=max(0.0, confirmed - confidence))

    def extra_impacts(self, asked: set[CellKey], outcomes: Sequence[Mapping[Outcome, float]],
                      confidence: float) -> list[CellImpact]:
        """Cells outside `asked` that can still change the payout: in a close column, a
        reading called certain may leave a plausible alternative that decides it."""
        out = []
        for key in list(self.beliefs):
            ranked = sorted(self.readings(key), key=lambda a: -a[1])
            if key in asked or len(ranked) < 2 or ranked[1][1] < self.settings.plausible:
                continue
            impact = self.impact(key, outcomes, confidence)
            if impact.affects_payout:
                out.append(replace(impact, extra=True))
        return out

    def doubt_impacts(self, skip: set[CellKey], outcomes: Sequence[Mapping[Outcome, float]],
                      confidence: float, need: float) -> list[CellImpact]:
        """When no single plausible reading can change the payout yet it is not certain,
        the doubt is spread thin over many cells of close columns (a one-point margin):
        the cells whose confirmation raises the confidence most, until together they
        would make up what is missing (at most `max_doubt_cells`)."""
        contested = {c for c in range(self.columns)
                     if max(outcomes[c].values(), default=0.0) < 1.0 - _NEGLIGIBLE}
        found = []
        for key in list(self.beliefs):
            if key in skip or key[1] not in contested:
                continue
            impact = self.impact(key, outcomes, confidence)
            if impact.gain > 0.0:
                found.append(replace(impact, affects_payout=True, extra=True))
        found.sort(key=lambda i: -i.gain)
        out: list[CellImpact] = []
        for impact in found[:self.settings.max_doubt_cells]:
            out.append(impact)
            need -= impact.gain
            if need <= 0.0:
                break
        return out

    def _conditioned(self, key: CellKey, v: CellValue) -> dict[Outcome, float]:
        """Column outcomes once a person has said that cell `key` reads `v`."""
        s, c, row = key
        saved = self.beliefs.pop(key)
        sheet = self.sheet
        try:
            self.sheet = self._answered(key, v)
            fixed = {} if row == TOTAL_ROW else {row: v}
            return self.column_outcomes(c, {s: self.side_sum(s, c, fixed)})
        finally:
            self.beliefs[key] = saved
            self.sheet = sheet

    def _answered(self, key: CellKey, v: CellValue) -> Sheet:
        return with_cell(self.sheet, key, v)


def top_sets(sums: Sequence[np.ndarray]) -> dict[Outcome, float]:
    """Distribution of the set of sides sharing the highest value, sides independent.

    P(top = S) = sum over m of prod_{s in S} P(X_s = m) * prod_{s not in S} P(X_s < m).
    Only sides that can reach the lowest possible maximum take part in the subsets.
    """
    n = len(sums)
    size = max(len(x) for x in sums)
    f = np.zeros((n, size))
    for s, x in enumerate(sums):
        f[s, :len(x)] = x
    below = np.concatenate([np.zeros((n, 1)), np.cumsum(f, axis=1)[:, :-1]], axis=1)
    support = f > _NEGLIGIBLE
    lows = [int(np.argmax(row)) if row.any() else 0 for row in support]
    highs = [int(size - 1 - np.argmax(row[::-1])) if row.any() else 0 for row in support]
    floor = max(lows)
    contenders = [s for s in range(n) if highs[s] >= floor]
    others = [s for s in range(n) if s not in contenders]
    top = max(highs) + 1  # the maximum lies in [floor, top)
    rest = (np.prod(below[others, floor:top], axis=0) if others
            else np.ones(top - floor))
    k = len(contenders)
    # Every non-empty subset of the contenders at once: row i of `masks` is subset i.
    masks = ((np.arange(1, 2 ** k)[:, None] >> np.arange(k)) & 1).astype(bool)
    chosen = np.where(masks[:, :, None], f[contenders, floor:top][None],
                      below[contenders, floor:top][None])
    mass = (np.prod(chosen, axis=1) * rest).sum(axis=1)
    return {frozenset(contenders[j] for j in range(k) if masks[i, j]): float(mass[i])
            for i in range(len(masks)) if mass[i] > 0.0}


def _total_variation(a: Mapping[Outcome, float], b: Mapping[Outcome, float]) -> float:
    return 0.5 * sum(abs(a.get(k, 0.0) - b.get(k, 0.0)) for k in set(a) | set(b))
