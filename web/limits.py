"""Request limits every route shares: bodies by their declared size and by a deadline, forms
read with a cap, and a client that goes away mid-request.

`RequestLimits` is the app's outermost layer (ASGI): a request whose Content-Length is
over the largest body any route takes is answered 413 before a byte of it is read, and a
body that stops arriving (or arrives at a few bytes a second, "slowloris") is answered
408 and its connection closed, so it cannot hold the connection, or a worker, for long.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from escalero.scoring.errors import InputFileError
from escalero.web.config import MAX_UPLOAD_BYTES
from escalero.web.i18n import pick_lang, translate
from escalero.web.messages import keyed
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

BODY_IDLE_SECONDS = 30.0  # no byte of the body for this long: 408
BODY_SECONDS = 120.0  # the whole body (a 25 MB photo: 210 kB/s) within this: 408
# After the first seconds a body must come at 1 kB/s on average (a phone's 2 MB photo on
# the weakest WLAN comes at 50 kB/s or more): a slowloris body is cut off in seconds.
BODY_GRACE_SECONDS = 10.0
MIN_BODY_RATE = 1024  # bytes a second
# The print page's form (names, options) and the PIN page's are a few hundred bytes.
MAX_FORM_BYTES = 64 * 1024
MAX_FORM_FIELDS = 100


class BodyTooLarge(InputFileError):
    http_status = 413


def declared_length(headers: Any) -> int | None:
    """The request's Content-Length as a number (None when absent or not plain digits)."""
    text = headers.get("content-length")
    return int(text) if text and text.isascii() and text.isdigit() else None


def _lang(scope: Scope) -> str:
    request = Request(scope)
    return pick_lang(request.query_params.get("lang") or request.cookies.get("escalero_lang"))


async def _answer(send: Send, status: int, message: str) -> None:
    """A JSON {"error"} answer that closes the connection (the rest of the body is unread)."""
    body = json.dumps({"error": message}, ensure_ascii=False).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class RequestLimits:
    """413 for a declared body over `max_body`; 408 for a body slower than the deadlines
    (no byte for `idle_seconds`, not all within `body_seconds`, or under MIN_BODY_RATE on
    average after BODY_GRACE_SECONDS).

    `clock` is the event loop's by default (tests give their own)."""

    def __init__(self, app: ASGIApp, max_body: int = MAX_UPLOAD_BYTES,
                 idle_seconds: float = BODY_IDLE_SECONDS, body_seconds: float = BODY_SECONDS,
                 clock: Callable[[], float] | None = None) -> None:
        self.app = app
        self.max_body = max_body
        self.idle_seconds = idle_seconds
        self.body_seconds = body_seconds
        self.clock = clock

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1")
                   for k, v in scope.get("headers") or ()}
        length = declared_length(headers)
        if length is not None and length > self.max_body:
            await _answer(send, 413, translate("err_body_over", _lang(scope),
                                               mb=self.max_body // (1024 * 1024)))
            return
        clock = self.clock or asyncio.get_running_loop().time
        start = clock()
        deadline = start + self.body_seconds
        received = 0
        body_done = False
        answered = False  # the 408 went out: the app's own answer is dropped

        async def timed_receive() -> Message:
            nonlocal body_done, answered, received
            if body_done:
                return await receive()
            now = clock()
            left = min(self.idle_seconds, deadline - now)
            message: Message | None = None
            if now - start > BODY_GRACE_SECONDS and received < MIN_BODY_RATE * (now - start):
                left = 0  # far too slow on average: a slowloris body
            if left > 0:
                try:
                    message = await asyncio.wait_for(receive(), left)
                except TimeoutError:
                    message = None
            if message is None:  # too slow: answer now, and the app sees a client gone
                body_done = answered = True
                await _answer(send, 408, translate("err_body_slow", _lang(scope)))
                return {"type": "http.disconnect"}
            if message["type"] != "http.request" or not message.get("more_body", False):
                body_done = True
            received += len(message.get("body", b""))
            return message

        async def guarded_send(message: Message) -> None:
            if not answered:
                await send(message)

        await self.app(scope, timed_receive, guarded_send)


async def read_capped(request: Request, limit: int, too_large: Exception) -> bytes:
    """The whole body, refused (`too_large`) by its declared size or once it passes `limit`."""
    length = declared_length(request.headers)
    if length is not None and length > limit:
        raise too_large
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise too_large
    return bytes(body)


async def capped_form(request: Request, limit: int = MAX_FORM_BYTES) -> FormData:
    """A form's fields, read with a size cap into memory: a form that carries a file, or
    more than `limit` bytes, is refused (413) before it is read further or spooled."""
    too_large = keyed(BodyTooLarge, "err_form_over", kb=limit // 1024)
    body = await read_capped(request, limit, too_large)
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    try:
        return await Request(request.scope, replay).form(
            max_files=0, max_fields=MAX_FORM_FIELDS, max_part_size=limit)
    except HTTPException as err:  # python-multipart's refusal (a file part, too many fields)
        raise too_large if "files" in str(err.detail).lower() else InputFileError(
            f"the form is not readable ({err.detail}); send it from the app's page") from None
