"""samples.make_photos: photos with truth, reproducible per seed, eval writers kept apart."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from escalero.samples import handwriting, make_photos
from escalero.samples.make_photos import Request, make_photo
from escalero.scoring.model import Sheet
from escalero.scoring.report import settle_report


def test_photo_and_truth_are_deterministic_per_seed() -> None:
    req = Request(seed=21, index=2, megapixels=1.2)
    a, b = make_photo(req), make_photo(req)
    assert a.jpeg == b.jpeg and a.truth == b.truth
    other = make_photo(Request(seed=22, index=2, megapixels=1.2))
    assert other.jpeg != a.jpeg


def test_truth_validates_and_settles_like_scoring() -> None:
    photo = make_photo(Request(seed=5, megapixels=1.0, level="harsh"))
    truth = photo.truth
    sheet = Sheet.from_json(truth["sheet"])
    assert truth["expected"] == json.loads(json.dumps(settle_report(sheet)))
    assert len(truth["expected"]["validation"]) == len(truth["wrong_totals"])
    img = cv2.imdecode(np.frombuffer(photo.jpeg, np.uint8), cv2.IMREAD_COLOR)
    meta = truth["photo"]
    assert img.shape[1::-1] == (meta["width"], meta["height"])
    assert meta["level"] == "harsh" and abs(meta["megapixels"] - 1.0) < 0.03
    assert truth["sheet"]["serial"]


def test_requested_game_players_and_illegal_values() -> None:
    truth = make_photo(Request(seed=3, megapixels=1.0, game="escalero", players=4, pairs=True,
                               variants=("strasse-25",), illegal=2)).truth
    assert truth["layout"]["pairs"] and truth["layout"]["sides"] == 2
    assert truth["sheet"]["variant"] == ["strasse-25"]
    assert all(len(s["members"]) == 2 for s in truth["sheet"]["sides"])
    kinds = [p["kind"] for p in truth["expected"]["validation"]]
    assert kinds.count("invalid_value") == 2
    generala = make_photo(Request(seed=3, megapixels=1.0, game="generala", players=3)).truth
    assert generala["sheet"]["game"] == "generala" and len(generala["sheet"]["sides"]) == 3


@pytest.mark.parametrize("split", handwriting.SPLITS)
def test_every_entry_is_written_by_one_writer_of_the_requested_split(
        split: str, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []
    real = handwriting.render_entry

    def spy(page, box, entry, writer, rng):  # type: ignore[no-untyped-def]
        seen.append((writer.id, writer.split))
        return real(page, box, entry, writer, rng)

    monkeypatch.setattr(make_photos.handwriting, "render_entry", spy)
    truth = make_photo(Request(seed=8, megapixels=1.0, split=split)).truth
    assert seen and set(seen) == {(truth["photo"]["writer"]["id"], split)}
    assert truth["photo"]["writer"]["split"] == split


def test_no_sheet_fixture_has_no_truth_sheet() -> None:
    truth = make_photo(Request(seed=4, megapixels=0.5, no_sheet=True)).truth
    assert truth["sheet"] is None and truth["photo"]["no_sheet"]


def test_cli_writes_photo_and_truth(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    rc = make_photos.main(["--n", "2", "--seed", "9", "--megapixels", "0.8", "--out",
                           str(tmp_path), "--game", "generala", "--players", "2"])
    assert rc == 0
    jpgs = sorted(tmp_path.glob("*.jpg"))
    assert [p.stem for p in jpgs] == ["mild-s9-000", "mild-s9-001"]
    truth = json.loads(jpgs[0].with_suffix(".json").read_text(encoding="utf-8"))
    assert truth["sheet"]["game"] == "generala"
    assert "mild-s9-001.jpg" in capsys.readouterr().err


def test_cli_refuses_impossible_games_in_one_line(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    rc = make_photos.main(["--n", "1", "--players", "5", "--pairs", "--out", str(tmp_path)])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err.startswith("make_photos: error:") and "\n" not in err
    assert not list(tmp_path.iterdir())
