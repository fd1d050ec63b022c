"""Shared test settings: FastAPI's TestClient names its server "testserver", which the
web app accepts as a loopback Host name in tests only (web.security.TEST_HOSTS); and one
cell of a real photo (benchmarks.real), for tests that run where ../shared/data/real is."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _testserver_is_loopback(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    from escalero.web import security

    monkeypatch.setattr(security, "TEST_HOSTS", frozenset({"testserver"}))
    yield


RealCell = Callable[[str, str, int, int], tuple[Any, tuple[int, int, int, int], Any]]


@pytest.fixture
def real_cell() -> RealCell:
    """A function (truth name, block name, row, column) -> (crop, box, block) cut from
    that real photo as benchmarks.real cuts it; skips the test where the photo is absent."""
    import cv2
    from escalero.benchmarks import real

    def cut(name: str, block_name: str, row: int, col: int) -> tuple[Any, Any, Any]:
        truth = next(t for t in map(real.load_truth, real.truth_files()) if t.name == name)
        block = next(b for b in truth.blocks if b.name == block_name)
        photo = cv2.imread(str(real.DEFAULT_DATA / truth.photo))
        if photo is None:
            pytest.skip(f"{truth.photo} is absent")
        image, box = real.cut_cell(photo, block, row, col)
        return image, box, block

    return cut
