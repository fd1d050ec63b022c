"""Hostile and careless command lines: every one ends with a documented exit code and one
line on stderr, never a traceback; a bug is exit 70 and a batch goes on after it."""

from __future__ import annotations

import json
import resource
import shlex
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from escalero.scan import load, pipeline
from escalero.scoring import cli as scoring_cli
from PIL import Image

from escalero.cli import main as escalero_main

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


# --- bounds checked before work (issue 36: F2, F3, F12, F13) ------------------------------

def run_limited(argv: list[str], stdout: Any = subprocess.PIPE, shell_tail: str = ""
                ) -> subprocess.CompletedProcess[str]:
    """`escalero ARGV` in a child process that cannot take more than 1.5 GB of memory: a
    command that allocates for a hostile count fails there, not here. `shell_tail`: a
    redirection for the child's shell (">&-" closes its stdout)."""
    command = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "escalero", *argv])
    limit = 1500 << 20
    return subprocess.run(
        ["sh", "-c", f"exec {command} {shell_tail}"], stdout=stdout, stderr=subprocess.PIPE,
        text=True, check=False, cwd=Path(__file__).parents[1],
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))


def test_settle_reads_no_more_of_a_file_than_the_limit() -> None:
    done = run_limited(["settle", "/dev/zero"])  # endless: all of it would never fit
    assert done.returncode == 3 and done.stdout == ""
    assert "at most 1,000,000 characters" in one_line(done.stderr)


def test_settle_reads_no_more_of_stdin_than_the_limit(capsys, monkeypatch) -> None:
    class Endless:  # `yes '[' | escalero settle -`
        def read(self, size: int = -1) -> str:
            assert 0 <= size <= 1_000_001, "stdin read without a limit"
            return "[" * size

    monkeypatch.setattr(sys, "stdin", Endless())
    code, out, err = run(["settle", "-"], capsys)
    assert code == 3 and out == "" and "at most 1,000,000 characters" in one_line(err)


def never_scan(*_args: object, **_kw: object) -> None:
    raise AssertionError("a photo was decoded")


def test_scan_refuses_a_file_too_large_for_a_photo_unread(tmp_path: Path, capsys,
                                                          monkeypatch) -> None:
    monkeypatch.setattr(pipeline, "scan_photo", never_scan)
    huge = tmp_path / "huge.jpg"
    with huge.open("wb") as f:  # sparse: takes no disk
        f.truncate(200_000_000)
    code, _, err = run(["scan", str(huge)], capsys)
    assert code == 4 and "larger than any photo" in one_line(err)


def test_scan_reads_a_device_only_up_to_the_limit(capsys, monkeypatch) -> None:
    from escalero.scan import cli as scan_cli

    monkeypatch.setattr(pipeline, "scan_photo", never_scan)
    monkeypatch.setattr(scan_cli, "MAX_PHOTO_BYTES", 1000)  # a small limit: /dev/zero ends
    code, _, err = run(["scan", "/dev/zero"], capsys)
    assert code == 4 and "/dev/zero" in one_line(err) and "larger than any photo" in err


@pytest.mark.parametrize("count", ["100000000", "99999999999999999999"])
@pytest.mark.parametrize("command", [["sheet", "-o", "/tmp/never.pdf"], ["scan", "p.jpg"]],
                         ids=["sheet", "scan"])
def test_a_huge_player_count_is_a_usage_error_before_anything_is_made(command, count) -> None:
    done = run_limited([*command, "--players", count])
    assert done.returncode == 2 and "no sheet holds that many" in one_line(done.stderr)


def test_scan_checks_name_lengths_before_the_photo(capsys, monkeypatch) -> None:
    monkeypatch.setattr(pipeline, "scan_photo", never_scan)
    code, _, err = run(["scan", "p.jpg", "--names", "Anna," + "B" * 41], capsys)
    assert code == 2 and "--names" in one_line(err) and "40" in err


@pytest.mark.parametrize("stdout", ["/dev/full", "closed"])
def test_output_that_cannot_be_written_is_one_line_and_its_exit_code(stdout: str) -> None:
    if stdout == "closed":
        done = run_limited(["rules"], stdout=None, shell_tail=">&-")
    else:
        with open("/dev/full", "w") as full:
            done = run_limited(["rules"], stdout=full)
    assert done.returncode == 74
    assert one_line(done.stderr).startswith("escalero rules: error: cannot write output")


def test_a_batch_whose_worker_is_killed_ends_and_names_the_lost_photo(capsys,
                                                                       monkeypatch) -> None:
    import os
    import signal

    def scan_photo(photo: str, options: object) -> FakeResult:
        if "killed" in photo:  # as the OOM killer does, in the worker reading it
            os.kill(os.getpid(), signal.SIGKILL)
        return FakeResult(photo)

    monkeypatch.setattr(pipeline, "scan_photo", scan_photo)  # the forked workers' too
    photos = ["a.jpg", "killed.jpg", "c.jpg", "d.jpg"]
    code, out, err = run(["scan", *photos, "--jobs", "2", "--json"], capsys)
    assert code == 70
    lines = [json.loads(line) for line in out.splitlines()]
    assert [(r["photo"], r.get("read"), r.get("exit_code")) for r in lines] == [
        ("a.jpg", "a.jpg", None), ("killed.jpg", None, 70), ("c.jpg", "c.jpg", None),
        ("d.jpg", "d.jpg", None)]
    assert "killed" in lines[1]["error"] and "Traceback" not in err
