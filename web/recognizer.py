"""The scanner's parts, loaded once and only when a page needs them."""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING, Any

from escalero.scoring.errors import ToolMissingError

from escalero.i18n import N_, Text

if TYPE_CHECKING:
    from escalero.scan.recognize import Recognizer


@functools.cache
def shared_recognizer() -> Recognizer:
    """One recognizer for all requests: it is safe to share between threads (digit_model
    serialises the cv2.dnn network, and ONNX Runtime sessions run concurrently)."""
    recognize = optional("escalero.scan.recognize", SCANNER)
    recognizer: Recognizer = recognize.get_recognizer("default")
    return recognizer


# What is missing when the scanner's modules are not installed.
SCANNER = Text(N_("the photo scanner"))


def optional(module: str, what: Text) -> Any:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name and module.startswith(err.name):
            raise ToolMissingError.worded(N_("{what} is not part of this installation; update "
                                             "escalero"), what=what) from None
        raise
