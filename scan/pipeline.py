"""Photo -> sheet JSON + review + payout: the stages in order, timed.

    load -> locate (markers, QR, outline) -> layout -> rectify (+ refuse) -> snap grid
         -> cut + read cells -> totals check -> sheet JSON -> validate + settle
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from escalero.scan import cells as cells_mod
from escalero.scan import locate, payout
from escalero.scan.adapt import ADAPT, AdaptParams
from escalero.scan.anchors import ANCHORS, AnchorSettings, place_unplaced
from escalero.scan.cells import CUTTING, TOTALS, CuttingSettings, TotalsSettings
from escalero.scan.geometry import (
    TOTAL_ROW,
    SheetGeometry,
    default_side_names,
    geometry_for,
    page_frame,
    page_frames,
)
from escalero.scan.grid import PlacementSettings, SnappedSlot, snap_slots
from escalero.scan.infer_layout import INFERENCE, InferenceSettings, infer_layout
from escalero.scan.ink import INK, InkSettings, grey_by_shade, is_red_ink
from escalero.scan.load import load_photo
from escalero.scan.notes import note
from escalero.scan.passes import PassContext, run_passes
from escalero.scan.payout import PAYOUT, PayoutSettings
from escalero.scan.recognize import (
    READING,
    Calibrated,
    Capability,
    FeatureRecognizer,
    ReadingSettings,
    Recognizer,
)
from escalero.scan.rectify import (
    RECTIFY,
    TOO_BLURRED,
    Rectified,
    RectifySettings,
    check_markers_sharp,
    outline_blur_mm,
    rectify,
)
from escalero.scan.same_hand import SAME_HAND, SameHandSettings
from escalero.scan.shifted import reaim, tolerated_mm
from escalero.scan.writing_placement import (
    WRITING_PLACEMENT,
    WritingPlacementSettings,
    onto_writing,
)
from escalero.scoring.certainty import PayoutCertainty
from escalero.scoring.errors import (
    EscaleroError,
    LayoutUnknownError,
    Reason,
    SheetNotFoundError,
    UnreadableSheetError,
    UsageError,
)
from escalero.scoring.house import Override
from escalero.scoring.model import Sheet
from escalero.scoring.report import settle_report

from escalero.i18n import N_, Listing, Text

if TYPE_CHECKING:  # the sheet planner loads only when a layout is named
    from escalero.sheets.layout import LayoutSpec

NO_LAYOUT = N_("sheet found, but its QR code cannot be read: name the layout with "
               "--game and --players (and --pairs, --variant, --paper if used)")
LAYOUT_CONFLICT = N_("the sheet's QR code names {code}, but its corner marks {marks}: the "
                     "code is not this sheet's; photograph the sheet with its own code (or "
                     "with the other one covered), or type its entries in for `escalero "
                     "settle`")
LAYOUT_NOT_AS_NAMED = N_("the layout options name {named}, but the sheet's {where} names "
                         "{sheet}: leave out --game/--players/--pairs/--variant/--paper (the "
                         "sheet names its own layout) or photograph the sheet they describe")
# A QR code's page frame is not the marks' when another frame fits them this many times
# better, and its own leaves more than this many px (rms) of the marks' corners unexplained.
FRAME_RATIO, FRAME_SLACK_PX = 3.0, 1.0
# The fields of a LayoutSpec a user can name (the version is the print's, never named).
LAYOUT_FIELDS = frozenset({"game", "variants", "sides", "pairs", "paper"})


class ScanOptionError(UsageError):
    """Options that do not fit the sheet (e.g. --names with the wrong count)."""


@dataclass(frozen=True)
class ScanOptions:
    recognizer: str = "default"
    layout: LayoutSpec | None = None  # used when the QR code cannot be read
    # The fields of `layout` the user named (LAYOUT_FIELDS; None: all of them): a sheet
    # that names its own layout otherwise is refused (Reason.LAYOUT_NOT_AS_NAMED).
    layout_fields: frozenset[str] | None = None
    debug_dir: str | Path | None = None
    names: tuple[str, ...] = ()  # players in sheet order (pairs: two per side)
    stake: str | None = None
    currency: str = "EUR"
    lang: str = "de"
    house: Override | None = None  # the table's terms (the QR code does not hold them)
    # Re-read unsure cells against the sheet's certain ones (scan.adapt). Off by default: on
    # fresh sets it made 5 of 394 cells certain and wrong (writers with two shapes of a digit).
    adapt: bool = False
    # Weigh unsure cells' readings by how often their row holds them (scan/models/
    # row_priors.json) rather than by the training cells' mix. Off by default: on five
    # fresh sets it flagged 2-7% fewer cells and left one more sheet with a silent error
    # (an Asse strike written as a hooked 0 read as 6, raised to 0.984, confirmed by a
    # total whose 0 reads as 6 too); benchmarks.scan --row-priors measures with it.
    row_priors: bool = False
    # The stages' tuned values, each field with what it was fitted on: how the sheet is
    # found (scan.locate) and when it is too small or blurred (scan.rectify), how cells are
    # cut (scan.cells), when a reading is certain (scan.recognize; a recognizer passed to
    # scan_photo reads with its own), how sure each cell's placement is (scan.grid, with the
    # grid line search and the moved boxes' reaim gain; the page model: scan.anchors; the
    # writing around loosely placed cells: scan.writing_placement), the
    # written totals check (scan.cells) and when the payout is certain (scan.payout).
    locating: locate.LocateSettings = locate.LOCATE
    rectifying: RectifySettings = RECTIFY
    cutting: CuttingSettings = CUTTING
    reading: ReadingSettings = READING
    placement: PlacementSettings = field(default_factory=PlacementSettings)
    anchoring: AnchorSettings = ANCHORS
    writing: WritingPlacementSettings = WRITING_PLACEMENT
    totals: TotalsSettings = TOTALS
    payout: PayoutSettings = PAYOUT
    # ...and when the printed grid names a layout (scan.infer_layout), when a sheet is
    # written in red ink (scan.ink), when its writer's hand doubts a reading
    # (scan.same_hand) and how the sheet's own writer re-weighs one (scan.adapt, with adapt).
    inference: InferenceSettings = INFERENCE
    ink: InkSettings = INK
    same_hand: SameHandSettings = SAME_HAND
    adapting: AdaptParams = ADAPT


@dataclass(frozen=True)
class ScanResult:
    sheet: Sheet
    sheet_json: dict[str, Any]
    review: tuple[dict[str, Any], ...]
    report: dict[str, Any]  # settle_report(sheet): validation, settlement (money)
    cells: tuple[cells_mod.CellResult, ...]
    geometry: SheetGeometry
    flat: Rectified  # the flat sheet: warps any part of the page from the photo
    placement: locate.Placement
    qr: locate.QrHit | None
    # "qr", "markers" (the fiducials' ids), "options" or "grid" (inferred from the grid)
    layout_source: str
    timings: dict[str, float] = field(default_factory=dict)  # seconds per stage
    photo_px_per_mm: float = 0.0
    blur_mm: float = 0.0
    # For the player: the layout was guessed (German), red ink on the red grid (in `lang`)
    warnings: tuple[str, ...] = ()
    certainty: PayoutCertainty | None = None  # how sure the payout is, and what it hangs on
    readings: tuple[dict[str, Any], ...] = ()  # every cell's likeliest readings
    # The cells as read, before the written totals weighed in (`cells` is after).
    unchecked: tuple[cells_mod.CellResult, ...] = ()

    @property
    def rectified(self) -> np.ndarray:
        """The whole flat page, BGR, 10 px/mm (warped when first asked for)."""
        return self.flat.image

    def to_json(self) -> dict[str, Any]:
        out = {**self.sheet_json, "review": list(self.review), **self.report}
        if self.readings:
            out["readings"] = list(self.readings)
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out

    def overlay(self) -> np.ndarray:
        """The flat sheet with every reading drawn in (green certain, orange/red flagged)."""
        from escalero.scan.overlay import draw_sheet

        return draw_sheet(self.rectified, self.geometry, self.cells)


class _Timer:
    """Stage times, and what the stages found so far (for --debug when a scan fails)."""

    def __init__(self) -> None:
        self.times: dict[str, float] = {}
        self.current = ""  # the stage running now (or the last one started)
        self.found: dict[str, Any] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        self.current = name
        t0 = time.perf_counter()
        try:
            yield
        finally:  # a stage timed in parts adds up
            self.times[name] = round(self.times.get(name, 0.0) + time.perf_counter() - t0, 4)


@functools.lru_cache(maxsize=4)
def _recognizer(name: str, settings: ReadingSettings = READING) -> Recognizer:
    from escalero.scan.recognize import get_recognizer

    return get_recognizer(name, settings)


def resolve_geometry(qr: locate.QrHit | None, hint: Any, found_something: bool,
                     marked: LayoutSpec | None = None,
                     markers: tuple[locate.MarkerHit, ...] = (),
                     fits: locate.Fits | None = None,
                     hint_fields: frozenset[str] | None = None) -> tuple[SheetGeometry, str]:
    """The layout from the QR code, else from the fiducials' ids (`marked`), else from
    the user's hint, else refuse.

    The sources are cross-checked, never one silently preferred: a QR code that names
    another sheet than the corner marks (`marked`, or on a version 1 sheet the marks' ids
    and where they lie: `markers`, `fits`) is refused (Reason.LAYOUT_CONFLICT), and so is
    a hint whose `hint_fields` differ from the layout the sheet names
    (Reason.LAYOUT_NOT_AS_NAMED)."""
    from escalero.sheets.layout import decode_code

    named: tuple[LayoutSpec, str | None, str] | None = None
    if qr is not None:
        try:
            code, code_serial = decode_code(qr.text)
        except SheetNotFoundError:
            if marked is not None:  # read in the sheet's own QR box: pasted over
                raise SheetNotFoundError.worded(
                    LAYOUT_CONFLICT, reason=Reason.LAYOUT_CONFLICT,
                    code=Text(N_("no sheet ({text!r})"), text=qr.text.strip()[:40]),
                    marks=Text(N_("name {layout}"), layout=describe_spec(marked))) from None
            if hint is None:
                raise
        else:
            check_code_against_marks(code, marked, markers, fits or [])
            named = code, code_serial, "qr"
    if named is None and marked is not None:
        named = marked, None, "markers"
    if named is not None:
        spec, serial, source = named
        if hint is not None:
            check_hint(hint, hint_fields, spec, source)
        return geometry_for(spec, serial), source
    if hint is not None:
        return geometry_for(hint), "options"
    if not found_something:
        raise SheetNotFoundError(locate.NO_SHEET, reason=Reason.NO_SHEET)
    raise LayoutUnknownError(NO_LAYOUT, reason=Reason.NO_LAYOUT)


def is_our_code(text: str) -> bool:
    """Whether a QR code's text is one of this project's sheet codes."""
    from escalero.sheets.layout import decode_code

    try:
        decode_code(text)
    except SheetNotFoundError:
        return False
    return True


def check_code_against_marks(code: LayoutSpec, marked: LayoutSpec | None,
                             markers: tuple[locate.MarkerHit, ...], fits: locate.Fits) -> None:
    """Refuse (Reason.LAYOUT_CONFLICT) a QR code that is not the sheet's: it names another
    layout than the corner marks' ids (layout version 2 on), or, where the ids do not name
    one, marks of another version or a page frame the marks do not lie in."""
    from escalero.sheets.layout import SheetOptionError, build_layout, marker_ids

    def conflict(marks: Text) -> SheetNotFoundError:
        return SheetNotFoundError.worded(LAYOUT_CONFLICT, reason=Reason.LAYOUT_CONFLICT,
                                         code=describe_spec(code), marks=marks)

    if marked is not None:
        if marked != code:
            raise conflict(Text(N_("name {layout}"), layout=describe_spec(marked)))
        return
    if len(markers) < 3:  # two marks fit any page frame: they tell nothing
        return
    try:
        expected = marker_ids(code)
    except SheetOptionError:  # a sheet the marks cannot name: print version 1's ids
        expected = (0, 1, 2, 3)
    # One misread id is noise (the marks' own check digit refuses it); two are another print.
    if sum(h.corner is not None and h.id != expected[h.corner] for h in markers) >= 2:
        raise conflict(Text(N_("are those of another print")))
    # The page frames the marks fit (rms px, best first): the code's must be among them,
    # and no other may fit far better (A4 marks fit a Letter frame to a few px, their own
    # to under one; bent paper moves both alike).
    frame = page_frame(build_layout(code))
    err = next((fit[0] for fit in fits if fit[2] == frame), None)
    if fits and (err is None or (err > FRAME_SLACK_PX and err > FRAME_RATIO * fits[0][0])):
        raise conflict(Text(N_("lie where another paper or orientation has them")))


def check_hint(hint: LayoutSpec, fields: frozenset[str] | None, spec: LayoutSpec,
               source: str) -> None:
    """Refuse (Reason.LAYOUT_NOT_AS_NAMED) layout options that name another sheet than the
    one photographed (`spec`, read from `source`): only the `fields` the user named count."""
    differ = sorted(f for f in (LAYOUT_FIELDS if fields is None else fields & LAYOUT_FIELDS)
                    if getattr(hint, f) != getattr(spec, f))
    if differ:
        raise ScanOptionError.worded(
            LAYOUT_NOT_AS_NAMED, reason=Reason.LAYOUT_NOT_AS_NAMED,
            named=describe_spec(hint, differ), sheet=describe_spec(spec, differ),
            where=Text(N_("QR code") if source == "qr" else N_("corner marks")))


def describe_spec(spec: LayoutSpec, fields: Sequence[str] | None = None) -> Listing:
    """A layout in words for a message ("escalero, 3 players, weights-123, A4"): the
    `fields` given (LAYOUT_FIELDS names), else all of them."""
    from escalero.sheets.layout import LAYOUT_VERSION

    shown = set(LAYOUT_FIELDS if fields is None else fields)
    words: list[object] = [spec.game] if "game" in shown else []
    if shown & {"sides", "pairs"}:
        words.append(Text(N_("{n} pairs") if spec.pairs else N_("{n} players"), n=spec.sides))
    if "variants" in shown:
        words.append("+".join(spec.variants) if spec.variants else Text(N_("no variant")))
    if "paper" in shown:
        words.append(spec.paper.upper())
    if fields is None and spec.version != LAYOUT_VERSION:
        words.append(Text(N_("layout version {version}"), version=spec.version))
    return Listing(words)


def scan_photo(source: str | Path | bytes, options: ScanOptions = ScanOptions(),
               recognizer: Recognizer | None = None) -> ScanResult:
    """Read every entry of the sheet in the photo; see the module doc for the stages."""
    timer = _Timer()
    with timer.stage("load"):
        image = load_photo(source)
    try:
        result = scan_image(image, options, recognizer, timer)
    except EscaleroError as err:
        if options.debug_dir is not None:  # when a user needs it most
            from escalero.scan.overlay import write_failure

            write_failure(Path(options.debug_dir), image, timer.found, timer.current, str(err))
        raise
    if options.debug_dir is not None:
        from escalero.scan.overlay import write_debug

        write_debug(Path(options.debug_dir), image, result)
    return result


def scan_image(image: np.ndarray, options: ScanOptions = ScanOptions(),
               recognizer: Recognizer | None = None, timer: _Timer | None = None
               ) -> ScanResult:
    """scan_photo on an already decoded BGR image."""
    timer = timer or _Timer()
    found = timer.found
    markers, fits, marked, qr, outline = _locate(image, timer, options.locating)
    # None of our marks and no code: a sheet we did not print, read by its ruled lines.
    foreign = _foreign(image, options, timer, outline, recognizer) if qr is None \
        and marked is None and not fits else None
    if foreign is None:
        geom, source, warnings = _layout(image, options, timer, (markers, fits, marked, qr,
                                                                outline))
    else:
        geom = found["geometry"] = _with_names(
            _default_names_in(foreign[0].geometry, options.lang), options.names)
        source, warnings = "grid", foreign[0].warnings
    with timer.stage("place"):
        placement = found["placement"] = foreign[2] if foreign else locate.place_sheet(
            geom, markers, qr, outline, options.locating)
    with timer.stage("rectify"):
        rect: Rectified = rectify(foreign[1] if foreign else image, placement.homography,
                                  geom, [] if foreign else None, options.rectifying)
        found["rectified"] = rect
    with timer.stage("grid"):
        snapped = foreign[0].snapped if foreign else _snap(rect, geom, source,
                                                           options.placement, options.anchoring,
                                                           options.writing)
    with timer.stage("crop"):
        crops = _cut_cells(rect, snapped, geom, options)
        red_ink = is_red_ink(crops, options.ink)
        if red_ink:  # its hue cannot drop the grid: its shade does; say so
            warnings += (note("red_ink").text(options.lang),)
            crops = grey_by_shade(crops, options.ink)
    with timer.stage("read"):
        reader = recognizer or _recognizer(options.recognizer, options.reading)
        snapped, readings, crops, tolerated = _read(reader, rect, snapped, geom, options,
                                                    crops, red_ink)
    with timer.stage("assemble"):
        blurred = bool(rect.blur_mm > options.rectifying.max_blur_mm)  # nan (no edge): False
        warnings += (note("blurred_photo").text(options.lang),) if blurred else ()
        checked = run_passes(cells_mod.to_results(snapped, readings), PassContext(
            crops, rect.slot_px_per_mm, options.cutting, options.placement, options.totals,
            tolerated, options.same_hand, blurred))
        raw, results = list(checked.unchecked), list(checked.cells)
        sheet, sheet_json, report = _settled(geom, results, options)
    with timer.stage("payout"):
        beliefs = _beliefs(raw, readings, results, reader, options)
        certainty = _payout_certainty(sheet, results, beliefs, options, blurred or (
            foreign is not None and (foreign[0].doubtful or foreign[0].sides_counted)))
        report["settlement"].update(certain=certainty.certain,
                                    confidence=round(certainty.confidence, 6))
        review = tuple(review_items(results, certainty, options.lang))
    timer.times["total"] = round(sum(timer.times.values()), 4)
    return ScanResult(sheet=sheet, sheet_json=sheet_json, review=review, report=report,
                      cells=tuple(results), geometry=geom, flat=rect,
                      placement=placement, qr=qr, layout_source=source,
                      timings=dict(timer.times), photo_px_per_mm=rect.photo_px_per_mm,
                      blur_mm=rect.blur_mm, warnings=warnings, certainty=certainty,
                      readings=tuple(payout.readings_json(beliefs)), unchecked=tuple(raw))


Located = tuple[tuple[locate.MarkerHit, ...], locate.Fits, "LayoutSpec | None",
                locate.QrHit | None, np.ndarray | None]


def _locate(image: np.ndarray, timer: _Timer, settings: locate.LocateSettings) -> Located:
    """The corner marks, the page frames they fit, the layout their ids name, the QR code
    and (with fewer than three marks) the paper's outline, each a timed stage."""
    found = timer.found
    with timer.stage("markers"):
        gray = locate.gray_of(image)  # once: markers, code and outline all read grey
        markers = found["markers"] = locate.find_markers(gray, settings)
    with timer.stage("layout"):
        fits = locate.frame_fits(markers, page_frames(), settings)
    if len(markers) >= 3 and not fits:  # a stray find among them: each left out in turn
        with timer.stage("markers"):
            markers = found["markers"] = locate.without_stray(gray, markers, fits,
                                                              page_frames(), settings)
        with timer.stage("layout"):
            fits = locate.frame_fits(markers, page_frames(), settings)
    if len(markers) == 1:  # the other three by their shape, anywhere in the photo
        with timer.stage("markers"):
            markers = found["markers"] = locate.look_from_one(gray, markers)
        with timer.stage("layout"):
            fits = locate.frame_fits(markers, page_frames(), settings)
    if len(markers) == 3 and fits:  # the fourth by its shape: three fix the plane poorly
        with timer.stage("markers"):
            markers = found["markers"] = locate.look_for_fourth(gray, markers, fits)
        with timer.stage("layout"):
            fits = locate.frame_fits(markers, page_frames(), settings)
    if len(markers) == 2:  # a second look where the marks found put the others
        with timer.stage("markers"):
            markers = found["markers"] = locate.look_again(gray, markers, fits, settings)
        with timer.stage("layout"):
            fits = locate.frame_fits(markers, page_frames(), settings)
    with timer.stage("layout"):
        # Sheets printed since layout version 2 name their layout in the fiducials' ids
        # too; then the code adds only the serial, so the slow whole-photo search is
        # skipped.
        marked = found["marked"] = locate.layout_from_markers(markers, fits, settings)
    with timer.stage("qr"):
        qr = found["qr"] = locate.read_qr(gray, markers, page_frames(),
                                          search=marked is None, fits=fits, ours=is_our_code,
                                          settings=settings)
    outline = None
    if len(markers) < 3:
        with timer.stage("outline"):
            outline = found["outline"] = locate.find_outline(gray)
    return markers, fits, marked, qr, outline


def _foreign(image: np.ndarray, options: ScanOptions, timer: _Timer,
             outline: np.ndarray | None, recognizer: Recognizer | None
             ) -> tuple[Any, np.ndarray, locate.Placement] | None:
    """A sheet this project did not print, found by its ruled lines (scan.ruled): its
    geometry and placed boxes, the photo with its lines painted over and its page frame
    from the paper's outline; None where none shows (the photo then goes on to be refused
    as before)."""
    from escalero.scan.ruled import for_scan

    with timer.stage("layout"):
        _check_without_code(image, (), outline, [], options.rectifying)
    with timer.stage("ruled"):
        reader = recognizer if recognizer is not None else _recognizer(options.recognizer)
        return for_scan(image, outline, options.layout, options.layout_fields, options.lang,
                        reader)


def _layout(image: np.ndarray, options: ScanOptions, timer: _Timer, located: Located
            ) -> tuple[SheetGeometry, str, tuple[str, ...]]:
    """The sheet's geometry, where its layout came from and the warnings that brings,
    timed as "layout" (and "infer" where the grid has to name it)."""
    markers, fits, marked, qr, outline = located
    timer.current = "layout"
    with timer.stage("layout"):
        if qr is None and marked is None:
            _check_without_code(image, markers, outline, fits, options.rectifying)
    inferred = None
    if qr is None and marked is None and options.layout is None and len(markers) >= 2:
        with timer.stage("infer"):
            inferred = infer_layout(image, markers, options.inference)
    with timer.stage("layout"):
        # A bright quadrilateral alone is no sheet: only markers or the code say it is
        # ours; and a lone marker is no sheet either (clutter shows one now and then):
        # two that lie where a printed page has them are.
        hint = options.layout if inferred is None else inferred.spec
        geom, source = resolve_geometry(qr, hint, qr is not None or bool(fits), marked,
                                        markers, fits, options.layout_fields)
        warnings: tuple[str, ...] = ()
        if inferred is not None and source == "options":
            source, warnings = "grid", (inferred.warning_in(options.lang),)
        geom = _with_names(_default_names_in(geom, options.lang), options.names)
        timer.found["geometry"] = geom
    return geom, source, warnings


def _payout_certainty(sheet: Sheet, results: Sequence[cells_mod.CellResult],
                      beliefs: Sequence[Any], options: ScanOptions, never: bool
                      ) -> payout.PayoutCertainty:
    """How sure the payout is; `never` sure on a blurred photo, whose readings' odds the
    recognizer was not calibrated on, or a foreign table whose mapping is in doubt or whose
    sides were counted from its columns, not named."""
    certainty = payout.assess(sheet, results, beliefs, options.payout)
    return replace(certainty, certain=False) if never else certainty


def _read(reader: Recognizer, rect: Rectified, snapped: Sequence[SnappedSlot],
          geom: SheetGeometry, options: ScanOptions, crops: Sequence[Any], red_ink: bool
          ) -> tuple[list[SnappedSlot], list[Any], list[Any], list[float]]:
    """Every cell read; those placed loosely read again at the ends of their window: a
    certain reading that holds there stands its placement error (tolerated), an unsure
    one takes the surest reading found there (reaimed)."""
    readings = read_cells(reader, crops, options.adapt, options.adapting)
    tolerated = _tolerated(reader, rect, snapped, geom, options, readings, red_ink)
    slots, readings, cut = _reaimed(reader, rect, snapped, geom, options, readings, crops,
                                    red_ink)
    return slots, readings, cut, tolerated


def _tolerated(reader: Recognizer, rect: Rectified, snapped: Sequence[SnappedSlot],
               geom: SheetGeometry, options: ScanOptions, readings: Sequence[Any],
               red_ink: bool) -> list[float]:
    """scan.shifted.tolerated_mm, the moved boxes cut and read as the first reading's."""
    def read_slots(slots: list[SnappedSlot]) -> list[Any]:
        again = _cut_cells(rect, slots, geom, options)
        return list(reader.read(grey_by_shade(again, options.ink) if red_ink else again))

    return tolerated_mm(snapped, readings, read_slots, options.placement.max_uncertain_mm,
                        options.placement.shifted_reach_mm)


def _reaimed(reader: Recognizer, rect: Rectified, snapped: Sequence[SnappedSlot],
             geom: SheetGeometry, options: ScanOptions, readings: Sequence[Any],
             crops: Sequence[Any], red_ink: bool) -> tuple[list[SnappedSlot], list[Any],
                                                          list[Any]]:
    """scan.shifted.reaim, the moved boxes cut and read as the first reading's."""
    def read_slots(slots: list[SnappedSlot]) -> tuple[list[Any], list[Any]]:
        again = _cut_cells(rect, slots, geom, options)
        again = grey_by_shade(again, options.ink) if red_ink else again
        return again, list(reader.read(again))

    return reaim(snapped, readings, crops, read_slots, options.placement.max_uncertain_mm,
                 options.placement.shifted_reach_mm, options.placement.reaim_gain)


def _cut_cells(rect: Rectified, slots: Sequence[SnappedSlot], geom: SheetGeometry,
               options: ScanOptions) -> list[Any]:
    """The cells' crops as the reader takes them (without row priors unless asked for)."""
    crops = cells_mod.cut_crops(rect, slots, geom, options.cutting)
    return crops if options.row_priors else [replace(c, row=None) for c in crops]


def _snap(page: Rectified, geom: SheetGeometry, source: str, settings: PlacementSettings,
          anchoring: AnchorSettings, writing: WritingPlacementSettings
          ) -> tuple[SnappedSlot, ...]:
    """Each cell onto its printed grid lines; those without, by the page's print and then
    the writing around them."""
    try:
        # A layout read from the code or the fiducials' ids is certain: placement
        # degrades instead of refusing.
        snapped = snap_slots(page, geom, strict=source not in ("qr", "markers"),
                             settings=settings)
    except UnreadableSheetError:
        if source == "grid":  # the guessed layout failed grid.py's own check
            raise LayoutUnknownError(NO_LAYOUT, reason=Reason.NO_LAYOUT) from None
        raise
    return onto_writing(page, place_unplaced(page, geom, snapped, anchoring), writing)


def _settled(geom: SheetGeometry, results: list[cells_mod.CellResult],
             options: ScanOptions) -> tuple[Sheet, dict[str, Any], dict[str, Any]]:
    """(sheet, sheet JSON, settle_report) of the read cells, with the table's terms."""
    sheet_json = build_sheet_json(geom, results)
    sheet = Sheet.from_json(sheet_json)
    if options.house is not None and sheet.house is not None:
        terms = options.house.apply(sheet.house, sheet.ruleset.columns)
        sheet = replace(sheet, house_rules=terms)
        sheet_json = {**sheet_json, "house_rules": terms.to_json()}
    return sheet, sheet_json, settle_report(sheet, options.stake, options.currency,
                                            options.lang)


def _beliefs(raw: Sequence[cells_mod.CellResult], readings: Sequence[Any],
             results: Sequence[cells_mod.CellResult], reader: Recognizer,
             options: ScanOptions) -> list[Any]:
    """The payout's beliefs: the readings before the totals check, doubted where the checks
    doubted them; a total misread alike with a strike (CellResult.total_alike) has no say."""
    alike = cells_mod.alike_with_total(results)
    return payout.beliefs(raw, _doubted(raw, readings), *_certain_error(reader),
                          options.payout, mute_totals={k for k in alike if k[2] == TOTAL_ROW},
                          open_nines={k for k in alike if k[2] != TOTAL_ROW})


def _doubted(raw: Sequence[cells_mod.CellResult], readings: Sequence[Any]
             ) -> set[tuple[int, int, str]]:
    """Cells the recognizer was sure of that the checks made unsure."""
    return {(c.side, c.column, c.row) for c, r in zip(raw, readings, strict=True)
            if r.certain and not c.certain}


def read_cells(reader: Recognizer, crops: Sequence[Any], adapt: bool,
               params: AdaptParams = ADAPT) -> list[Any]:
    """The recognizer's readings; with `adapt`, unsure cells re-read against the sheet's
    certain ones (scan.adapt, with `params`) when the recognizer gives features."""
    if not adapt or Capability.FEATURES not in reader.capabilities:
        return list(reader.read(crops))
    readings, feats = cast(FeatureRecognizer, reader).read_with_features(crops)
    if feats is None:
        return list(readings)
    from escalero.scan.adapt import adapt as adapt_sheet

    cal = cast(FeatureRecognizer, reader).calibration
    return list(adapt_sheet(readings, feats,
                            lambda i, v: cal.threshold(crops[i].allowed, v), params).readings)


def _check_without_code(image: np.ndarray, markers: tuple[locate.MarkerHit, ...],
                        outline: np.ndarray | None, fits: locate.Fits,
                        settings: RectifySettings) -> None:
    """An unreadable code on a tiny or blurred photo: say so, not "name the layout"."""
    if fits:
        _err, hom, frame = fits[0]
        check_markers_sharp(image, hom, [(m.cx - m.size / 2, m.cy - m.size / 2, m.size, m.size)
                                         for m in frame.markers], settings)
    elif len(markers) < 2 and outline is not None:
        blur = outline_blur_mm(image, outline)
        if blur is not None and blur > settings.max_blur_mm:
            raise UnreadableSheetError(TOO_BLURRED, reason=Reason.TOO_BLURRED)


def _default_names_in(geom: SheetGeometry, lang: str) -> SheetGeometry:
    """An unnamed sheet's sides are "Player 1", "Jugador 1", ... in the output language."""
    pairs = len(geom.side_members[0]) == 2 if geom.side_members else False
    if geom.side_members != default_side_names(geom.n_sides, pairs):
        return geom  # printed or given names
    members = default_side_names(geom.n_sides, pairs, lang)
    return replace(geom, side_members=members,
                   side_names=tuple(" & ".join(m) for m in members))


def _with_names(geom: SheetGeometry, names: tuple[str, ...]) -> SheetGeometry:
    if not names:
        return geom
    from dataclasses import replace

    n = geom.n_sides
    pairs = len(geom.side_members[0]) == 2
    members: tuple[tuple[str, ...], ...]
    if not pairs and len(names) == n:
        members = tuple((name,) for name in names)
    elif pairs and len(names) in (2 * n - 1, 2 * n):  # paired in order; odd: last plays alone
        members = tuple(tuple(names[i:i + 2]) for i in range(0, len(names), 2))
    else:
        want = f"{n}" if not pairs else f"{2 * n - 1} or {2 * n}"
        raise ScanOptionError(
            f"--names gives {len(names)} name(s) but the sheet is for {want} players; "
            "give one name per player, separated by commas"
        )
    return replace(geom, side_members=members,
                   side_names=tuple(" & ".join(m) for m in members))


def build_sheet_json(geom: SheetGeometry, results: list[cells_mod.CellResult]
                     ) -> dict[str, Any]:
    rules = geom.ruleset
    sides = []
    for s in range(geom.n_sides):
        columns: list[dict[str, Any]] = [{} for _ in range(rules.columns)]
        totals: list[int | None] = [None] * rules.columns
        for c in results:
            if c.side != s:
                continue
            if c.row == TOTAL_ROW:
                totals[c.column] = c.value if isinstance(c.value, int) else None
            elif c.value is not None:
                columns[c.column][c.row] = c.value
        ordered = [{r: col[r] for r in rules.row_ids if r in col} for col in columns]
        sides.append({"name": geom.side_names[s], "members": list(geom.side_members[s]),
                      "columns": ordered, "written_totals": totals})
    out: dict[str, Any] = {"game": geom.game, "variant": list(geom.variants)}
    if geom.serial:
        out["serial"] = geom.serial
    out["sides"] = sides
    return out


def review_items(results: list[cells_mod.CellResult],
                 certainty: PayoutCertainty | None = None, lang: str = "de"
                 ) -> list[dict[str, Any]]:
    """Every reading that is not certain, for a person to confirm: the cells the payout
    hangs on first, then by how much answering would raise the payout's confidence."""
    items: list[dict[str, Any]] = []
    for c in results:
        if c.certain:
            continue
        impact = certainty.impact((c.side, c.column, c.row)) if certainty else None
        items.append({"side": c.side, "column": c.column, "row": c.row, "read": c.value,
                      "alternatives": [v for v, _ in c.alternatives],
                      "confidence": round(c.confidence, 4),
                      **({"note": c.note.text(lang)} if c.note else {}),
                      **({"affects_payout": impact.affects_payout,
                          "could_change": impact.could_change,
                          "gain": round(impact.gain, 6)} if impact else {})})
    if certainty is not None:
        by_key = {(c.side, c.column, c.row): c for c in results}
        for impact in certainty.impacts:
            extra = by_key.get(impact.key)
            if impact.extra and extra is not None:
                items.append({"side": extra.side, "column": extra.column, "row": extra.row,
                              "read": extra.value,
                              "alternatives": [v for v, _ in extra.alternatives],
                              "confidence": round(extra.confidence, 4),
                              "note": note("decides_payout").text(lang),
                              "affects_payout": True, "could_change": impact.could_change,
                              "gain": round(impact.gain, 6)})
        order = {key: i for i, key in enumerate(i.key for i in certainty.impacts)}
        items.sort(key=lambda it: order.get((it["side"], it["column"], it["row"]), len(order)))
    return items


def _certain_error(reader: Recognizer) -> tuple[float, float]:
    """How often the reader's certain readings were wrong at calibration (entries, totals);
    a reader without a calibration gets a cautious 1% for both."""
    if Capability.CALIBRATED not in reader.capabilities:
        return 0.01, 0.01
    cal = cast(Calibrated, reader).calibration
    return float(cal.certain_error), float(cal.certain_error_total)
