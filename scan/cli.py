"""`escalero scan PHOTO...`: read filled sheets from photos, print entries and the payout."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from multiprocessing import Pool
from typing import Any

from scoring.errors import EscaleroError
from scoring.model import column_name
from scoring.rulesets import ESCALERO_VARIANTS, GAMES, LANGUAGES

CELL_W = 6


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "scan", help="read a photo of a filled sheet: every entry, unsure ones flagged, payout",
        description="Read photos of filled score sheets printed with `escalero sheet`. "
        "Unsure readings are marked '?' and listed with alternatives; a sheet that cannot "
        "be read safely is refused (exit 6) rather than guessed.",
    )
    p.add_argument("photos", nargs="+", metavar="PHOTO", help="JPEG, PNG, WebP or HEIC photo")
    p.add_argument("--json", action="store_true",
                   help="print JSON (one object; JSON Lines for several photos)")
    p.add_argument("--debug", metavar="DIR",
                   help="write overlay pictures of every stage into DIR")
    p.add_argument("--recognizer", choices=("default", "tesseract"), default="default",
                   help="cell reader (default: the built-in digit model)")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="photos read in parallel (default 1)")
    g = p.add_argument_group("layout, when the sheet's QR code cannot be read")
    g.add_argument("--game", choices=GAMES)
    g.add_argument("--players", type=int, metavar="N",
                   help="number of players (with --pairs: players, paired in order)")
    g.add_argument("--pairs", action="store_true", help="the sheet was printed for pairs")
    g.add_argument("--variant", action="append", default=[], metavar="V",
                   help=f"house variant, repeatable: {', '.join(ESCALERO_VARIANTS)}")
    g.add_argument("--paper", default=None, help="paper of the sheet (a4, a5, letter)")
    p.add_argument("--names", metavar="'A,B'", help="player names in sheet order, comma-separated")
    p.add_argument("--stake", metavar="AMOUNT", help="money per Partiepunkt, e.g. 0.50")
    p.add_argument("--currency", default="EUR", help="currency shown with amounts (EUR)")
    p.add_argument("--lang", choices=LANGUAGES, help="words (de); --json: en unless given")
    p.set_defaults(func=cmd_scan)


def _layout_hint(args: argparse.Namespace) -> Any:
    """The LayoutSpec the options describe (as `escalero sheet` plans it), or None."""
    if args.game is None and args.players is None and not args.variant and not args.pairs \
            and args.paper is None:
        return None
    from sheets.cli import plan_block

    variants = tuple(v.strip() for a in args.variant for v in a.split(",") if v.strip())
    return plan_block(args.game or "escalero", args.players, args.names, args.pairs, variants,
                      args.paper or "a4").spec


def _options(args: argparse.Namespace) -> Any:
    from scan.pipeline import ScanOptions

    names = tuple(n.strip() for n in (args.names or "").split(",") if n.strip())
    return ScanOptions(recognizer=args.recognizer, layout=_layout_hint(args),
                       debug_dir=None, names=names, stake=args.stake,
                       currency=args.currency, lang=args.lang or ("en" if args.json else "de"))


def format_scan(result: Any, lang: str = "de") -> str:
    """The sheet as read ('?' marks unsure cells), the review list, then the payout."""
    from scoring import text

    sheet, rules = result.sheet, result.sheet.ruleset
    flagged = {(c.side, c.column, c.row): c for c in result.cells if not c.certain}
    values = {(c.side, c.column, c.row): c.value for c in result.cells}
    total_w = CELL_W * rules.columns
    label_w = 1 + max(len("Summe (geschrieben)"), *(len(r.labels.get(lang)) for r in rules.rows))
    lines = [" " * label_w + "".join(f"{s.name[:total_w - 1]:>{total_w}}" for s in sheet.sides)]
    if rules.columns > 1:
        lines.append(" " * label_w + "".join(f"{column_name(c):>{CELL_W}}"
                                             for _ in sheet.sides for c in range(rules.columns)))
    rows = [(r.id, r.labels.get(lang)) for r in rules.rows] + [("total", "Summe (geschrieben)")]
    for rid, label in rows:
        cells = ""
        for s in range(len(sheet.sides)):
            for c in range(rules.columns):
                v = values.get((s, c, rid))
                mark = "?" if (s, c, rid) in flagged else " "
                cells += f"{_show(v) + mark:>{CELL_W}}"
        lines.append(f"{label:<{label_w}}{cells}")
    if flagged:
        lines += ["", f"Bitte prüfen ({len(flagged)}):"]
        for c in flagged.values():
            where = f"{sheet.sides[c.side].name}, {column_name(c.column)}, " + (
                "Summe" if c.row == "total" else rules.row(c.row).labels.get(lang))
            alts = ", ".join(_show(v) for v, _ in c.alternatives[:3])
            note = f" [{c.note}]" if c.note else ""
            lines.append(f"  {where}: gelesen {_show(c.value)} ({_percent(c.confidence)})"
                         + (f", oder {alts}" if alts else "") + note)
    payout = text.format_report(sheet, result.report, lang)
    # format_report starts with its own grid (without '?' marks): keep what follows it.
    tail = payout.split("\n\n", 1)[1] if "\n\n" in payout else payout
    if any(c.row != "total" for c in flagged.values()):
        # The payout below counts unsure entries as read: nobody should pay on it yet.
        tail = (f"VORLÄUFIG: {sum(c.row != 'total' for c in flagged.values())} Einträge "
                "unsicher; die Auszahlung gilt erst, wenn sie geprüft sind.\n" + tail)
    warn = "".join(f"ACHTUNG: {w}\n" for w in getattr(result, "warnings", ()))
    return warn + "\n".join(lines) + "\n\n" + tail


def _percent(p: float) -> str:
    """99.6% stays 99.6% (not 100%): a flagged reading is never shown as sure."""
    if p >= 0.99:
        return f"{min(99.9, int(p * 1000) / 10):.1f}%"
    return f"{p:.0%}"


def _show(v: Any) -> str:
    return "." if v is None else str(v)


def _scan_one(job: tuple[str, Any, str | None, bool]) -> tuple[str, int, str]:
    """Worker: (photo, options, debug dir, json?) -> (photo, exit code, output or error)."""
    from dataclasses import replace
    from pathlib import Path

    from scan.pipeline import scan_photo

    photo, options, debug, as_json = job
    if debug is not None:
        options = replace(options, debug_dir=str(Path(debug) / Path(photo).stem))
    try:
        result = scan_photo(photo, options)
    except EscaleroError as err:
        return photo, err.exit_code, str(err)
    if as_json:
        return photo, 0, json.dumps(result.to_json(), ensure_ascii=False)
    return photo, 0, format_scan(result, options.lang)


def cmd_scan(args: argparse.Namespace) -> int:
    options = _options(args)
    photos: Sequence[str] = args.photos
    debug = args.debug
    if len(photos) == 1:
        from scan.pipeline import scan_photo

        if debug is not None:
            from dataclasses import replace

            options = replace(options, debug_dir=debug)
        result = scan_photo(photos[0], options)  # errors: one line via escalero_cli
        if args.json:
            json.dump(result.to_json(), sys.stdout, ensure_ascii=False, indent=2)
            sys.stdout.write("\n")
        else:
            sys.stdout.write(format_scan(result, options.lang))
        return 0
    jobs = [(p, options, debug, args.json) for p in photos]
    worst = 0
    n = len(jobs)
    if args.jobs > 1:
        with Pool(min(args.jobs, n)) as pool:
            results = pool.imap(_scan_one, jobs)
            worst = _emit(results, n, args.json)
    else:
        worst = _emit(map(_scan_one, jobs), n, args.json)
    return worst


def _emit(results: Any, n: int, as_json: bool) -> int:
    worst = 0
    for i, (photo, code, out) in enumerate(results, start=1):
        print(f"[{i}/{n}] {photo}", file=sys.stderr)
        if code:
            from pathlib import Path

            prefix = "" if out.startswith(Path(photo).name) else f"{photo}: "
            print(f"escalero scan: error: {prefix}{out}", file=sys.stderr)
            if as_json:
                print(json.dumps({"photo": photo, "error": out, "exit_code": code},
                                 ensure_ascii=False))
            worst = max(worst, code)
            continue
        if as_json:
            print(json.dumps({"photo": photo, **json.loads(out)}, ensure_ascii=False))
        else:
            print(f"== {photo}\n{out}")
    sys.stdout.flush()
    return worst
