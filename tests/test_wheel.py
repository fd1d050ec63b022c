"""The wheel installs one import name, `escalero`, and a working `escalero` command."""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "samples" / "photos" / "01-easy-2-players.jpg"

pytestmark = pytest.mark.slow


def _tracked_tree(dest: Path) -> None:
    """Copy the tracked files only: the build must not see .venv, caches or old builds."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                           capture_output=True).stdout.decode().split("\0")
    for name in filter(None, files):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)


def _run(argv: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, set[str], set[str]]:
    """A fresh venv with the wheel in it; returns its python and the names the wheel added."""
    if shutil.which("git") is None:
        pytest.skip("needs git to list the tracked files")
    tmp = tmp_path_factory.mktemp("wheel")
    source, dist, env_dir = tmp / "src", tmp / "dist", tmp / "venv"
    _tracked_tree(source)
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(source)])
    wheels = list(dist.glob("escalero-*.whl"))
    assert len(wheels) == 1, wheels

    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    purelib = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                         "['purelib'])"]).stdout.strip())
    before_lib = set(os.listdir(purelib))
    before_bin = set(os.listdir(env_dir / "bin"))
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q",
          str(wheels[0])])
    added_lib = set(os.listdir(purelib)) - before_lib
    added_bin = set(os.listdir(env_dir / "bin")) - before_bin
    return python, added_lib, added_bin


def _env_with_dependencies() -> dict[str, str]:
    """The test venv's third-party packages on PYTHONPATH.

    PYTHONPATH entries do not run .pth files, so the checkout's editable install stays out.
    """
    paths = [sysconfig.get_paths()["purelib"], *site.getsitepackages()]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(dict.fromkeys(paths))}


def test_the_wheel_adds_only_escalero_and_its_command(installed) -> None:
    _, added_lib, added_bin = installed
    packages = {name for name in added_lib if not name.endswith(".dist-info")}
    assert packages == {"escalero"}
    assert [name for name in added_lib if name.endswith(".dist-info")] == [
        next(name for name in added_lib if name.startswith("escalero-"))]
    assert added_bin == {"escalero"}


def test_the_installed_package_scans_a_photo(installed, tmp_path: Path) -> None:
    python, _, _ = installed
    env = _env_with_dependencies()
    # Run away from the checkout, so nothing can be imported from it.
    where = _run([str(python), "-c", "import escalero.scan.pipeline as p, escalero.web.app as w;"
                  "print(p.__file__); print(w.__file__)"], cwd=tmp_path, env=env).stdout
    assert str(ROOT) not in where and "site-packages" in where
    for name in ("scan", "web", "sheets", "scoring", "samples", "benchmarks"):
        probe = subprocess.run([str(python), "-c", f"import {name}"], cwd=tmp_path, env=env,
                               capture_output=True, text=True)
        assert probe.returncode != 0, f"`import {name}` should fail outside the checkout"

    out = _run([str(python), "-m", "escalero", "scan", str(SAMPLE), "--json"], cwd=tmp_path,
               env=env).stdout
    truth = json.loads(SAMPLE.with_suffix(".json").read_text())["sheet"]
    scanned = json.loads(out)
    assert [side["columns"] for side in scanned["sides"]] == [
        side["columns"] for side in truth["sides"]]
    assert _run([str(python), "-m", "escalero", "--help"], cwd=tmp_path, env=env).stdout.startswith(
        "usage: escalero")


def test_the_installed_package_has_its_text_catalog(installed, tmp_path: Path) -> None:
    python, _, _ = installed
    words = _run([str(python), "-c", "from escalero.i18n import LOCALE_DIR, translator;"
                  "print(LOCALE_DIR); print(translator('de').gettext('Total'),"
                  "translator('es').gettext('Winner'))"], cwd=tmp_path,
                 env=_env_with_dependencies()).stdout.splitlines()
    assert "site-packages" in words[0] and words[1] == "Summe Ganador"
