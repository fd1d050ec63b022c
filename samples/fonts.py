"""Handwriting fonts as a third source of digit shapes (training and benchmarks only).

The fonts are the handwriting families that Fontsource publishes on npm (`@fontsource/<id>`,
SIL Open Font License or Apache 2.0), pinned to the versions below. They are fetched once
into a cache (`ESCALERO_FONT_CACHE`, default `~/.cache/escalero/fonts`) by `npm pack`;
nothing here runs when a photo is scanned, and no font file is committed.

A family is one writer style. Every fifth family (sorted by id, from the third on) is kept
for evaluation and never trained on, so `--source fonts` in the benchmarks measures on hands
the model has not seen. Each family gives `VARIANTS` glyphs per digit: its lightest, regular
and boldest Latin weights, each once as drawn and once slightly warped (rotation, shear,
width), since a person's digits vary a little from one to the next.

Reserved for the project's independent evaluation and therefore absent from the tables
below: the Debian packages fonts-bwht, fonts-sjfonts, fonts-dkg-handwriting,
fonts-femkeklaver, fonts-breip, fonts-rufscript and fonts-humor-sans.

    python -m escalero.samples.fonts          # fetch the fonts, print the glyph counts
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

# Fontsource family id -> npm version. Latin digits in a hand, print or script.
FAMILIES: dict[str, str] = {
    "allison": "5.3.0", "amatic-sc": "5.3.0", "annie-use-your-telescope": "5.3.0",
    "architects-daughter": "5.3.0", "bad-script": "5.3.0", "beth-ellen": "5.3.0",
    "birthstone": "5.3.0", "borel": "5.3.0", "calligraffitti": "5.3.0", "caramel": "5.3.0",
    "caveat": "5.3.0", "caveat-brush": "5.3.0", "cedarville-cursive": "5.3.0",
    "charm": "5.2.7", "chilanka": "5.3.0", "comforter": "5.2.8", "coming-soon": "5.3.0",
    "cookie": "5.3.0", "covered-by-your-grace": "5.3.0", "crafty-girls": "5.3.0",
    "damion": "5.3.0", "dancing-script": "5.3.0", "dawning-of-a-new-day": "5.3.0",
    "dekko": "5.3.0", "delius": "5.3.0", "east-sea-dokdo": "5.3.0",
    "edu-nsw-act-foundation": "5.3.0", "edu-qld-beginner": "5.3.0",
    "edu-sa-beginner": "5.3.0", "edu-tas-beginner": "5.3.0",
    "edu-vic-wa-nt-beginner": "5.3.0", "estonia": "5.0.20", "fuggles": "5.3.0",
    "gaegu": "5.3.0", "gamja-flower": "5.3.0", "give-you-glory": "5.3.0",
    "gloria-hallelujah": "5.3.0", "gluten": "5.3.0", "gochi-hand": "5.3.0",
    "grape-nuts": "5.3.0", "handlee": "5.3.0", "hi-melody": "5.3.0",
    "homemade-apple": "5.3.0", "indie-flower": "5.3.0", "itim": "5.3.0",
    "just-another-hand": "5.3.0", "just-me-again-down-here": "5.3.0", "kalam": "5.3.0",
    "kite-one": "4.5.0", "klee-one": "5.3.0", "kristi": "5.3.0",
    "la-belle-aurore": "5.3.0", "licorice": "5.3.0", "liu-jian-mao-cao": "5.3.0",
    "long-cang": "5.3.0", "loved-by-the-king": "5.3.0", "ma-shan-zheng": "5.3.1",
    "mali": "5.3.0", "mansalva": "5.3.0", "marck-script": "5.3.0", "meddon": "5.3.0",
    "montez": "5.3.0", "mr-dafoe": "5.3.0", "ms-madi": "5.3.0", "mynerve": "5.3.0",
    "nanum-brush-script": "5.3.0", "nanum-pen-script": "5.3.0", "nerko-one": "5.3.0",
    "neucha": "5.3.0", "nothing-you-could-do": "5.3.0", "oooh-baby": "5.3.0",
    "over-the-rainbow": "5.3.0", "patrick-hand": "5.3.0", "permanent-marker": "5.3.0",
    "playpen-sans": "5.3.0", "poor-story": "5.3.0", "rancho": "5.3.0",
    "reenie-beanie": "5.3.0", "rock-salt": "5.3.0", "satisfy": "5.3.0",
    "schoolbell": "5.3.0", "sedgwick-ave": "5.3.0", "send-flowers": "5.3.0",
    "shadows-into-light": "5.3.0", "shadows-into-light-two": "5.3.0",
    "shantell-sans": "5.3.0", "short-stack": "5.3.0", "sofadi-one": "5.3.0",
    "solitreo": "5.3.0", "square-peg": "5.3.0", "sriracha": "5.3.0",
    "sue-ellen-francisco": "5.3.0", "sunshiney": "5.3.0", "swanky-and-moo-moo": "5.3.0",
    "the-girl-next-door": "5.3.0", "unkempt": "5.3.0", "waiting-for-the-sunrise": "5.3.0",
    "walter-turncoat": "5.3.0", "whisper": "5.3.0", "yellowtail": "5.3.0",
    "yomogi": "5.3.0", "zen-kurenaido": "5.3.0", "zeyada": "5.3.0",
    "zhi-mang-xing": "5.3.0",
}
# Names of the reserved evaluation fonts: none may appear above (tests check it).
RESERVED_NAMES = ("bwht", "sjfonts", "delphine", "steve", "dkg", "femke", "klaver", "breip",
                  "rufscript", "humor")
VARIANTS = 6  # glyphs per digit per family: 3 weights x (as drawn, warped)
_RENDER_PX = 64  # font size the glyphs are rendered at (then cropped to the ink)
_FILE = re.compile(r"-latin-(\d{3})-normal\.woff2?$")


class FontsUnavailable(RuntimeError):
    """The fonts are not in the cache and cannot be fetched (no npm, no registry)."""


def split_of(family: str) -> str:
    return "eval" if sorted(FAMILIES).index(family) % 5 == 2 else "train"


def families(split: str) -> tuple[str, ...]:
    return tuple(f for f in sorted(FAMILIES) if split_of(f) == split)


def cache_dir() -> Path:
    env = os.environ.get("ESCALERO_FONT_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "escalero" / "fonts"


def _fetch_family(family: str, dest: Path) -> None:
    """npm pack @fontsource/FAMILY@VERSION, keep only its Latin normal-style files."""
    npm = shutil.which("npm")
    if npm is None:
        raise FontsUnavailable("npm is not installed (Debian: apt install npm); it fetches "
                               "the handwriting fonts from the npm registry")
    with tempfile.TemporaryDirectory() as tmp:
        spec = f"@fontsource/{family}@{FAMILIES[family]}"
        run = subprocess.run([npm, "pack", spec, "--silent", "--pack-destination", tmp],
                             capture_output=True, text=True, timeout=300)
        tgz = list(Path(tmp).glob("*.tgz"))
        if run.returncode != 0 or not tgz:
            raise FontsUnavailable(f"npm pack {spec} failed: {run.stderr.strip()[-300:]}")
        part = dest.with_name(dest.name + ".part")
        part.mkdir(parents=True, exist_ok=True)
        with tarfile.open(tgz[0]) as tar:
            for member in tar.getmembers():
                name = Path(member.name).name
                if member.isfile() and (_FILE.search(name) or name == "LICENSE"):
                    src = tar.extractfile(member)
                    if src is not None:
                        (part / name).write_bytes(src.read())
        part.rename(dest)


def fetch(names: tuple[str, ...] | None = None, quiet: bool = False) -> Path:
    """Make sure every family (default: all) is in the cache; returns the cache folder."""
    root = cache_dir()
    missing = [f for f in (names or tuple(sorted(FAMILIES))) if not (root / f).is_dir()]
    for i, family in enumerate(missing, 1):
        if not quiet:
            print(f"fetching fonts {i}/{len(missing)}: {family}", file=sys.stderr, flush=True)
        _fetch_family(family, root / family)
    return root


def _weights(family: str) -> list[Path]:
    """The lightest, regular (400 or nearest) and boldest Latin weight, woff2 preferred."""
    files: dict[int, Path] = {}
    for p in sorted((cache_dir() / family).iterdir()):
        m = _FILE.search(p.name)
        if m and (int(m.group(1)) not in files or p.suffix == ".woff2"):
            files[int(m.group(1))] = p
    if not files:
        return []
    ws = sorted(files)
    regular = min(ws, key=lambda w: abs(w - 400))
    return [files[w] for w in (ws[0], regular, ws[-1])]


def _render(font: ImageFont.FreeTypeFont, digit: int) -> np.ndarray | None:
    size = 3 * _RENDER_PX
    img = Image.new("L", (size, size), 0)
    ImageDraw.Draw(img).text((_RENDER_PX, _RENDER_PX // 2), str(digit), fill=255, font=font)
    a = np.asarray(img, np.float32) / 255
    ys, xs = np.nonzero(a > 0.15)
    if len(xs) < 8:
        return None
    return a[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def _warp(glyph: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A slightly different instance of the same digit: rotation, shear, width."""
    h, w = glyph.shape
    pad = max(h, w) // 4
    g = np.pad(glyph, pad)
    c = np.array(g.shape[::-1], np.float32) / 2
    m = np.asarray(cv2.getRotationMatrix2D((float(c[0]), float(c[1])), float(rng.normal(0, 4)),
                                           1.0), np.float64)
    m[0, 1] += float(rng.normal(0, 0.08))
    m[0, :] *= float(rng.uniform(0.85, 1.15))
    out = cv2.warpAffine(g, m, g.shape[::-1], flags=cv2.INTER_LINEAR)
    ys, xs = np.nonzero(out > 0.15)
    return out[ys.min():ys.max() + 1, xs.min():xs.max() + 1] if len(xs) else glyph


def _family_glyphs(family: str, rng: np.random.Generator) -> list[list[np.ndarray]] | None:
    """VARIANTS glyph masks per digit, or None if the family lacks a digit."""
    per_digit: list[list[np.ndarray]] = [[] for _ in range(10)]
    for path in _weights(family):
        font = ImageFont.truetype(str(path), _RENDER_PX)
        for d in range(10):
            g = _render(font, d)
            if g is None:
                return None
            per_digit[d] += [g, _warp(g, rng)]
    if not per_digit[0]:
        return None
    return per_digit


@lru_cache(maxsize=2)
def font_pool(split: str) -> tuple[tuple[np.ndarray, ...], ...]:
    """Glyph masks of a split's families, per digit; family k owns indices
    k*VARIANTS .. k*VARIANTS+VARIANTS-1 of every digit (float32 0..1, cropped to the ink)."""
    fetch(families(split))
    rng = np.random.default_rng(11 if split == "train" else 12)
    pools: list[list[np.ndarray]] = [[] for _ in range(10)]
    for family in families(split):
        glyphs = _family_glyphs(family, rng)
        if glyphs is None:
            continue
        for d in range(10):
            pools[d] += glyphs[d][:VARIANTS]
    return tuple(tuple(p) for p in pools)


def main() -> int:
    try:
        fetch()
    except FontsUnavailable as e:
        print(f"escalero.samples.fonts: {e}", file=sys.stderr)
        return 2
    for split in ("train", "eval"):
        n = len(font_pool(split)[0]) // VARIANTS
        print(f"{split}: {n} of {len(families(split))} families usable, "
              f"{len(font_pool(split)[0])} glyphs per digit")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
