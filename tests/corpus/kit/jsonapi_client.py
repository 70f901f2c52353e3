"""What the JSON:API app recorders share (safrs, drf-jsonapi, flask-rest-jsonapi-next): the app's
SQLite seed and command (each app folder holds `seed.py` and `app.py`, run with its own venv's
Python), reads, JSON:API writes (`application/vnd.api+json`), `links.next` paging and
relationship identifiers.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Callable

import httpx

from harlib import Recorder

JSONAPI = "application/vnd.api+json"


def sqlite_app(here: Path, db: str, port: int) -> tuple[Callable[[Path], None], Callable[[Path], list]]:
    """`prepare` (a fresh `run/<db>` holding the seed of `seed.py`) and `command` (`app.py`
    serving that database on 127.0.0.1:`port`) for an app folder `here`."""
    python = here / ".venv" / "bin" / "python"

    def prepare(run: Path) -> None:
        (run / db).unlink(missing_ok=True)
        subprocess.run([python, here / "seed.py", run / db], check=True, cwd=here)

    def command(run: Path) -> list:
        return [python, here / "app.py", run / db, str(port)]

    return prepare, command


def read(rec: Recorder, path: str, why: str, expect: int = 200) -> httpx.Response:
    return rec.call("GET", path, why, expect=expect)


def follow(rec: Recorder, r: httpx.Response, what: str) -> None:
    """Follow `links.next` (an absolute URL) of a paged collection to its last page."""
    page = 2
    while r.json().get("links", {}).get("next"):
        nxt = r.json()["links"]["next"].removeprefix(rec.base_url)
        r = read(rec, nxt, f"{what}: page {page} from `links.next`")
        page += 1


def send(rec: Recorder, method: str, path: str, why: str, body: dict, expect: int) -> httpx.Response:
    return rec.call(method, path, why, expect=expect, content=json.dumps(body),
                    headers={"Content-Type": JSONAPI}, display=f"{path} {json.dumps(body)}")


def rel(typ: str, id_) -> dict:
    """A to-one relationship object (`data: null` for no id)."""
    return {"data": None if id_ is None else {"type": typ, "id": str(id_)}}


def rels(typ: str, *ids) -> dict:
    """A to-many relationship object naming `ids` of `typ`."""
    return {"data": [{"type": typ, "id": str(i)} for i in ids]}


def resource(typ: str, attrs: dict, relationships: dict | None, id_: str | None = None) -> dict:
    """A JSON:API write body: `{data: {type, id?, attributes?, relationships?}}`."""
    data: dict = {"type": typ}
    if id_ is not None:
        data["id"] = id_
    if attrs:
        data["attributes"] = attrs
    if relationships:
        data["relationships"] = relationships
    return {"data": data}


def create(rec: Recorder, coll: str, typ: str, attrs: dict, why: str, relationships: dict | None = None,
           expect: int = 201) -> httpx.Response:
    """POST a new resource of `typ` to `coll`."""
    return send(rec, "POST", coll, why, resource(typ, attrs, relationships), expect)
