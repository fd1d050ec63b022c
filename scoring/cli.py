"""`escalero settle`, `escalero rules` and `escalero dice`."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from typing import Any

from escalero.scoring import house as house_mod
from escalero.scoring import text
from escalero.scoring.dice import compare_hands, parse_throw, poker_hand, row_scores
from escalero.scoring.errors import ExitCode, UsageError
from escalero.scoring.house import PRESETS
from escalero.scoring.model import Sheet, load_sheet
from escalero.scoring.money import check_currency, parse_stake
from escalero.scoring.report import balance_report, settle_report
from escalero.scoring.rulesets import ESCALERO_VARIANTS, GAMES, LANGUAGES, get_ruleset
from escalero.scoring.validate import describe_allowed

from escalero.i18n import N_


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "settle",
        help="validate and settle a filled sheet (JSON) into Partiepunkte and money",
        description="Validate and settle sheet JSON files (see docs/sheet-json.md). "
        "Several files: each game, then the running balance per player.",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="sheet JSON file ('-' reads stdin)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--stake", metavar="AMOUNT",
                   help="money per Partiepunkt, e.g. 0.50 (whole cents)")
    p.add_argument("--currency", default="EUR", help="currency shown with amounts (EUR)")
    p.add_argument("--lang", choices=LANGUAGES, default=None,
                   help="words of the table and the problems (de); --json: en unless given")
    add_house_options(p)
    p.set_defaults(func=cmd_settle)

    r = subparsers.add_parser("rules", help="print the rows and allowed values of a game",
                              description="Print the rows, allowed values and column weights.")
    _rules_options(r)
    r.add_argument("--json", action="store_true", help="print JSON instead of a table")
    add_house_options(r)
    r.set_defaults(func=cmd_rules)

    d = subparsers.add_parser(
        "dice", help="what five dice score in each row; compare Start-Poker hands",
        description="Score a throw, e.g. `escalero dice 9 9 K K K --served`. "
        "Escalero faces: 9 10 B D K A (J/Q accepted); Generala: 1-6.",
    )
    d.add_argument("faces", nargs=5, metavar="FACE", help="the five dice")
    d.add_argument("--served", action="store_true",
                   help="all five lay in one roll (serviert): served values count")
    d.add_argument("--against", metavar="'F F F F F'",
                   help="Start-Poker: compare with another hand (five faces in quotes)")
    _rules_options(d)
    d.add_argument("--json", action="store_true", help="print JSON")
    d.set_defaults(func=cmd_dice)


def _rules_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", choices=GAMES, default="escalero")
    p.add_argument("--variant", action="append", default=[], metavar="V",
                   help=f"house variant, repeatable or comma-separated: "
                   f"{', '.join(ESCALERO_VARIANTS)}")
    p.add_argument("--lang", choices=LANGUAGES, default="de", help="labels (de)")


def add_house_options(p: argparse.ArgumentParser) -> None:
    """--house-rules FILE|PRESET and a flag per term (RULES.md, House rules)."""
    g = p.add_argument_group("house rules (the table's settlement terms; default piatnik)")
    g.add_argument("--house-rules", metavar="FILE|PRESET",
                   help=f"a preset ({', '.join(PRESETS)}) or a JSON file of house rules; "
                   "replaces the terms a sheet names")
    g.add_argument("--column-points", metavar="I/II/III",
                   help="what columns I, II, III pay, ascending, e.g. 1/2/3")
    g.add_argument("--all-three-bonus", type=int, metavar="N",
                   help="extra points from each opponent for winning all three (0-10)")
    g.add_argument("--split-ties", action=argparse.BooleanOptionalAction, default=None,
                   help="sides tied at the top of a column share it (the others pay)")


def house_override(args: argparse.Namespace) -> house_mod.Override | None:
    """The house-rule options as an Override, or None when none was given.

    Checked before any sheet is read: a bad flag exits 2, a bad file 3."""
    given = (args.column_points, args.all_three_bonus, args.split_ties)
    if args.house_rules is None and all(v is None for v in given):
        return None
    base = house_mod.load(args.house_rules) if args.house_rules is not None else None
    override = house_mod.Override(base, *given)
    override.check()
    return override


def with_house(sheet: Sheet, override: house_mod.Override | None) -> Sheet:
    """The sheet settled under the options' terms (unchanged without options)."""
    if override is None or sheet.house is None:
        return sheet
    return replace(sheet, house_rules=override.apply(sheet.house, sheet.ruleset.columns))


def _variants(args: argparse.Namespace) -> list[str]:
    return [v.strip() for arg in args.variant for v in arg.split(",") if v.strip()]


def _print_json(obj: Any) -> None:
    json.dump(obj, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


def cmd_settle(args: argparse.Namespace) -> int:
    # Tools read --json: English unless asked; people read the table: German by default.
    lang = args.lang or ("en" if args.json else "de")
    # Options first: a bad stake is reported before any file is read.
    args.currency = check_currency(args.currency)
    if args.stake is not None:
        parse_stake(args.stake)
    override = house_override(args)
    sheets = [with_house(load_sheet(f), override) for f in args.files]
    reports = [settle_report(s, args.stake, args.currency, lang) for s in sheets]
    if len(sheets) == 1:
        if args.json:
            _print_json(reports[0])
        else:
            sys.stdout.write(text.format_report(sheets[0], reports[0], lang))
        return ExitCode.OK
    balance = balance_report(sheets, args.stake, args.currency)
    if args.json:
        _print_json({"games": [{"file": f, **r} for f, r in zip(args.files, reports, strict=True)],
                     "balance": balance})
        return ExitCode.OK
    for f, sheet, report in zip(args.files, sheets, reports, strict=True):
        sys.stdout.write(f"== {f}\n" + text.format_report(sheet, report, lang) + "\n")
    if "money" in balance:
        m = balance["money"]
        sys.stdout.write(text.format_balance(m["players"], m["transfers"], m["currency"],
                                             lang))
    else:
        sys.stdout.write(text.format_balance(balance["players"], [], "", lang))
    return ExitCode.OK


def cmd_rules(args: argparse.Namespace) -> int:
    rules = get_ruleset(args.game, _variants(args))
    override = house_override(args)
    terms = None
    if override is not None and rules.game != "escalero":
        raise UsageError.worded(N_("house rules apply to Escalero only; drop --house-rules and "
                                   "its flags"))
    if rules.game == "escalero":
        own = house_mod.default_for(rules)
        terms = override.apply(own, rules.columns) if override else own
    if args.json:
        _print_json({
            "game": rules.game, "variant": list(rules.variants), "columns": rules.columns,
            "column_weights": list(terms.column_points if terms else rules.column_weights),
            "all_columns_bonus": (terms.all_three_bonus if terms and rules.columns > 1
                                  else 0),
            **({"house_rules": terms.to_json(), "preset": terms.preset} if terms else {}),
            "sides": [rules.min_sides, rules.max_sides],
            "rows": [{"id": r.id, "label": r.labels.get(args.lang), "face": r.face,
                      "allowed": list(r.allowed), "served": list(r.served),
                      "requires": r.requires, "describe": describe_allowed(r, args.lang)}
                     for r in rules.rows],
        })
    else:
        sys.stdout.write(text.format_rules(rules, args.lang, terms))
    return ExitCode.OK


def cmd_dice(args: argparse.Namespace) -> int:
    rules = get_ruleset(args.game, _variants(args))
    throw = parse_throw(args.faces, rules, args.served)
    scores = row_scores(throw, rules)
    out: dict[str, Any] = {"faces": list(throw.faces), "served": throw.served, "rows": scores}
    if rules.game == "escalero":
        out["start_poker"] = poker_hand(throw).name
    if args.against:
        other = parse_throw(args.against.split(), rules)
        out["against"] = {"faces": list(other.faces), "start_poker": poker_hand(other).name,
                          "result": compare_hands(throw, other)}
    if args.json:
        _print_json(out)
        return ExitCode.OK
    w = text.words(args.lang)
    served = f" ({w['served']})" if throw.served else ""
    sys.stdout.write(" ".join(throw.faces) + served + "\n" + text.format_scores(scores, rules,
                                                                              args.lang))
    if "start_poker" in out:
        sys.stdout.write(f"{w['hand']}: {text.hand_name(out['start_poker'], args.lang)}\n")
    if "against" in out:
        a = out["against"]
        verdict = {1: " ".join(throw.faces) + f" {w['wins']}",
                   -1: " ".join(a["faces"]) + f" {w['wins']}", 0: w["tie"]}[a["result"]]
        hand = text.hand_name(a["start_poker"], args.lang)
        sys.stdout.write(f"  vs {' '.join(a['faces'])} ({hand}): {verdict}\n")
    return ExitCode.OK
