"""`escalero scan PHOTO...`: read filled sheets from photos, print entries and the payout."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator, Sequence
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from escalero.scan.refusals import in_language
from escalero.scoring.cli import add_house_options, house_override
from escalero.scoring.errors import EscaleroError, ExitCode, PhotoError, UsageError, internal_error
from escalero.scoring.model import MAX_NAME_LEN, TOTAL_ROW, column_name
from escalero.scoring.money import check_currency, parse_stake
from escalero.scoring.rulesets import ESCALERO_VARIANTS, GAMES, LANGUAGES

from escalero.i18n import N_, Text, os_reason, percent, pick_language, translator

if TYPE_CHECKING:
    from escalero.scan.pipeline import ScanOptions
    from escalero.sheets.layout import LayoutSpec

CELL_W = 6
# A PHOTO file larger than the largest photo the pixel limit allows, stored uncompressed
# (scan.load.MAX_PIXELS x 3 bytes), is refused unread; a device or pipe is read that far.
MAX_PHOTO_BYTES = 180_000_000


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
                   help="write overlay pictures of every stage into DIR; when a photo is "
                   "refused, what was found up to the stage that refused it")
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
    add_house_options(p)
    p.set_defaults(func=cmd_scan)


def _layout_fields(args: argparse.Namespace) -> frozenset[str]:
    """The layout fields the options name (what a sheet naming its own layout must match)."""
    given = {"game": args.game is not None, "variants": bool(args.variant),
             "sides": args.players is not None, "pairs": args.players is not None or args.pairs,
             "paper": args.paper is not None}
    return frozenset(field for field, named in given.items() if named)


def _layout_hint(args: argparse.Namespace) -> LayoutSpec | None:
    """The LayoutSpec the options describe (as `escalero sheet` plans it), or None."""
    if args.game is None and args.players is None and not args.variant and not args.pairs \
            and args.paper is None:
        return None
    from escalero.sheets.block import plan_block

    variants = tuple(v.strip() for a in args.variant for v in a.split(",") if v.strip())
    return plan_block(args.game or "escalero", args.players, args.names, args.pairs, variants,
                      args.paper or "a4").spec


def _options(args: argparse.Namespace) -> ScanOptions:
    """ScanOptions from the command line, every option checked before any photo is read."""
    from escalero.scan.pipeline import ScanOptions

    if args.jobs < 1:
        raise UsageError.worded(N_("--jobs {jobs}: give 1 or more"), jobs=args.jobs)
    currency = check_currency(args.currency)
    if args.stake is not None:
        parse_stake(args.stake)
    if args.debug is not None:
        _check_debug_dir(Path(args.debug))
    names = tuple(n.strip() for n in (args.names or "").split(",") if n.strip())
    if not all(len(n) <= MAX_NAME_LEN and n.isprintable() for n in names):
        raise UsageError.worded(N_("--names: each name must be at most {most} printable "
                                   "characters; give shorter names"), most=MAX_NAME_LEN)
    return ScanOptions(recognizer=args.recognizer, layout=_layout_hint(args),
                       layout_fields=_layout_fields(args),
                       debug_dir=None, names=names, stake=args.stake,
                       currency=currency, lang=args.lang or ("en" if args.json else "de"),
                       house=house_override(args))


def _check_debug_dir(directory: Path) -> None:
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        why = Text(N_("it is a file")) if directory.is_file() else os_reason(err)
        raise UsageError.worded(N_("--debug {dir}: {why}; give a directory to write into"),
                                dir=directory, why=why) from None
    if not os.access(directory, os.W_OK | os.X_OK):
        raise UsageError.worded(N_("--debug {dir}: not writable; give a directory to write "
                                   "into"), dir=directory)


# The scan table's own words (the payout's words come from scoring.text).
def _words(lang: str) -> dict[str, str]:
    _ = translator(lang).gettext
    return {"sure": _("Payout certain ({p})"), "unsure": _("Payout not certain (certain to {p})"),
            "others": _("Other unsure cells ({n}); the payout does not hang on them:"),
            "optional": _("Unsure cells ({n}); the payout is certain without them:"),
            "read": _("read"), "or": _("or"), "total": _("Total"),
            "written": _("Total (written)"), "note": _("Note")}


def format_scan(result: Any, lang: str = "de") -> str:
    """The payout and how sure it is first, with the cells it hangs on; then the payout's
    details, the sheet as read ('?' marks unsure cells) and the other unsure cells."""
    from escalero.scoring import text

    lang = pick_language(lang)
    w = _words(lang)
    sheet = result.sheet
    review = list(result.review)
    certain = bool(result.report["settlement"].get("certain"))
    # A certain payout hangs on no cell: every unsure cell is then optional to check.
    deciding = [] if certain else [r for r in review if r.get("affects_payout")]
    others = [r for r in review if r not in deciding]
    lines = [f"{w['note'].upper()}: {msg}" for msg in getattr(result, "warnings", ())]
    lines.append(_status_line(result, deciding, lang))
    lines += [_review_line(sheet, r, lang, w) for r in deciding]
    payout = text.format_report(sheet, result.report, lang)
    # format_report starts with its own grid (without '?' marks): keep what follows it.
    lines += ["", payout.split("\n\n", 1)[1] if "\n\n" in payout else payout]
    lines += ["", *_grid(result, lang, w)]
    if others:
        lines += ["", w["optional" if certain else "others"].format(n=len(others))]
        lines += [_review_line(sheet, r, lang, w) for r in others]
    return "\n".join(lines) + "\n"


def _status_line(result: Any, deciding: list[dict[str, Any]], lang: str) -> str:
    t, w = translator(lang), _words(lang)
    settlement = result.report["settlement"]
    p = _percent(float(settlement.get("confidence", 0.0)), lang,
                 sure=bool(settlement.get("certain")))
    certainty = getattr(result, "certainty", None)
    if certainty is not None and not certainty.finished:
        empty = sum(1 for side in result.sheet.sides for col in side.columns
                    for r in result.sheet.ruleset.row_ids if col.get(r) is None)
        return t.ngettext("Payout provisional: the sheet is not finished ({n} empty)",
                          "Payout provisional: the sheet is not finished ({n} empty)",
                          empty).format(n=empty)
    if settlement.get("certain"):
        return w["sure"].format(p=p)
    if deciding:
        return t.ngettext("Payout depends on {n} cell (certain to {p}):",
                          "Payout depends on {n} cells (certain to {p}):",
                          len(deciding)).format(n=len(deciding), p=p)
    return w["unsure"].format(p=p)


def _review_line(sheet: Any, item: dict[str, Any], lang: str, w: dict[str, str]) -> str:
    rules = sheet.ruleset
    where = f"{sheet.sides[item['side']].name}, {column_name(item['column'])}, " + (
        w["total"] if item["row"] == TOTAL_ROW else rules.row(item["row"]).labels.get(lang))
    alts = ", ".join(_show(v) for v in item.get("alternatives", [])[:3])
    note = f" [{item['note']}]" if item.get("note") else ""
    return (f"  {where}: {w['read']} {_show(item['read'])} "
            f"({_percent(float(item['confidence']), lang)})"
            + (f", {w['or']} {alts}" if alts else "") + note)


def _grid(result: Any, lang: str, w: dict[str, str]) -> list[str]:
    sheet, rules = result.sheet, result.sheet.ruleset
    flagged = {(r["side"], r["column"], r["row"]) for r in result.review}
    values = {(c.side, c.column, c.row): c.value for c in result.cells}
    total_w = CELL_W * rules.columns
    label_w = 1 + max(len(w["written"]), *(len(r.labels.get(lang)) for r in rules.rows))
    lines = [" " * label_w + "".join(f"{s.name[:total_w - 1]:>{total_w}}" for s in sheet.sides)]
    if rules.columns > 1:
        lines.append(" " * label_w + "".join(f"{column_name(c):>{CELL_W}}"
                                             for _ in sheet.sides for c in range(rules.columns)))
    rows = [(r.id, r.labels.get(lang)) for r in rules.rows] + [(TOTAL_ROW, w["written"])]
    for rid, label in rows:
        cells = ""
        for s in range(len(sheet.sides)):
            for c in range(rules.columns):
                mark = "?" if (s, c, rid) in flagged else " "
                cells += f"{_show(values.get((s, c, rid))) + mark:>{CELL_W}}"
        lines.append(f"{label:<{label_w}}{cells}")
    return lines


def _percent(p: float, lang: str, sure: bool = False) -> str:
    """99.6% stays 99.6% (not 100%): a flagged reading is never shown as sure; a certain
    payout shows its nines (99.97%). Written as `lang` writes it ("99,6 %" in German)."""
    if sure and p >= 0.999:
        return percent(min(Decimal("0.9999"), Decimal(int(p * 10000)) / 10000), lang, 2)
    if p >= 0.99:
        return percent(min(Decimal("0.999"), Decimal(int(p * 1000)) / 1000), lang, 1)
    return percent(Decimal(str(p)), lang)


def _show(v: Any) -> str:
    return "." if v is None else str(v)


def photo_source(photo: str) -> str | bytes:
    """What to scan for the PHOTO argument: its path; for a device or a pipe, its first
    bytes, read up to MAX_PHOTO_BYTES. A file too large for a photo is refused before it
    is read (PhotoError), a device or pipe that holds more once that much is read."""
    import stat

    try:
        info = os.stat(photo)
    except (OSError, ValueError):
        return photo  # the loader names the problem (no such file, no permission)
    limit = f"{MAX_PHOTO_BYTES // 10 ** 6} MB"
    if stat.S_ISREG(info.st_mode):
        if info.st_size > MAX_PHOTO_BYTES:
            raise PhotoError.worded(N_("{photo}: {mb} MB is larger than any photo (at most "
                                       "{limit}); send the camera's photo"), photo=photo,
                                    mb=f"{info.st_size / 1e6:,.0f}", limit=limit)
        return photo
    if stat.S_ISDIR(info.st_mode):
        return photo
    try:
        with open(photo, "rb") as stream:
            data = stream.read(MAX_PHOTO_BYTES + 1)
    except OSError as err:
        raise PhotoError.worded(N_("{photo}: cannot read it ({why}); give a photo file"),
                                photo=photo, why=err.strerror) from None
    if len(data) > MAX_PHOTO_BYTES:
        raise PhotoError.worded(N_("{photo}: more than {limit}, larger than any photo; give a "
                                   "photo file"), photo=photo, limit=limit)
    return data


# One photo of a batch: (photo, options, debug folder, --json, --lang as given).
ScanJob = tuple[str, Any, str | None, bool, str | None]


def _scan_one(job: ScanJob) -> tuple[str, int, str]:
    """Worker: (photo, options, debug dir, json?) -> (photo, exit code, output or error)."""
    from dataclasses import replace

    from escalero.scan.pipeline import scan_photo

    photo, options, debug, as_json, lang = job
    if debug is not None:
        options = replace(options, debug_dir=str(Path(debug) / Path(photo).stem))
    try:
        result = scan_photo(photo_source(photo), options)
        if as_json:
            return photo, ExitCode.OK, json.dumps(result.to_json(), ensure_ascii=False)
        return photo, ExitCode.OK, format_scan(result, options.lang)
    except EscaleroError as err:
        return photo, err.exit_code, str(in_language(err, lang))
    except Exception as err:  # noqa: BLE001 - a bug in one photo must not end the batch
        return photo, ExitCode.INTERNAL, internal_error(err)


def cmd_scan(args: argparse.Namespace) -> int:
    options = _options(args)
    photos: Sequence[str] = args.photos
    debug = args.debug
    if len(photos) == 1:
        from escalero.scan.pipeline import scan_photo

        if debug is not None:
            from dataclasses import replace

            options = replace(options, debug_dir=debug)
        # Errors: one line via escalero.cli, in --lang where it was given.
        try:
            result = scan_photo(photo_source(photos[0]), options)
        except EscaleroError as err:
            raise in_language(err, args.lang) from None
        if args.json:
            json.dump(result.to_json(), sys.stdout, ensure_ascii=False, indent=2)
            sys.stdout.write("\n")
        else:
            sys.stdout.write(format_scan(result, options.lang))
        return ExitCode.OK
    jobs = [(p, options, debug, args.json, args.lang) for p in photos]
    n = len(jobs)
    if args.jobs > 1:
        # Each worker reads its sheets with one thread: the workers share the cores.
        from escalero.scan.digit_model import READ_THREADS_ENV

        os.environ.setdefault(READ_THREADS_ENV, "1")
        worst = _emit(_in_parallel(jobs, args.jobs), n, args.json, args.lang)
    else:
        worst = _emit(map(_scan_one, jobs), n, args.json, args.lang)
    return worst


LOST = ("the process reading it ended without an answer (killed, perhaps for lack of "
        "memory); scan it alone, or with fewer --jobs")


def _in_parallel(jobs: Sequence[ScanJob], workers: int
                 ) -> Iterator[tuple[str, int, str]]:
    """_scan_one over `jobs` in `workers` processes, results in order. A worker that dies
    (the OOM killer) breaks the pool: the first photo without an answer is then read once
    more alone, and reported lost if that process dies too; the rest go on in a new pool."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    pending = list(jobs)
    while pending:
        pool = ProcessPoolExecutor(min(workers, len(pending)))
        try:
            futures = [pool.submit(_scan_one, job) for job in pending]
            for future in futures:
                try:
                    result = future.result()
                except BrokenProcessPool:
                    break
                pending.pop(0)
                yield result
        finally:  # the batch ended early (output failed): photos not begun are dropped
            pool.shutdown(wait=True, cancel_futures=True)
        if pending:
            job = pending.pop(0)
            with ProcessPoolExecutor(1) as alone:
                try:
                    yield alone.submit(_scan_one, job).result()
                except BrokenProcessPool:
                    yield job[0], ExitCode.INTERNAL, LOST


def _emit(results: Any, n: int, as_json: bool, lang: str | None = None) -> int:
    from escalero.cli import error_line

    worst: int = ExitCode.OK
    for i, (photo, code, out) in enumerate(results, start=1):
        print(f"[{i}/{n}] {photo}", file=sys.stderr)
        if code:
            # Errors about the file itself already start with its path or name.
            prefix = "" if out.startswith((photo, Path(photo).name)) else f"{photo}: "
            print(error_line("scan", f"{prefix}{out}", lang), file=sys.stderr)
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
