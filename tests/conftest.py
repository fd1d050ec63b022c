"""Shared test settings: FastAPI's TestClient names its server "testserver", which the
web app accepts as a loopback Host name in tests only (web.security.TEST_HOSTS)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _testserver_is_loopback(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    from escalero.web import security

    monkeypatch.setattr(security, "TEST_HOSTS", frozenset({"testserver"}))
    yield
