"""Tesseract as a cell recognizer: an optional comparison, never trusted on its own.

Tesseract reads only about half of single handwritten digits right (about 48% measured),
so its readings are never `certain`: every one goes to review. It reads the same ink map as
the CNN (grid dropped, light flattened), one process per cell (about 0.1 s each).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from escalero.scan.digit_model import preprocess
from escalero.scan.recognize import Capability, CellCrop, CellReading
from escalero.scoring.model import CellValue


@dataclass(frozen=True)
class TesseractSettings:
    """The Tesseract reader's values (TesseractRecognizer(settings=...)). None is fitted:
    the reader is a comparison whose readings all go to review."""

    # Tesseract's own confidence is not calibrated for handwriting: it is capped at this,
    # below `accept`, so no reading is ever certain. Set by hand, not fitted (3d97f43).
    max_confidence: float = 0.6
    accept: float = 0.99
    # Summed ink (in ink-map pixels) below which a cell is empty. Set by hand, not fitted
    # (3d97f43).
    ink_empty: float = 12.0

    def __post_init__(self) -> None:
        if not 0.0 < self.max_confidence < self.accept <= 1.0:
            raise ValueError("tesseract: need 0 < max_confidence < accept <= 1 (its readings "
                             "are never certain)")
        if self.ink_empty < 0:
            raise ValueError("tesseract: need ink_empty >= 0")


TESSERACT = TesseractSettings()


def ink_image(crop_bgr: np.ndarray) -> np.ndarray:
    """Black ink on white, upscaled: what Tesseract reads best."""
    ink = preprocess(crop_bgr)
    big = cv2.resize(ink, None, fx=4, fy=4, interpolation=cv2.INTER_CUBIC)
    img = 255 - np.clip(big * 255, 0, 255).astype(np.uint8)
    return cv2.copyMakeBorder(img, 20, 20, 20, 20, cv2.BORDER_CONSTANT, value=255)


def constrain(text: str, conf: float, allowed: tuple[int, ...] | None, ink: float,
              settings: TesseractSettings = TESSERACT) -> list[tuple[CellValue, float]]:
    """Ranked readings from Tesseract's text: only allowed values, and never sure."""
    most = settings.max_confidence
    if ink < settings.ink_empty:
        return [(None, 0.9 * most), ("x", 0.05)]
    digits = re.sub(r"\D", "", text)
    if not digits:  # ink but no digits: most likely a strike
        return [("x", 0.5 * most), (None, 0.05)]
    value = int(digits[:3])
    if value == 0:
        return [("x", min(conf, 1.0) * most)]
    if allowed is None or value in allowed:
        return [(value, min(conf, 1.0) * most), ("x", 0.02)]
    # Not an allowed value: offer the allowed values sharing most digits, all unsure.
    def closeness(v: int) -> int:
        s = str(v)
        return sum(a == b for a, b in zip(s, digits, strict=False)) - abs(len(s) - len(digits))
    near = sorted(allowed, key=lambda v: -closeness(v))[:3]
    return [(v, 0.1 / (i + 1)) for i, v in enumerate(near)] + [("x", 0.02)]


class TesseractRecognizer:
    name = "tesseract"
    capabilities: frozenset[Capability] = frozenset()

    def __init__(self, settings: TesseractSettings = TESSERACT) -> None:
        self.settings = settings

    def available(self) -> bool:
        if shutil.which("tesseract") is None:
            return False
        try:
            import pytesseract  # noqa: F401
        except ImportError:
            return False
        return True

    def read(self, crops: Sequence[CellCrop]) -> list[CellReading]:
        import pytesseract

        out = []
        for crop in crops:
            img = ink_image(crop.image)
            ink = float((255 - img).sum() / 255 / 16)
            text, conf = "", 0.0
            if ink >= self.settings.ink_empty:
                try:
                    data = pytesseract.image_to_data(
                        img, config="--psm 7 -c tessedit_char_whitelist=0123456789",
                        output_type=pytesseract.Output.DICT)
                except pytesseract.TesseractError:
                    # Tesseract gives up on some scribbles (e.g. exit -8): no text, so the
                    # cell goes to review like any other unreadable one.
                    data = {"text": [], "conf": []}
                words = [(w, float(c)) for w, c in zip(data["text"], data["conf"], strict=True)
                         if w.strip()]
                text = "".join(w for w, _ in words)
                conf = min((c for _, c in words), default=0.0) / 100
            ranked = constrain(text, conf, crop.allowed, ink, self.settings)
            out.append(CellReading.from_ranked(ranked, self.settings.accept, by="tesseract"))
        return out
