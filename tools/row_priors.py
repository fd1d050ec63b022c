"""Write scan/models/row_priors.json: how much likelier each written reading is in a row
than in the digit model's training cells.

    .venv/bin/python tools/row_priors.py [--games 600] [--out scan/models/row_priors.json]

The digit model learned its prior from the training cells (samples.cell_crops
.training_entry): a strike is 15% of them and a lone 1 2%. A row of a played sheet holds
what the dice give: in the Neuner row a 1 is about three times as common as a strike. A
slanted 1 and a slash look alike, so the network, which has seen far more strikes than
lone 1s, calls such a cell struck; Bayes' rule with the row's own shares (label shift)
turns it back. The shares come from games played with random dice (samples.games, which
plays each turn for the row that pays best), blended half and half with equal shares for
every reading of the row, so that a table that strikes more (or less) than the simulation
is not read against. The weight of a reading is its row share over its training share;
the scanner (scan.digit_model.decode) redistributes a cell's written mass (struck or a
number the row allows) by them, and leaves the empty reading and the numbers the row does
not allow as the network gave them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np
from escalero.samples.cell_crops import Entry, training_entry_share
from escalero.samples.games import GameSpec, play_game
from escalero.scan.digit_model import ROW_PRIORS_PATH, row_key
from escalero.scoring.rulesets import ESCALERO_VARIANTS, get_ruleset

BLEND = 0.5  # share of the equal prior in a row's prior
SIDES = (2, 3, 4, 5, 6)


def rulesets() -> list[tuple[str, tuple[str, ...]]]:
    return [("escalero", ()), *(("escalero", (v,)) for v in ESCALERO_VARIANTS),
            ("generala", ())]


def row_shares(games: int, seed: int) -> dict[str, Counter[object]]:
    """Entries of played sheets per row key (row id and allowed values)."""
    rng = np.random.default_rng(seed)
    counts: dict[str, Counter[object]] = {}
    for game, variants in rulesets():
        rules = get_ruleset(game, variants)
        keys = {r.id: row_key(r.id, tuple(r.allowed)) for r in rules.rows}
        sides = [s for s in SIDES if rules.min_sides <= s <= rules.max_sides]
        for g in range(games):
            spec = GameSpec(game=game, variants=variants, sides=sides[g % len(sides)])
            for side in play_game(spec, rng).sheet["sides"]:
                for column in side["columns"]:
                    for row_id, value in column.items():
                        if value is not None:
                            counts.setdefault(keys[row_id], Counter())[value] += 1
    return counts


def weights(counts: Counter[object], allowed: tuple[int, ...]) -> dict[str, float]:
    readings: list[Entry] = ["x", *allowed]
    n = sum(counts.values())
    out = {}
    for v in readings:
        share = (1 - BLEND) * counts.get(v, 0) / n + BLEND / len(readings)
        out[str(v)] = share / training_entry_share(v)
    top = max(out.values())
    return {k: float(f"{w / top:.4g}") for k, w in out.items()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="tools/row_priors.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=600, help="games per ruleset")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", type=Path, default=ROW_PRIORS_PATH)
    args = p.parse_args(argv)
    counts = row_shares(args.games, args.seed)
    table = {}
    for key in sorted(counts):
        allowed = tuple(int(v) for v in key.split(":")[1].split(","))
        table[key] = weights(counts[key], allowed)
    doc = {"about": "weights of a row's written readings against the digit model's "
                    "training cells; made by tools/row_priors.py",
           "games_per_ruleset": args.games, "seed": args.seed, "blend": BLEND,
           "weights": table}
    args.out.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print(f"{args.out}: {len(table)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
