"""Photo uploads: read the body in memory with a hard size cap, check it is an image.

The body is never spooled to a temporary file, so nothing is written to disk.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from escalero.scoring.errors import PhotoError
from escalero.web.messages import keyed


class UploadTooLarge(PhotoError):
    http_status = 413


class NotAnImage(PhotoError):
    http_status = 415


_HEIF_BRANDS = (b"heic", b"heix", b"hevc", b"heim", b"heis", b"hevm", b"hevs", b"mif1",
                b"msf1", b"avif")


def sniff_image(head: bytes) -> str | None:
    """The image format from its first bytes, or None if it is no photo format we read."""
    if head.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    if head[4:8] == b"ftyp" and head[8:12] in _HEIF_BRANDS:
        return "heif"
    if head[:4] in (b"II*\x00", b"MM\x00*"):
        return "tiff"
    if head[:2] == b"BM":
        return "bmp"
    return None


def too_large(limit: int) -> UploadTooLarge:
    return keyed(UploadTooLarge, "err_too_large", mb=limit // (1024 * 1024))


async def read_photo(chunks: AsyncIterator[bytes], limit: int) -> bytes:
    """All bytes of an upload; stops reading (413) as soon as it passes `limit`."""
    data = bytearray()
    async for chunk in chunks:
        data += chunk
        if len(data) > limit:
            raise too_large(limit)
    if not data:
        raise keyed(NotAnImage, "err_no_photo")
    if sniff_image(bytes(data[:16])) is None:
        raise keyed(NotAnImage, "err_not_photo")
    return bytes(data)
