"""Layout invariants over every printable spec, and the QR payload round trip."""

from __future__ import annotations

import itertools

import pytest
from escalero.scoring.errors import SheetNotFoundError
from escalero.sheets.layout import (
    INSET_MM,
    LAYOUT_VERSION,
    MARGIN_MM,
    MARKER_ID_BASE,
    MARKER_QUIET_MM,
    MARKER_RADIX,
    MIN_PITCH_H,
    MIN_PITCH_W,
    QR_CLEAR_MM,
    LayoutSpec,
    SheetOptionError,
    all_specs,
    build_layout,
    decode_code,
    encode_code,
    layout_from_code,
    marker_corner,
    marker_ids,
    spec_from_marker_ids,
    spec_from_number,
    spec_number,
)
from escalero.sheets.render import qr_modules
from hypothesis import given
from hypothesis import strategies as st

SPECS = all_specs()


def test_every_game_and_paper_is_printable():
    assert len(SPECS) > 150
    for paper in ("a4", "letter"):
        assert {s.sides for s in SPECS if s.paper == paper and s.game == "escalero"} == set(
            range(2, 7))
        assert {s.sides for s in SPECS if s.paper == paper and s.game == "generala"} == set(
            range(2, 9))
    assert any(s.paper == "a5" and s.sides == 2 and s.game == "escalero" for s in SPECS)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: encode_code(s, "T"))
def test_layout_invariants(spec: LayoutSpec):
    layout = build_layout(spec)
    rules = spec.ruleset
    w, h = layout.width, layout.height

    # Every row of the ruleset, for every side and column, exactly once; one total each.
    keys = [(c.side, c.column, c.row) for c in layout.cells]
    assert len(keys) == len(set(keys))
    assert set(keys) == set(itertools.product(range(spec.sides), range(rules.columns),
                                              rules.row_ids))
    assert {(t.side, t.column) for t in layout.totals} == set(
        itertools.product(range(spec.sides), range(rules.columns)))
    assert len(layout.totals) == spec.sides * rules.columns
    assert [n.side for n in layout.names] == [
        s for s in range(spec.sides) for _ in range(2 if spec.pairs else 1)]

    # Writable boxes large enough for a handwritten 3-digit number.
    for box in [c.box for c in layout.cells] + [t.box for t in layout.totals]:
        assert box.w >= MIN_PITCH_W - 2 * INSET_MM - 1e-9
        assert box.h >= MIN_PITCH_H - 2 * INSET_MM - 1e-9

    # Markers: clockwise from top-left, their ids naming the spec, inside the printer
    # margin with a quiet zone.
    assert [marker_corner(m.id) for m in layout.markers] == [0, 1, 2, 3]
    assert spec_from_marker_ids(m.id for m in layout.markers) == spec
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = (m.centre for m in layout.markers)
    assert x0 < x1 and y0 < y3 and x2 == x1 and y2 == y3 and x3 == x0 and y1 == y0
    marker_zones = [m.box.grow(MARKER_QUIET_MM) for m in layout.markers]
    qr_zone = layout.qr.grow(QR_CLEAR_MM)

    printed = marker_zones + [qr_zone, layout.title, layout.legend]
    for box in printed + [x.box for x in (*layout.cells, *layout.totals, *layout.names)]:
        assert box.inside(w, h)
    for box in marker_zones + [layout.qr, layout.title, layout.legend]:
        assert box.x >= MARGIN_MM - 1e-9 and box.right <= w - MARGIN_MM + 1e-9
        assert box.y >= MARGIN_MM - 1e-9 and box.bottom <= h - MARGIN_MM + 1e-9

    # Nothing overlaps: writable boxes, label boxes, markers (with quiet zone), QR, title.
    writable = [x.box for x in (*layout.cells, *layout.totals, *layout.names)]
    labels = [b for _, b in layout.row_labels] + [b for *_, b in layout.column_heads]
    labels += [layout.corner]
    everything = writable + labels + printed
    for a, b in itertools.combinations(everything, 2):
        assert not a.grow(-1e-6).overlaps(b), (a, b)
    # Writable boxes keep their inset from each other (grid lines between them).
    for a, b in itertools.combinations(writable, 2):
        assert not a.grow(INSET_MM - 1e-6).overlaps(b.grow(INSET_MM - 1e-6)), (a, b)


def test_portrait_preferred_and_landscape_when_needed():
    assert build_layout(LayoutSpec(sides=2)).orientation == "portrait"
    assert build_layout(LayoutSpec(sides=6)).orientation == "landscape"
    assert build_layout(LayoutSpec(game="generala", sides=8)).orientation == "portrait"


def test_pairs_and_doppel_grande_change_geometry():
    base = build_layout(LayoutSpec(sides=2))
    pairs = build_layout(LayoutSpec(sides=2, pairs=True))
    dg = build_layout(LayoutSpec(variants=("doppel-grande",), sides=2))
    assert len(pairs.names) == 4 and len(base.names) == 2
    assert "double_grande" in {c.row for c in dg.cells}
    assert "double_grande" not in {c.row for c in base.cells}
    one = build_layout(LayoutSpec(variants=("one-column",), sides=2))
    assert {c.column for c in one.cells} == {0}


def test_cells_are_ordered_top_to_bottom_in_ruleset_order():
    layout = build_layout(LayoutSpec(sides=3))
    ys = [layout.cell(1, 2, r).y for r in layout.ruleset.row_ids]
    assert ys == sorted(ys)
    assert layout.totals[0].box.y > max(ys)


@pytest.mark.parametrize("spec, fix", [
    (LayoutSpec(sides=3, paper="a5"), "--paper a4"),
    (LayoutSpec(sides=7), "--pairs"),
    (LayoutSpec(game="generala", sides=9), "2-8 players"),
    (LayoutSpec(sides=2, paper="a3"), "choose one of"),
    (LayoutSpec(sides=2, version=LAYOUT_VERSION + 1), "update escalero"),
])
def test_impossible_sheets_say_how_to_fix(spec, fix):
    with pytest.raises(SheetOptionError, match=fix) as err:
        build_layout(spec)
    assert "\n" not in str(err.value)


def test_to_json_has_the_contract_fields():
    data = build_layout(LayoutSpec(variants=("strasse-25",), sides=2, pairs=True)).to_json()
    assert data["game"] == "escalero" and data["variant"] == ["strasse-25"]
    assert set(data["page"]) == {"width_mm", "height_mm"}
    assert set(data["cells"][0]) == {"side", "column", "row", "x_mm", "y_mm", "w_mm", "h_mm"}
    assert set(data["totals"][0]) == {"side", "column", "x_mm", "y_mm", "w_mm", "h_mm"}
    assert [(n["side"], n["member"]) for n in data["names"]] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert [m["id"] for m in data["markers"]] == list(marker_ids(
        LayoutSpec(variants=("strasse-25",), sides=2, pairs=True)))


SERIAL = st.text("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789-", min_size=1, max_size=16)


@given(st.sampled_from(SPECS), SERIAL)
def test_code_round_trip(spec, serial):
    text = encode_code(spec, serial)
    assert decode_code(text) == (spec, serial)
    assert decode_code(text.lower()) == (spec, serial)


def test_code_is_small():
    worst = max((encode_code(s, "K7Q2-001") for s in SPECS), key=len)
    # Alphanumeric-mode characters only, so the QR stays a small symbol.
    assert set(worst) <= set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:")
    assert len(qr_modules(worst)) <= 29  # version 3 at most
    assert len(qr_modules(encode_code(LayoutSpec(), "K7Q2-001"))) == 25  # version 2


@pytest.mark.parametrize("payload", [
    "", "hello", "https://example.com", "ESK1/E/-/S2/P0/A4",
    "ESK1/E/-/S9/P0/A4/K7Q2-001", "ESK1/E/FOO/S2/P0/A4/K7Q2-001",
    "ESK1/E/-/SX/P0/A4/K7Q2-001", "ESK9/E/-/S2/P0/A4/K7Q2-001", "ESK1/E/-/S2/P0/A3/K",
    "ESK1/E/-/S2/P0/A4/bad serial!",
])
def test_decode_rejects_foreign_payloads(payload):
    with pytest.raises(SheetNotFoundError) as err:
        decode_code(payload)
    assert "escalero sheet" in str(err.value) and "\n" not in str(err.value)


@given(st.text(max_size=60))
def test_decode_never_fails_otherwise(text):
    try:
        spec, serial = decode_code(text)
    except SheetNotFoundError:
        return
    assert build_layout(spec).spec == spec


def test_layout_from_code():
    spec = LayoutSpec(variants="doppel-grande", sides=4, pairs=True, paper="letter")
    layout, serial = layout_from_code(encode_code(spec, "AB-7"))
    assert layout is build_layout(spec) and serial == "AB-7"
    assert spec.variants == ("doppel-grande",)


def test_encode_rejects_bad_serial():
    with pytest.raises(SheetOptionError):
        encode_code(LayoutSpec(), "a/b")


def test_markers_and_qr_depend_only_on_paper_and_orientation():
    # The scanner looks for the QR code before it knows the layout (scan.geometry.page_frames).
    frames: dict[tuple[str, str], tuple] = {}
    for spec in SPECS:
        layout = build_layout(spec)
        # Positions and sizes; the ids name the spec (marker_ids).
        markers = tuple((m.centre, m.size) for m in layout.markers)
        frame = (layout.width, layout.height, markers, layout.qr)
        assert frames.setdefault((spec.paper, layout.orientation), frame) == frame
    marker_sets = [f[2] for f in frames.values()]
    assert len(set(marker_sets)) == len(marker_sets)


# --- the fiducials' ids ---------------------------------------------------------------------

V1_SPECS = [LayoutSpec(s.game, s.variants, s.sides, s.pairs, s.paper, version=1)
            for s in SPECS]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: encode_code(s, "T"))
def test_marker_ids_round_trip(spec: LayoutSpec):
    ids = marker_ids(spec)
    assert [marker_corner(i) for i in ids] == [0, 1, 2, 3]
    assert all(MARKER_ID_BASE <= i < MARKER_ID_BASE + 4 * MARKER_RADIX for i in ids)
    assert spec_from_number(spec_number(spec)) == spec
    assert spec_from_marker_ids(ids) == spec
    assert spec_from_marker_ids(reversed(ids)) == spec
    for three in itertools.combinations(ids, 3):  # a thumb on any one marker
        assert spec_from_marker_ids(three) == spec
    for two in itertools.combinations(ids, 2):
        assert spec_from_marker_ids(two) is None


def test_every_printable_spec_has_its_own_ids():
    # Every layout family, value-only variants too: Generala and one-column Eskalero print
    # the same grid, and the ids are what tells them apart without the QR code.
    by_ids = {marker_ids(s): s for s in SPECS}
    assert len(by_ids) == len(SPECS)
    generala = LayoutSpec("generala", sides=3)
    one_column = LayoutSpec("escalero", ("doppel-grande", "one-column"), sides=3)
    assert marker_ids(generala) != marker_ids(one_column)
    assert spec_from_marker_ids(marker_ids(generala)) == generala
    assert spec_from_marker_ids(marker_ids(one_column)) == one_column


def test_every_number_is_one_spec_or_none():
    seen = {}
    for number in range(MARKER_RADIX ** 3 + 5):
        try:
            spec = spec_from_number(number)
        except ValueError:
            continue
        assert spec_number(spec) == number
        seen[spec] = number
    assert set(SPECS) <= set(seen)


@pytest.mark.parametrize("spec", V1_SPECS[::7], ids=lambda s: encode_code(s, "T"))
def test_version_1_sheets_still_build_with_ids_0_to_3(spec: LayoutSpec):
    old, new = build_layout(spec), build_layout(LayoutSpec(
        spec.game, spec.variants, spec.sides, spec.pairs, spec.paper))
    assert [m.id for m in old.markers] == [0, 1, 2, 3]
    assert spec_from_marker_ids(m.id for m in old.markers) is None  # the QR names it
    # Only the ids changed in version 2: every box and marker is where it was.
    assert [(m.centre, m.size) for m in old.markers] == [(m.centre, m.size) for m in new.markers]
    assert (old.cells, old.totals, old.names, old.qr) == (new.cells, new.totals, new.names,
                                                          new.qr)
    assert decode_code(encode_code(spec, "OLD-1")) == (spec, "OLD-1")


def test_marker_ids_that_disagree_name_nothing():
    ids = list(marker_ids(LayoutSpec(sides=3)))
    for corner in range(4):  # one misread digit among four: the check digit catches it
        wrong = ids.copy()
        digit = (wrong[corner] - MARKER_ID_BASE) % MARKER_RADIX
        wrong[corner] += (1 if digit < MARKER_RADIX - 1 else -1)
        assert marker_corner(wrong[corner]) == corner
        assert spec_from_marker_ids(wrong) is None
    # Two sheets' markers of one corner: no answer rather than a guess.
    other = marker_ids(LayoutSpec(sides=4))
    assert spec_from_marker_ids([*ids[:3], other[0]]) is None
    assert spec_from_marker_ids([0, 1, 2, 3]) is None  # version 1: the QR code names it
    assert marker_corner(48) is None and marker_corner(-1) is None


@given(st.lists(st.integers(0, 49), max_size=8))
def test_any_ids_name_a_printable_spec_or_none(ids):
    spec = spec_from_marker_ids(ids)
    if spec is not None:
        assert build_layout(spec).spec == spec
        assert len({marker_corner(i) for i in ids if i >= MARKER_ID_BASE}) >= 3
