"""What the web pages ask of the other packages: rules, settlement, scans, PDFs.

The rules live in scoring only; the pages get them as JSON from here, so the
browser never holds a second copy of which values a row allows.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import functools
import importlib
import io
import math
import os
import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from escalero.scoring.certainty import CERTAINTY
from escalero.scoring.errors import (
    EscaleroError,
    InputFileError,
    LayoutUnknownError,
    PhotoError,
    Reason,
    ToolMissingError,
    UsageError,
)
from escalero.scoring.house import PRESETS, default_for
from escalero.scoring.model import MAX_NAME_LEN, Sheet, column_name
from escalero.scoring.money import check_currency, parse_stake, to_money
from escalero.scoring.report import settle_report
from escalero.scoring.rulesets import ESCALERO_VARIANTS, GAMES, LANGUAGES, get_ruleset
from escalero.scoring.validate import INVALID_VALUE, describe_allowed, validate
from escalero.web.i18n import LANGS, translate
from escalero.web.messages import keyed

if TYPE_CHECKING:  # the scanner and the sheet planner load only when a page needs them
    from escalero.scan.recognize import Recognizer
    from escalero.sheets.layout import LayoutSpec

SCAN_SLOTS = max(4, os.cpu_count() or 1)
_SCAN_SLOTS = threading.BoundedSemaphore(SCAN_SLOTS)
# The overlay is most of a scan's answer: 1200 px at quality 75 is ~160 kB (the 1600 px at
# 85 it was: ~380 kB) and still finer than a 390 px wide phone shows it at 3x.
OVERLAY_MAX_SIDE = 1200
OVERLAY_QUALITY = 75
CROP_QUALITY = 85  # the handwriting the review enlarges
# One upload may decode up to 50 MP (a 48 MP phone HEIC). What decoding costs is read from
# the header before a pixel is decoded (`decode_cost`): a JPEG ~6 bytes a pixel at the
# 1/2, 1/4 or 1/8 size it decodes at, an RGB or grey PNG ~8, anything Pillow must convert
# first (transparency, 16 bits, a palette, CMYK) ~24 (a 49 MP 16-bit RGBA PNG peaks at
# 1.2 GB in scan.load), plus ~250 MB for the scan's own images. Scans in flight together
# hold at most SCAN_MEMORY; further uploads wait their turn (a costlier one runs alone).
REQUEST_PIXELS = 50_000_000
SCAN_MEMORY = 1_500_000_000
SCAN_BASE_BYTES = 250_000_000
CROP_MARGIN_MM = 2.0  # a little of the neighbourhood shows ink that strays over the line
CROP_HEIGHT_PX = 96  # review crops are small JPEGs the page enlarges
MAX_GAME_UID = 64
# The name a side gets when nobody typed one: "Spieler 2" (scanner, web), in any language.
_PLAYER_WORDS = "|".join(re.escape(translate("player", lang)) for lang in LANGS)
PLACEHOLDER = re.compile(rf"^({_PLAYER_WORDS}) \d+$")


class UnnamedSidesError(UsageError):
    """A side still carries a placeholder name; the page asks for names or guests."""

    http_status = 422

    def __init__(self, names: Sequence[str]) -> None:
        self.names = tuple(names)
        self.key = "err_unnamed"
        self.params = {"names": ", ".join(self.names)}
        super().__init__(translate(self.key, "en", **self.params))

    def details(self) -> dict[str, Any]:
        return {"unnamed": list(self.names)}


def rules_json(game: str, variants: list[str], lang: str) -> dict[str, Any]:
    """The ruleset as the sheet editor needs it (labels in `lang`)."""
    lang = lang if lang in LANGUAGES else "de"
    rules = get_ruleset(game, variants)
    return {
        "game": rules.game,
        "variants": list(rules.variants),
        "columns": rules.columns,
        "column_names": [column_name(c) for c in range(rules.columns)],
        "column_weights": list(rules.column_weights),
        "all_columns_bonus": rules.all_columns_bonus,
        "min_sides": rules.min_sides,
        "max_sides": rules.max_sides,
        "rows": [
            {"id": r.id, "label": r.labels.get(lang), "face": r.face,
             "allowed": list(r.allowed), "served": list(r.served), "requires": r.requires,
             "describe": describe_allowed(r, lang)}
            for r in rules.rows
        ],
        "games": list(GAMES),
        "all_variants": list(ESCALERO_VARIANTS) if rules.game == "escalero" else [],
        # The Tafel's settings panel: the terms a sheet without house rules gets, and presets.
        "house_rules": default_for(rules).to_json() if rules.game == "escalero" else None,
        "house_presets": {name: terms.to_json() for name, terms in PRESETS.items()}
        if rules.game == "escalero" else {},
    }


def clean_currency(text: Any) -> str:
    return check_currency(text)


def clean_game_uid(raw: Any) -> str | None:
    """A Tafel game's id as the phone made it (None when the page sent none)."""
    if raw is None or raw == "":
        return None
    uid = str(raw)
    if len(uid) > MAX_GAME_UID or not uid.isprintable():
        raise InputFileError(f'"game_id" must be a short text, at most {MAX_GAME_UID} '
                             "characters")
    return uid


def named_or_guests(sheet: Sheet, guests: bool, guest_word: str) -> Sheet:
    """The sheet to store: refused while a side is an unnamed "Spieler N", unless the
    player confirmed guests; a guest is then named for this game only ("Gast 1 (K7Q2-001)"),
    so two games' "Spieler 1" never share a balance."""
    unnamed = [i for i, side in enumerate(sheet.sides)
               if any(PLACEHOLDER.match(m) for m in side.members)]
    if not unnamed:
        return sheet
    if not guests:
        raise UnnamedSidesError([sheet.sides[i].name for i in unnamed])
    tag = sheet.serial or datetime.now().strftime("%d.%m. %H:%M")
    sides = list(sheet.sides)
    for i in unnamed:
        members = tuple(f"{guest_word} {m.rsplit(' ', 1)[1]} ({tag})" if PLACEHOLDER.match(m)
                        else m for m in sides[i].members)
        sides[i] = dataclasses.replace(sides[i], members=members, name=" & ".join(members))
    return dataclasses.replace(sheet, sides=tuple(sides))


def check_names_differ(sheet: Sheet) -> None:
    """The ledger keeps a balance per name: two players of one game named alike would be
    one player (400 before anything is stored)."""
    seen: set[str] = set()
    for side in sheet.sides:
        for name in side.members:
            if name in seen:
                raise keyed(UsageError, "err_names_differ", name=name)
            seen.add(name)


def stake_cents(stake: Any) -> int | None:
    """None when no stake was given (points only), else whole cents."""
    if stake is None or str(stake).strip() == "":
        return None
    return parse_stake(stake)


def without_forbidden(sheet: Sheet) -> Sheet:
    """The sheet with every value its row forbids taken out: such a cell counts nothing
    and stays open (the game is not finished) until a person writes a legal value."""
    bad = {(p.side, p.column, p.row) for p in validate(sheet, "en")
           if p.kind == INVALID_VALUE}
    if not bad:
        return sheet
    sides = tuple(dataclasses.replace(side, columns=tuple(
        {rid: v for rid, v in col.items() if (s, c, rid) not in bad}
        for c, col in enumerate(side.columns))) for s, side in enumerate(sheet.sides))
    return dataclasses.replace(sheet, sides=sides)


def settle_counted(sheet: Sheet, stake: Any, currency: str, lang: str) -> dict[str, Any]:
    """settle_report for the page and the ledger: forbidden values do not count in the
    sums, and the validation still names them as written."""
    report = settle_report(without_forbidden(sheet), stake, currency, lang=lang)
    report["validation"] = settle_report(sheet, None, currency, lang=lang)["validation"]
    return report


def settle_payload(payload: Any, lang: str) -> dict[str, Any]:
    """{"sheet", "stake"?, "currency"?} -> settle_report plus the normalised sheet."""
    if not isinstance(payload, dict) or "sheet" not in payload:
        raise keyed(InputFileError, "err_send_sheet")
    sheet = Sheet.from_json(payload["sheet"])
    cents = stake_cents(payload.get("stake"))
    currency = clean_currency(payload.get("currency"))
    report = settle_counted(sheet, None if cents is None else to_money(cents), currency,
                            lang if lang in LANGUAGES else "de")
    if payload.get("readings") is not None:
        report["payout"] = payout_json(sheet, payload)
        report["settlement"].update(certain=report["payout"]["certain"],
                                    confidence=report["payout"]["confidence"])
    report["sheet"] = sheet.to_json()
    return report


def _keys(raw: Any, what: str) -> list[tuple[int, int, str]]:
    if raw is None:
        return []
    if not isinstance(raw, list) or not all(
            isinstance(k, list) and len(k) == 3 and isinstance(k[0], int)
            and isinstance(k[1], int) and isinstance(k[2], str) for k in raw):
        raise InputFileError(f'"{what}" must be a list of [side, column, row] cells')
    return [(k[0], k[1], k[2]) for k in raw]


def payout_json(sheet: Sheet, payload: dict[str, Any]) -> dict[str, Any]:
    """How sure the payout is, given the scan's readings ("readings"), the cells it asked
    about ("asked") and those a person has answered since ("answered", exact now)."""
    from escalero.scan.payout import beliefs_from_json, reassess

    try:
        beliefs = beliefs_from_json(payload["readings"])
    except ValueError as err:
        raise InputFileError(f"readings: {err}") from None
    asked = _keys(payload.get("asked"), "asked")
    certainty = reassess(sheet, beliefs, asked, _keys(payload.get("answered"), "answered"))
    readings = {b.key: b.distribution for b in beliefs}
    return {"certain": certainty.certain, "confidence": round(certainty.confidence, 6),
            "accept": CERTAINTY.accept,
            "finished": certainty.finished,
            "cells": [{"side": i.key[0], "column": i.key[1], "row": i.key[2],
                       "affects_payout": i.affects_payout, "gain": round(i.gain, 6),
                       "extra": i.extra,
                       "readings": [[v, round(p, 4)] for v, p in readings.get(i.key, ())[:4]]}
                      for i in certainty.impacts]}


def ledger_record(payload: Any, guest_word: str = "Gast") -> tuple[Any, bool]:
    """POST /api/ledger's body -> (the GameRecord to save, whether a repeat is confirmed).

    "Spieler 1" of one game is not "Spieler 1" of the next: unnamed sides need names, or
    the player's word ("guests": true) that they are guests, who count in this game only."""
    from escalero.web.ledger import build_record

    if not isinstance(payload, dict) or "sheet" not in payload:
        raise keyed(InputFileError, "err_send_sheet")
    confirm = payload.get("confirm", False)
    guests = payload.get("guests", False)
    for name, flag in (("confirm", confirm), ("guests", guests)):
        if not isinstance(flag, bool):
            raise UsageError(f'"{name}" must be true or false')
    sheet = Sheet.from_json(payload["sheet"])
    cents = stake_cents(payload.get("stake")) or 0
    currency = clean_currency(payload.get("currency"))
    game_uid = clean_game_uid(payload.get("game_id"))
    sheet = named_or_guests(sheet, guests, guest_word)
    check_names_differ(sheet)
    report = settle_counted(sheet, to_money(cents), currency, "en")
    return build_record(sheet.to_json(), report, cents, currency, game_uid=game_uid), confirm


def form_flag(value: Any, what: str) -> bool:
    """A checkbox or query flag: '1', 'true', 'on', 'yes' are set; '', '0', 'false',
    'off', 'no' (or absent) are not; anything else is refused rather than guessed."""
    text = str(value if value is not None else "").strip().lower()
    if text in ("1", "true", "on", "yes"):
        return True
    if text in ("", "0", "false", "off", "no"):
        return False
    raise UsageError(f"{what} {text[:20]!r}: give 1 or 0")


class PhotoTooLarge(PhotoError):
    http_status = 413


@functools.cache
def shared_recognizer() -> Recognizer:
    """One recognizer for all requests: it is safe to share between threads (digit_model
    serialises the cv2.dnn network, and ONNX Runtime sessions run concurrently)."""
    recognize = _optional("escalero.scan.recognize", "the photo scanner")
    recognizer: Recognizer = recognize.get_recognizer("default")
    return recognizer


def _optional(module: str, what: str) -> Any:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name and module.startswith(err.name):
            raise ToolMissingError(f"{what} is not part of this installation; "
                                   "update escalero") from None
        raise


def encode_jpeg(image: Any, max_side: int = OVERLAY_MAX_SIDE,
                quality: int = CROP_QUALITY) -> str:
    """A BGR image as a data: URL (JPEG), shrunk so a phone loads it quickly."""
    import cv2
    from escalero.scan.imaging import shrink

    ok, buf = cv2.imencode(".jpg", shrink(image, max_side)[0],
                           [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise EscaleroError("could not encode the sheet image; please report this")
    return "data:image/jpeg;base64," + base64.b64encode(buf.tobytes()).decode("ascii")


def layout_hint(params: Mapping[str, Any]) -> LayoutSpec | None:
    """A LayoutSpec from the scan page's layout form (used when the QR code is unreadable),
    None when the form was left empty. Built exactly as `escalero sheet` plans a block."""
    players = str(params.get("players") or "").strip()
    if not players:
        return None
    if not (players.isascii() and players.isdigit()) or not 1 <= int(players) <= 16:
        raise keyed(UsageError, "err_players")
    from escalero.sheets.block import plan_block

    game = str(params.get("game") or "escalero")
    variants = tuple(params.get("variants") or ()) if game == "escalero" else ()
    return plan_block(game, int(players), None, form_flag(params.get("pairs"), "pairs"),
                      variants,
                      str(params.get("paper") or "a4")).spec


class PixelBudget:
    """A counting semaphore over decoding memory (bytes): big photos wait, small ones pass;
    one over the whole budget waits until it can run alone."""

    def __init__(self, total: int) -> None:
        self.total = total
        self._used = 0
        self._free = threading.Condition()

    @contextlib.contextmanager
    def hold(self, pixels: int) -> Iterator[None]:
        pixels = min(pixels, self.total)
        with self._free:
            self._free.wait_for(lambda: self._used + pixels <= self.total)
            self._used += pixels
        try:
            yield
        finally:
            with self._free:
                self._used -= pixels
                self._free.notify_all()


_MEMORY = PixelBudget(SCAN_MEMORY)


@dataclasses.dataclass(frozen=True)
class DecodeCost:
    """What decoding a photo costs, from its header: its size, the pixels decoded, the
    bytes of memory that takes (`decode_cost`), and the working image's short side."""

    width: int
    height: int
    pixels: int
    memory: int
    short_side: int


def decode_cost(data: bytes) -> DecodeCost | None:
    """The cost of decoding `data`, from the header alone (no pixel is decoded).

    A JPEG decodes at 1/2, 1/4 or 1/8 size when it is larger than the working size
    (scan.load uses Pillow's draft mode), so its cost is the reduced size; other formats
    decode at full size, and those Pillow converts first cost three times a plain one.
    None when the header is unreadable: scan.load then names the problem.
    """
    from escalero.scan.load import WORK_MAX_SIDE
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as img:
            width, height = img.size
            fmt, mode = img.format, img.mode
            transparent = "transparency" in img.info
    except Exception:  # noqa: BLE001 - any header problem is reported by the real decoder
        return None
    if fmt == "JPEG":
        scale = 1
        while scale < 8 and max(width, height) // (scale * 2) >= WORK_MAX_SIDE:
            scale *= 2
        pixels = (width // scale) * (height // scale)
        per_pixel = 6 if mode in ("RGB", "L") else 24
        decoded = (width // scale, height // scale)
    else:
        pixels = width * height
        per_pixel = 8 if mode in ("RGB", "L") and not transparent else 24
        decoded = (width, height)
    shrink = min(1.0, WORK_MAX_SIDE / max(1, *decoded))
    return DecodeCost(width, height, pixels, SCAN_BASE_BYTES + per_pixel * pixels,
                      int(min(decoded) * shrink))


def decoded_pixels(data: bytes) -> int:
    """Pixels the scanner will decode, from the header alone (0 when it is unreadable)."""
    cost = decode_cost(data)
    return cost.pixels if cost else 0


def release_memory() -> None:
    """Hand freed memory back to the system (glibc keeps a decoded photo's freed pages in
    its per-thread arenas otherwise, so the server would stay at its peak)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to do
        pass


def scan_bytes(data: bytes, lang: str, layout: LayoutSpec | None = None,
               recognizer: Recognizer | None = None) -> dict[str, Any]:
    """Scan a photo: the scanner's JSON plus the overlay image as a data: URL. The
    recognizer is the shared one unless one is given.

    Blocking and CPU-bound: call it from a worker thread. At most SCAN_SLOTS scans run at
    once (each holds a few hundred MB of images); further uploads wait their turn.
    """
    pipeline = _optional("escalero.scan.pipeline", "the photo scanner")
    from escalero.scan.load import MIN_SIDE

    cost = decode_cost(data)
    if cost and cost.pixels > REQUEST_PIXELS:
        raise keyed(PhotoTooLarge, "err_pixels_over", width=cost.width, height=cost.height,
                    mp=math.ceil(cost.pixels / 1e6), limit=f"{REQUEST_PIXELS / 1e6:.0f}")
    if cost and cost.short_side < min(MIN_SIDE, cost.width, cost.height):
        # Too small as decoded (a JPEG's draft size, the working size): the message names
        # the photo's own size (a photo small as it is, scan.load names itself).
        raise keyed(PhotoError, "err_photo_small", width=cost.width, height=cost.height)
    try:
        with _MEMORY.hold(cost.memory if cost else SCAN_BASE_BYTES), _SCAN_SLOTS:
            result = pipeline.scan_photo(data, pipeline.ScanOptions(lang=lang, layout=layout),
                                         recognizer=recognizer if recognizer is not None
                                         else shared_recognizer())
    except LayoutUnknownError as err:
        # The scanner's "QR unreadable" hint names CLI options; the page has a form.
        refusal = keyed(LayoutUnknownError, "err_no_layout")
        refusal.reason = err.reason or Reason.NO_LAYOUT
        raise refusal from None
    except PhotoError as err:
        if getattr(err, "key", None) or err.reason:
            raise
        # The decoder's words are for the command line (file name, library detail): the
        # page says in its language that the photo is damaged or no image it can read.
        raise keyed(PhotoError, "err_photo_damaged") from None
    finally:
        release_memory()
    out = dict(result.to_json())
    out["image"] = encode_jpeg(result.overlay(), quality=OVERLAY_QUALITY)
    out["crops"] = review_crops(result.rectified, result.cells, out.get("review", ()))
    out["name_crops"] = name_crops(result.rectified, result.geometry)
    return out


def name_crops(page: Any, geometry: Any) -> dict[str, str]:
    """"side/member" -> a small JPEG of that name box: the scanner does not read names,
    so the page shows what was written there beside the name field."""
    return {f"{side}/{member}": encode_jpeg(cut_mm(page, box, margin_mm=0.5),
                                            max_side=6 * CROP_HEIGHT_PX)
            for side, member, box in geometry.name_boxes}


def review_crops(page: Any, cells: Sequence[Any], review: Sequence[Mapping[str, Any]]
                 ) -> dict[str, str]:
    """"side/column/row" -> a small JPEG of that cell's handwriting, for every cell the
    review asks about: the player compares the ink with the reading, enlarged."""
    boxes = {(c.side, c.column, c.row): c.box_mm for c in cells}
    out: dict[str, str] = {}
    for item in review:
        key = (item["side"], item["column"], item["row"])
        if key in boxes:
            out["/".join(map(str, key))] = encode_jpeg(cut_mm(page, boxes[key]),
                                                       max_side=4 * CROP_HEIGHT_PX)
    return out


def cut_mm(page: Any, box_mm: Sequence[float], margin_mm: float = CROP_MARGIN_MM) -> Any:
    """The part of the flat sheet inside box_mm (x, y, w, h) plus a margin, scaled to
    CROP_HEIGHT_PX high."""
    import cv2
    from escalero.scan.rectify import PX_PER_MM  # the flat sheet's resolution

    x, y, w, h = (v * PX_PER_MM for v in box_mm)
    m = margin_mm * PX_PER_MM
    height, width = page.shape[:2]
    x0, y0 = max(0, int(x - m)), max(0, int(y - m))
    x1, y1 = min(width, int(x + w + m)), min(height, int(y + h + m))
    crop = page[y0:y1, x0:x1]
    scale = CROP_HEIGHT_PX / max(1, crop.shape[0])
    return cv2.resize(crop, (max(1, round(crop.shape[1] * scale)), CROP_HEIGHT_PX),
                      interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC)


def with_printed_names(result: dict[str, Any], printed: list[list[str]] | None
                       ) -> dict[str, Any]:
    """The scan result with the names printed on its sheet (sides the printer left blank
    keep the scanner's placeholders)."""
    sides = result.get("sides") or []
    if not printed or len(printed) != len(sides):
        return result
    named = []
    for side, names in zip(sides, printed, strict=True):
        members = list(side.get("members") or [side["name"]])
        if len(names) == len(members) and all(len(n) <= MAX_NAME_LEN for n in names):
            members = [n or m for n, m in zip(names, members, strict=True)]
        named.append({**side, "members": members, "name": " & ".join(members)})
    return {**result, "sides": named}
