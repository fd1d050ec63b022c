"""Images for the page: a BGR image as a small JPEG data: URL."""

from __future__ import annotations

import base64
from typing import Any

from escalero.scoring.errors import EscaleroError

# The overlay is most of a scan's answer: 1200 px at quality 75 is ~160 kB (the 1600 px at
# 85 it was: ~380 kB) and still finer than a 390 px wide phone shows it at 3x.
OVERLAY_MAX_SIDE = 1200
OVERLAY_QUALITY = 75
CROP_QUALITY = 85  # the handwriting the review enlarges


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
