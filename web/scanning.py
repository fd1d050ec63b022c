"""A photo scanned for the scan page: the scanner's JSON with the overlay, the review's
crops and the names printed on the sheet; the layout form read as a LayoutSpec."""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from escalero.scoring.errors import LayoutUnknownError, PhotoError, Reason, UsageError
from escalero.scoring.model import MAX_NAME_LEN
from escalero.web import pixel_budget
from escalero.web import recognizer as shared
from escalero.web.crops import name_crops, review_crops
from escalero.web.forms import form_flag
from escalero.web.jpeg import OVERLAY_QUALITY, encode_jpeg
from escalero.web.messages import keyed
from escalero.web.pixel_budget import REQUEST_PIXELS, SCAN_BASE_BYTES, decode_cost, release_memory

if TYPE_CHECKING:  # the scanner and the sheet planner load only when a page needs them
    from escalero.scan.recognize import Recognizer
    from escalero.sheets.layout import LayoutSpec

SCAN_SLOTS = max(4, os.cpu_count() or 1)
_SCAN_SLOTS = threading.BoundedSemaphore(SCAN_SLOTS)


class PhotoTooLarge(PhotoError):
    http_status = 413


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


def scan_bytes(data: bytes, lang: str, layout: LayoutSpec | None = None,
               recognizer: Recognizer | None = None) -> dict[str, Any]:
    """Scan a photo: the scanner's JSON plus the overlay image as a data: URL. The
    recognizer is the shared one unless one is given.

    Blocking and CPU-bound: call it from a worker thread. At most SCAN_SLOTS scans run at
    once (each holds a few hundred MB of images); further uploads wait their turn.
    """
    pipeline = shared.optional("escalero.scan.pipeline", shared.SCANNER)
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
        with pixel_budget.MEMORY.hold(cost.memory if cost else SCAN_BASE_BYTES), _SCAN_SLOTS:
            result = pipeline.scan_photo(data, pipeline.ScanOptions(lang=lang, layout=layout),
                                         recognizer=recognizer if recognizer is not None
                                         else shared.shared_recognizer())
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
