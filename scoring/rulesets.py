"""The rules of RULES.md as data: rows, allowed values, column weights, variants.

Everything else (layout, scanner, validator, settlement) reads these tables;
no row or value is written down anywhere else.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from escalero.scoring.errors import UnknownRulesError

from escalero.i18n import LANGUAGES, N_

GAMES = ("escalero", "generala")
ESCALERO_VARIANTS = ("strasse-25", "doppel-grande", "one-column", "weights-123")


@dataclass(frozen=True)
class Labels:
    de: str
    en: str
    es: str

    def get(self, lang: str) -> str:
        if lang not in LANGUAGES:
            raise UnknownRulesError.worded(N_("unknown language {lang!r}; choose one of "
                                              "{choices}"), lang=lang,
                                           choices=", ".join(LANGUAGES))
        return getattr(self, lang)


@dataclass(frozen=True)
class Row:
    """One row of the sheet.

    `allowed` lists every value a cell of this row may hold (struck aside);
    `served` is the subset that only a served throw gives.
    `face`/`face_value` describe the counting rows (face label, points per die).
    """

    id: str
    labels: Labels
    allowed: tuple[int, ...]
    served: tuple[int, ...] = ()
    face: str | None = None
    face_value: int | None = None
    requires: str | None = None  # row that must hold a value first (Doble Generala)

    @property
    def is_counting_row(self) -> bool:
        return self.face_value is not None

    @property
    def unserved(self) -> tuple[int, ...]:
        return tuple(v for v in self.allowed if v not in self.served)

    def allows(self, value: int) -> bool:
        return value in self.allowed

    def describe_allowed(self, served_word: str = "served") -> str:
        """E.g. '1-5', '2, 4, 6, 8, 10', '20, served 25', '100 (served)'."""
        if self.served and not self.unserved:
            return ", ".join(f"{v} ({served_word})" for v in self.served)
        if self.served:
            plain = ", ".join(str(v) for v in self.unserved)
            served = ", ".join(str(v) for v in self.served)
            return f"{plain}, {served_word} {served}"
        vals = self.allowed
        if len(vals) > 2 and all(b - a == 1 for a, b in zip(vals, vals[1:], strict=False)):
            return f"{vals[0]}-{vals[-1]}"
        return ", ".join(str(v) for v in vals)


@dataclass(frozen=True)
class Ruleset:
    game: str
    variants: tuple[str, ...]
    rows: tuple[Row, ...]
    columns: int
    column_weights: tuple[int, ...]
    all_columns_bonus: int  # extra points for winning every column (0: none)
    min_sides: int
    max_sides: int

    @property
    def row_ids(self) -> tuple[str, ...]:
        return tuple(r.id for r in self.rows)

    @property
    def largest_column_sum(self) -> int:
        """The most a column can add up to: every row at its highest value."""
        return sum(max(r.allowed) for r in self.rows)

    def row(self, row_id: str) -> Row:
        for r in self.rows:
            if r.id == row_id:
                return r
        raise UnknownRulesError.worded(N_("unknown row {row!r} for {game}; rows are {rows}"),
                                       row=row_id, game=self.game,
                                       rows=", ".join(self.row_ids))


def _counting_rows(
    spec: Iterable[tuple[str, str, str, str, str, int]],
) -> tuple[Row, ...]:
    return tuple(
        Row(
            id=rid,
            labels=Labels(de, en, es),
            allowed=tuple(face_value * n for n in range(1, 6)),
            face=face,
            face_value=face_value,
        )
        for rid, face, de, en, es, face_value in spec
    )


_ESCALERO_FACES = (
    ("nines", "9", "Neuner", "Nines", "Nueves", 1),
    ("tens", "10", "Zehner", "Tens", "Dieces", 2),
    ("jacks", "B", "Buben", "Jacks", "Jotas", 3),
    ("queens", "D", "Damen", "Queens", "Damas", 4),
    ("kings", "K", "Könige", "Kings", "Reyes", 5),
    ("aces", "A", "Asse", "Aces", "Ases", 6),
)

_GENERALA_FACES = tuple(
    (rid, str(n), str(n), str(n), str(n), n)
    for n, rid in enumerate(("ones", "twos", "threes", "fours", "fives", "sixes"), start=1)
)


def _combo(rid: str, de: str, en: str, es: str, plain: int, served: int, **kw: Any) -> Row:
    return Row(id=rid, labels=Labels(de, en, es), allowed=(plain, served), served=(served,), **kw)


def get_ruleset(game: str = "escalero", variants: Iterable[str] = ()) -> Ruleset:
    """The ruleset for `game` with the named house variants (Escalero only)."""
    variants = tuple(dict.fromkeys(variants))  # keep order, drop repeats
    if game not in GAMES:
        raise UnknownRulesError.worded(N_("unknown game {game!r}; choose one of {choices}"),
                                       game=game, choices=", ".join(GAMES))
    if game == "generala" and variants:
        raise UnknownRulesError.worded(N_("Generala has no house variants (got {got}); "
                                          "variants apply to Escalero only"),
                                       got=", ".join(map(repr, variants)))
    unknown = [v for v in variants if v not in ESCALERO_VARIANTS]
    if unknown:
        raise UnknownRulesError.worded(N_("unknown variant {variant!r}; variants are "
                                          "{variants}"), variant=unknown[0],
                                       variants=", ".join(ESCALERO_VARIANTS))
    return _build_ruleset(game, variants)


@lru_cache(maxsize=64)
def _build_ruleset(game: str, variants: tuple[str, ...]) -> Ruleset:
    """get_ruleset's table for a known game and known variants, built once: a Ruleset is
    immutable, and a scan asks for its sheet's some eighty times (the payout's checks)."""
    if game == "generala":
        rows = _counting_rows(_GENERALA_FACES) + (
            _combo("escalera", "Escalera", "Straight", "Escalera", 20, 25),
            _combo("full", "Full", "Full house", "Full", 30, 35),
            _combo("poker", "Póker", "Poker", "Póker", 40, 45),
            _combo("generala", "Generala", "Generala", "Generala", 50, 55),
            _combo("doble_generala", "Doble Generala", "Double Generala", "Doble Generala",
                   100, 105, requires="generala"),
        )
        return Ruleset("generala", (), rows, columns=1, column_weights=(1,),
                       all_columns_bonus=0, min_sides=2, max_sides=8)
    straight = (25, 30) if "strasse-25" in variants else (20, 25)
    rows = _counting_rows(_ESCALERO_FACES) + (
        _combo("straight", "Straße", "Straight", "Escalera", *straight),
        _combo("full_house", "Full", "Full house", "Full", 30, 35),
        _combo("poker", "Poker", "Poker", "Póker", 40, 45),
    )
    if "doppel-grande" in variants:
        # Doppel-Grande takes the served Grande, so Grande itself only holds 50.
        rows += (
            Row("grande", Labels("Grande", "Grande", "Grande"), allowed=(50,)),
            Row("double_grande", Labels("Doppel-Grande", "Double Grande", "Doble Grande"),
                allowed=(100,), served=(100,)),
        )
    else:
        rows += (_combo("grande", "Grande", "Grande", "Grande", 50, 80),)

    weights: tuple[int, ...]
    if "one-column" in variants:
        columns, weights, bonus = 1, (1,), 0
    elif "weights-123" in variants:
        columns, weights, bonus = 3, (1, 2, 3), 2
    else:
        columns, weights, bonus = 3, (1, 2, 4), 2
    return Ruleset("escalero", variants, rows, columns=columns, column_weights=weights,
                   all_columns_bonus=bonus, min_sides=2, max_sides=6)
