"""Hostile and careless command lines: every one ends with a documented exit code and one
line on stderr, never a traceback; a bug is exit 70 and a batch goes on after it."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from escalero.cli import main as escalero_main
from escalero.scan import load, pipeline
from escalero.scoring import cli as scoring_cli
from PIL import Image

GOOD = {"sides": [{"name": "A", "columns": [{"nines": 3}, {}, {}]},
                  {"name": "B", "columns": [{"nines": 4}, {}, {}]}]}


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = escalero_main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize(("text", "code", "needle"), [
    ("[" * 50_000 + "]" * 50_000, 3, "nested far too deep"),
    ('{"sides": [{"name": "A", "columns": [{"nines": ' + "9" * 5000 + "}, {}, {}]}]}", 3,
     "digits"),
    ('{"sides": [{"name": "\\ud800", "columns": [{}, {}, {}]}]}', 3, "printable"),
    ('{"sides": [{"name": "A\\u001b]0;pwned\\u0007", "columns": [{}, {}, {}]}]}', 3,
     "printable"),
    ('{"sides": [{"name": "A\\rB", "columns": [{}, {}, {}]}]}', 3, "printable"),
    ('{"sides": [' + ",".join(['{"name": "P", "columns": [{}, {}, {}]}'] * 60_000) + "]}", 3,
     "at most"),
])
def test_settle_refuses_hostile_sheets(tmp_path: Path, capsys, text: str, code: int,
                                       needle: str) -> None:
    f = tmp_path / "sheet.json"
    f.write_text(text)
    got, out, err = run(["settle", str(f)], capsys)
    assert got == code and out == ""
    assert needle in one_line(err)


@pytest.mark.parametrize("stake", ["1e30", "1e308", "50000000000000000", "9" * 40])
def test_settle_checks_the_stake_before_reading_files(capsys, stake: str) -> None:
    code, _, err = run(["settle", "no-such-file.json", "--stake", stake], capsys)
    assert code == 2 and "stake" in one_line(err)


def test_settle_refuses_a_currency_with_escapes(tmp_path: Path, capsys) -> None:
    f = tmp_path / "s.json"
    f.write_text(json.dumps(GOOD))
    code, out, err = run(["settle", str(f), "--stake", "1", "--currency", "\x1b[31mEUR"],
                         capsys)
    assert code == 2 and out == "" and "currency" in one_line(err)


def test_a_bug_is_exit_70_with_one_line(tmp_path: Path, capsys, monkeypatch) -> None:
    def broken(*_args: object) -> dict:
        raise KeyError("totals")

    monkeypatch.setattr(scoring_cli, "settle_report", broken)
    f = tmp_path / "s.json"
    f.write_text(json.dumps(GOOD))
    code, _, err = run(["settle", str(f)], capsys)
    assert code == 70
    assert one_line(err) == ("escalero settle: internal error (a bug: please report it): "
                             "KeyError: 'totals'")


@pytest.mark.parametrize("debug", ["README.md", "/proc/x"])
def test_scan_checks_debug_and_stake_before_scanning(capsys, monkeypatch, debug: str) -> None:
    def never(*_args: object, **_kw: object) -> None:
        raise AssertionError("the photo was read before the options were checked")

    monkeypatch.setattr(pipeline, "scan_photo", never)
    readme = Path(__file__).parents[1] / debug if debug == "README.md" else Path(debug)
    code, _, err = run(["scan", "photo.jpg", "--debug", str(readme)], capsys)
    assert code == 2 and "--debug" in one_line(err)
    for stake in ("1e30", "1e308"):
        code, _, err = run(["scan", "photo.jpg", "--stake", stake], capsys)
        assert code == 2 and "stake" in one_line(err)


class FakeResult:
    def __init__(self, photo: str) -> None:
        self.photo = photo

    def to_json(self) -> dict:
        return {"read": Path(self.photo).name}


def test_a_bug_in_one_photo_does_not_end_the_batch(capsys, monkeypatch) -> None:
    def scan_photo(photo: str, options: object) -> FakeResult:
        if "bad" in photo:
            raise UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed")
        return FakeResult(photo)

    monkeypatch.setattr(pipeline, "scan_photo", scan_photo)
    code, out, err = run(["scan", "a.jpg", "bad.jpg", "c.jpg", "--json"], capsys)
    assert code == 70
    lines = [json.loads(line) for line in out.splitlines()]
    assert [(r["photo"], r.get("read"), r.get("exit_code")) for r in lines] == [
        ("a.jpg", "a.jpg", None), ("bad.jpg", None, 70), ("c.jpg", "c.jpg", None)]
    assert "internal error (a bug" in lines[1]["error"]
    assert "Traceback" not in err


def test_a_missing_photo_is_named_once_in_a_batch(tmp_path: Path, capsys) -> None:
    missing = str(tmp_path / "gone" / "x.jpg")
    code, _, err = run(["scan", missing, str(tmp_path / "y.jpg")], capsys)
    assert code == 4
    line = next(e for e in err.splitlines() if "error" in e and "x.jpg" in e)
    assert line.count(missing) == 1 and "no such file" in line


def test_unreadable_photo_says_permission_not_damage(tmp_path: Path, monkeypatch) -> None:
    photo = tmp_path / "p.jpg"
    Image.new("RGB", (400, 400), "white").save(photo)

    def denied(*_args: object, **_kw: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(load.Image, "open", denied)
    with pytest.raises(load.PhotoError, match="no permission") as info:
        load.load_photo(photo)
    assert "damaged" not in str(info.value) and info.value.exit_code == 4


def test_serve_refuses_a_short_pin_and_a_busy_port(capsys, monkeypatch) -> None:
    import socket

    code, _, err = run(["serve", "--host", "0.0.0.0", "--pin", "1"], capsys)
    assert code == 2 and "at least 4" in one_line(err)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        monkeypatch.setattr("escalero.web.app.create_app", lambda config: SimpleNamespace())
        code, _, err = run(["serve", "--port", str(port)], capsys)
    assert code == 2 and "already in use" in one_line(err)
