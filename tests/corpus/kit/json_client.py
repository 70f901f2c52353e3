"""What the plain JSON app recorders share (drf, tastypie, piccolo): a query path with its values
percent-encoded, an item path, reads, JSON writes (`application/json`) and bodiless calls, each
kept as a numbered step of the `Recorder`, and the recording of an app served by `app.py` in its
own venv.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path
from urllib.parse import quote

import httpx

from appdriver import AppSpec, record_app
from harlib import Recorder, app_version


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


def record_venv_app(name: str, here: Path, venv: Path, ports: tuple[int, int], ready_path: str,
                    scenarios: list, render_readme, dist: str, extra_env: dict | None = None,
                    accept: str = "application/json") -> None:
    """Records an app folder's captures: `python app.py PORT` with the app's venv (127.0.0.1,
    stopped by SIGINT), every call sending `Accept: <accept>` (`application/json` unless the app
    asks another, as a JSON:API app does), the README's version that of `dist` in the venv;
    `extra_env` adds to the app's environment (`PYTHONHASHSEED`)."""
    app_port, proxy_port = ports

    def command(run: Path) -> list:
        return [venv / "bin" / "python", here / "app.py", str(app_port)]

    record_app(AppSpec(
        name=name, here=here, dist="", app_port=app_port, proxy_port=proxy_port, command=command,
        scenarios=scenarios, render_readme=render_readme, headers={"Accept": accept},
        ready_path=ready_path, stop_signal=signal.SIGINT, settle=0.3,
        env={"PATH": "/usr/local/bin:/usr/bin:/bin", "PYTHONPATH": str(here), **(extra_env or {})},
        version=lambda: app_version(venv, dist),
    ))
