"""What the plain JSON app recorders share (drf, tastypie, piccolo): a query path with its values
percent-encoded, an item path, reads, JSON writes (`application/json`) and bodiless calls, each
kept as a numbered step of the `Recorder`.
"""

from __future__ import annotations

import json
from urllib.parse import quote

import httpx

from harlib import Recorder


def q(path: str, *pairs: tuple) -> str:
    """`path?k=v&…` with the values percent-encoded (`,` kept: it separates an `in` list, the keys
    of an ordering and a field selection)."""
    if not pairs:
        return path
    return path + "?" + "&".join(f"{k}={quote(str(v), safe=',-:')}" for k, v in pairs)


def item(coll: str, id_, suffix: str = "") -> str:
    """An item's path under a collection path ending in `/` (`/api/tasks/` → `/api/tasks/4/`)."""
    return f"{coll}{id_}/{suffix}"


def read(rec: Recorder, path: str, why: str, expect: int = 200) -> httpx.Response:
    return rec.call("GET", path, why, expect=expect)


def send(rec: Recorder, method: str, path: str, why: str, body, expect: int = 200) -> httpx.Response:
    return rec.call(method, path, why, expect=expect, content=json.dumps(body),
                    headers={"Content-Type": "application/json"}, display=f"{path} {json.dumps(body)}")


def bare(rec: Recorder, method: str, path: str, why: str, expect: int = 200) -> httpx.Response:
    return rec.call(method, path, why, expect=expect)
