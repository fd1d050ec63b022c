"""Money: a stake per Partiepunkt turns points into amounts; who pays whom.

All arithmetic is in integer cents (stakes are whole cents), so there are no
float rounding errors and amounts always add up to exactly 0.

Transfers: `fewest_transfers` returns a provably minimal number of transfers.
n balances need n - g transfers, where g is the largest number of groups the
balances split into that each sum to 0; g is found exactly by a subset search
for up to EXACT_LIMIT non-zero balances (every real table), above that a greedy
largest-debtor-pays-largest-creditor plan (n - 1 transfers at most, usually minimal).

Part points (house rules that split tied columns give halves): a side's exact amount
may hold a part cent. The whole cents go as computed and the cents left over are handed
out like split_cents does: one each, to the sides with the largest part cent, the first
sides first on a tie (so amounts move by less than a cent each and still sum to 0).

Pairs: each member of a side is shown the side's points and amount. A side of
one among pairs plays for two (RULES.md), so it carries twice the amount. In
general a side carries its amount times the size of the largest side, split
evenly among its members (a cent that does not divide goes to the first members).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from math import floor, lcm

from escalero.scoring.errors import UsageError

from escalero.i18n import N_

CENT = Decimal("0.01")
EXACT_LIMIT = 12  # 2^12 subsets: a few ms in pure Python
# The largest stake per point: 1,000,000.00 covers every currency's pub stakes, and
# keeps a game's amounts (and a ledger's sums over millions of games) inside 64 bits.
MAX_STAKE_CENTS = 100_000_000
MAX_STAKE_TEXT = 32  # characters: "1000000.00" with room for spaces


@dataclass(frozen=True)
class Transfer:
    payer: int  # index into the balances given
    payee: int
    cents: int

    @property
    def amount(self) -> Decimal:
        return to_money(self.cents)


def parse_stake(text: str | int | float | Decimal) -> int:
    """A stake per point ('0.50', '0,50', 1) -> cents. Raises UsageError if not whole cents."""
    if isinstance(text, bool) or not isinstance(text, str | int | float | Decimal):
        raise UsageError.worded(N_("the stake must be a number like 0.50"))
    raw = str(text).strip().replace(",", ".")
    shown = raw[:20] + ("..." if len(raw) > 20 else "")
    if len(raw) > MAX_STAKE_TEXT:
        raise UsageError.worded(N_("stake {shown!r} is too long; give it like 0.50"),
                                shown=shown)
    try:
        value = Decimal(raw)
    except InvalidOperation:
        raise UsageError.worded(N_("stake {shown!r} is not a number; give it like 0.50"),
                                shown=shown) from None
    if not value.is_finite() or value < 0:
        raise UsageError.worded(N_("stake {shown!r} must be a number of 0 or more, like 0.50"),
                                shown=shown)
    if value > MAX_STAKE_CENTS * CENT:
        raise UsageError.worded(N_("stake {shown!r} is too large; the most is {most} per "
                                   "point"), shown=shown, most=to_money(MAX_STAKE_CENTS))
    cents = value / CENT
    if cents != cents.to_integral_value():
        raise UsageError.worded(N_("stake {shown!r} has fractions of a cent; use at most two "
                                   "decimals"), shown=shown)
    return int(cents)


MAX_CURRENCY_LEN = 8


def check_currency(text: object) -> str:
    """A short printable currency code ('EUR', 'Fr.'); UsageError for anything else."""
    if text is None:
        return "EUR"
    if not isinstance(text, str):
        raise UsageError.worded(N_("the currency must be a short text such as EUR"))
    currency = text.strip() or "EUR"
    if len(currency) > MAX_CURRENCY_LEN or not currency.isprintable():
        raise UsageError.worded(N_("currency {currency!r}: give a short code such as EUR"),
                                currency=currency[:20])
    return currency


def to_money(cents: int) -> Decimal:
    return (Decimal(cents) * CENT).quantize(CENT)


def side_amounts(points: Sequence[int | Fraction], stake_cents: int) -> tuple[int, ...]:
    """Cents per side: points x stake, part cents rounded as the module doc says."""
    exact = [Fraction(p) * stake_cents for p in points]
    cents = [floor(e) for e in exact]
    left = -sum(cents) if sum(exact) == 0 else 0  # zero-sum points leave whole cents over
    by_part = sorted(range(len(exact)), key=lambda i: (-(exact[i] - cents[i]), i))
    for i in by_part[:left]:
        cents[i] += 1
    return tuple(cents)


def player_points(
    members: Sequence[Sequence[str]], points: Sequence[int | Fraction]
) -> dict[str, int | Fraction]:
    """Points per player name for one game, shared like player_amounts shares cents.

    Whole points are shared exactly as before; part points are shared in the smallest part
    the game has (halves: a pair's 5.5 is 5.5 for each partner)."""
    # every point is a whole number of units: thirds and halves in one game need sixths
    unit = lcm(*(Fraction(p).denominator for p in points))
    shares = player_amounts(members, [int(Fraction(p) * unit) for p in points])
    return {name: _exact(Fraction(v, unit)) for name, v in shares.items()}


def _exact(value: Fraction) -> int | Fraction:
    return int(value) if value.denominator == 1 else value


def split_cents(total: int, parts: int) -> tuple[int, ...]:
    """`total` split into `parts` shares differing by at most one cent, summing to `total`.

    The odd cents go to the first shares, in the direction of the sign (gain or loss).
    """
    sign = -1 if total < 0 else 1
    base, extra = divmod(abs(total), parts)
    return tuple(sign * (base + (1 if i < extra else 0)) for i in range(parts))


def player_amounts(
    members: Sequence[Sequence[str]], amounts: Sequence[int]
) -> dict[str, int]:
    """Cents per player name for one game: members[side] share amounts[side] (see module doc)."""
    largest = max(len(m) for m in members)
    out: dict[str, int] = {}
    for names, amount in zip(members, amounts, strict=True):
        for name, share in zip(names, split_cents(amount * largest, len(names)), strict=True):
            out[name] = out.get(name, 0) + share
    return out


def running_balance(
    games: Iterable[Mapping[str, int | Fraction]],
) -> dict[str, int | Fraction]:
    """Add up per-player cents (or points) over several games (players matched by name)."""
    total: dict[str, int | Fraction] = {}
    for game in games:
        for name, cents in game.items():
            total[name] = total.get(name, 0) + cents
    return total


def fewest_transfers(balances: Sequence[int]) -> tuple[Transfer, ...]:
    """Transfers (payer -> payee, cents) after which every balance is 0.

    balances[i] > 0: i is owed money; < 0: i owes. They must sum to 0.
    """
    if sum(balances) != 0:
        raise ValueError(f"balances must sum to 0, got {sum(balances)}")
    nonzero = [i for i, b in enumerate(balances) if b]
    if len(nonzero) <= EXACT_LIMIT:
        groups = _zero_sum_groups([balances[i] for i in nonzero])
        groups = [[nonzero[j] for j in g] for g in groups]
    else:
        groups = [nonzero]
    transfers: list[Transfer] = []
    for group in groups:
        transfers.extend(_greedy({i: balances[i] for i in group}))
    return tuple(transfers)


def _greedy(balance: dict[int, int]) -> list[Transfer]:
    """Largest debtor pays largest creditor; each transfer clears at least one party."""
    balance = dict(balance)
    out = []
    while any(balance.values()):
        payer = min(balance, key=lambda i: (balance[i], i))
        payee = max(balance, key=lambda i: (balance[i], -i))
        cents = min(-balance[payer], balance[payee])
        out.append(Transfer(payer, payee, cents))
        balance[payer] += cents
        balance[payee] -= cents
    return out


def _zero_sum_groups(values: Sequence[int]) -> list[list[int]]:
    """Split indices of `values` (sum 0) into the most groups that each sum to 0.

    best[mask] = most zero-sum groups that the elements of `mask` can be cut into
    when taken in some order: removing one element at a time, a group closes
    whenever the remaining mask sums to 0.
    """
    n = len(values)
    full = (1 << n) - 1
    sums = [0] * (1 << n)
    for mask in range(1, 1 << n):
        low = mask & -mask
        sums[mask] = sums[mask ^ low] + values[low.bit_length() - 1]
    best = [0] * (1 << n)
    for mask in range(1, 1 << n):
        m = 0
        rest = mask
        while rest:
            low = rest & -rest
            rest ^= low
            m = max(m, best[mask ^ low])
        best[mask] = m + (1 if sums[mask] == 0 else 0)
    # Walk back: peel one element at a time keeping the optimum; zero-sum prefixes cut groups.
    groups: list[list[int]] = []
    current: list[int] = []
    mask = full
    while mask:
        bonus = 1 if sums[mask] == 0 else 0
        rest = mask
        while rest:
            low = rest & -rest
            rest ^= low
            if best[mask ^ low] + bonus == best[mask]:
                break
        current.append(low.bit_length() - 1)
        mask ^= low
        if sums[mask] == 0:
            groups.append(current)
            current = []
    return groups
