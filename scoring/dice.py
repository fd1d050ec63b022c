"""Dice helper: what a throw of five dice is worth in each row, and Start-Poker hands.

Row values come from the ruleset (face values, plain and served values); this
module only recognises the patterns. Our readings where RULES.md is silent:
- Poker is four *or more* of a kind (five of a kind contains four); Full is
  exactly three plus two; a five of a kind is not a Full.
- A served value applies only to rows that have one (the combination rows).
- Doppel-Grande (variant): the Doppel-Grande row takes only a served Grande;
  the Grande row holds 50 served or not.
- Doble Generala: worth its value for any Generala; whether the Generala row
  already holds a value is a matter of the sheet (validation), not of the dice.
- Start-Poker: pair < two pairs < three of a kind < small straight (9-K) <
  large straight (10-A) < full < poker < grande; a hand without a pair is below
  a pair. Equal categories compare by the matching dice (higher group first:
  two pairs by the higher then the lower pair, full by the three then the pair);
  dice that match nothing do not count, so equal matching dice are a tie
  (RULES.md: a tie for the highest is rolled again).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from escalero.scoring.errors import UsageError
from escalero.scoring.rulesets import Ruleset

from escalero.i18n import N_

DICE = 5
# Spellings accepted for Escalero faces besides the printed ones (English court cards).
_ALIASES = {"J": "B", "Q": "D", "T": "10"}


@dataclass(frozen=True)
class Throw:
    faces: tuple[str, ...]  # as printed on the dice, e.g. ("9", "9", "K", "K", "K")
    ranks: tuple[int, ...]  # 0-based rank of each face, low to high (9 = 0, A = 5)
    served: bool


def faces_of(rules: Ruleset) -> tuple[str, ...]:
    """The die faces low to high, read from the counting rows of the ruleset."""
    return tuple(r.face for r in rules.rows if r.is_counting_row and r.face is not None)


def parse_throw(faces: Sequence[str], rules: Ruleset, served: bool = False) -> Throw:
    """Five face labels -> Throw; UsageError names a wrong face or count."""
    known = faces_of(rules)
    if len(faces) != DICE:
        raise UsageError.worded(N_("give exactly {n} dice, got {got}: {faces}"), n=DICE,
                                got=len(faces), faces=" ".join(faces))
    norm = []
    for f in faces:
        face = f.strip().upper()
        face = _ALIASES.get(face, face) if rules.game == "escalero" else face
        if face not in known:
            raise UsageError.worded(N_("unknown face {face!r}; {game} dice show {known}"),
                                    face=f, game=rules.game, known=" ".join(known))
        norm.append(face)
    ranks = tuple(sorted(known.index(f) for f in norm))
    return Throw(tuple(known[r] for r in ranks), ranks, served)


def _straights(rules: Ruleset) -> tuple[frozenset[int], ...]:
    if rules.game == "generala":
        # 1-2-3-4-5, 2-3-4-5-6, and 3-4-5-6-1 (the 1 may follow the 6).
        return (frozenset({0, 1, 2, 3, 4}), frozenset({1, 2, 3, 4, 5}),
                frozenset({2, 3, 4, 5, 0}))
    return (frozenset({0, 1, 2, 3, 4}), frozenset({1, 2, 3, 4, 5}))


def _pattern(throw: Throw, rules: Ruleset) -> set[str]:
    """Which combination patterns the throw shows."""
    counts = sorted(Counter(throw.ranks).values(), reverse=True)
    found = set()
    if frozenset(throw.ranks) in _straights(rules) and len(set(throw.ranks)) == DICE:
        found.add("straight")
    if counts == [3, 2]:
        found.add("full")
    if counts[0] >= 4:
        found.add("poker")
    if counts[0] == 5:
        found.add("five")
    return found


# Which pattern each combination row needs (row ids of both games).
_ROW_PATTERN = {
    "straight": "straight", "escalera": "straight",
    "full_house": "full", "full": "full",
    "poker": "poker",
    "grande": "five", "generala": "five", "doble_generala": "five", "double_grande": "five",
}


def row_scores(throw: Throw, rules: Ruleset) -> dict[str, int]:
    """Row id -> what the throw would score there (0: it does not fit, strike or skip)."""
    patterns = _pattern(throw, rules)
    known = faces_of(rules)
    out: dict[str, int] = {}
    for row in rules.rows:
        if row.face_value is not None:  # a counting row
            out[row.id] = throw.ranks.count(known.index(row.face)) * row.face_value
            continue
        if _ROW_PATTERN[row.id] not in patterns:
            out[row.id] = 0
        elif throw.served and row.served:
            out[row.id] = row.served[0]
        else:
            out[row.id] = row.unserved[0] if row.unserved else 0  # served-only row
    return out


# --- Eskalero-Start-Poker ------------------------------------------------------------------

POKER_CATEGORIES = ("nothing", "pair", "two pairs", "three of a kind", "small straight",
                    "large straight", "full house", "poker", "grande")


@dataclass(frozen=True, order=True)
class Hand:
    """A Start-Poker hand; compares by category, then by the matching dice."""

    category: int
    key: tuple[int, ...]

    @property
    def name(self) -> str:
        return POKER_CATEGORIES[self.category]


def poker_hand(throw: Throw) -> Hand:
    if throw.ranks == (0, 1, 2, 3, 4):
        return Hand(4, ())
    if throw.ranks == (1, 2, 3, 4, 5):
        return Hand(5, ())
    # Groups of equal dice, largest group first, then higher rank first.
    groups = sorted(((n, r) for r, n in Counter(throw.ranks).items() if n >= 2), reverse=True)
    sizes = [n for n, _ in groups]
    key = tuple(r for _, r in groups)
    category = {(): 0, (2,): 1, (2, 2): 2, (3,): 3, (3, 2): 6, (4,): 7, (5,): 8}[tuple(sizes)]
    return Hand(category, key)


def compare_hands(a: Throw, b: Throw) -> int:
    """1 if a wins, -1 if b wins, 0 for a tie (rolled again)."""
    ha, hb = poker_hand(a), poker_hand(b)
    return (ha > hb) - (ha < hb)

