"""Record HAR captures of a real Jupyter Server (contents, checkpoints, sessions, kernels, config).

Run through record.sh (it makes the venvs). For each capture the served folder
`run/root` is rebuilt from the files below with fixed modification times (not
recorded), the Jupyter dirs under `run/jh` are emptied, and Jupyter Server is
started on 127.0.0.1 with the fixed token `s3cret` (sent as
`Authorization: token s3cret`).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "kit"))

import httpx  # noqa: E402

from appdriver import AppSpec, record_app  # noqa: E402
from harlib import Recorder  # noqa: E402

APP_PORT = 18812
PROXY_PORT = 18912
TOKEN = "s3cret"
SEED_TIME = 1795683600  # 2026-11-26T09:00:00Z: every seeded file's mtime is this plus its index (minutes)
C = "/api/contents"
MISSING_UUID = "00000000-0000-4000-8000-000000000000"

# ---------------------------------------------------------------- the seed
NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "id": "intro", "metadata": {}, "source": ["# Sales analysis\n", "Monthly totals."]},
        {"cell_type": "code", "execution_count": None, "id": "load", "metadata": {}, "outputs": [],
         "source": ["import csv\n", "rows = list(csv.DictReader(open('data/sales.csv')))\n", "len(rows)"]},
    ],
    "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}
PNG_1X1 = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cfc0f01f0005000201e2ab6f"
    "2e0000000049454e44ae426082")
FILES = [  # path, bytes (directories are made for their parents)
    ("README.md", b"# Team workspace\n\nNotes, data and reports of the tracker project.\n"),
    ("analysis.ipynb", (json.dumps(NOTEBOOK, indent=1) + "\n").encode()),
    ("notes/todo.md", b"# To do\n\n- draft homepage copy\n- renew TLS certificates\n"),
    ("notes/ideas.txt", b"dark mode\nkeyboard shortcuts\n"),
    ("notes/meeting-2026-11-30.md", b"# Meeting 2026-11-30\n\nDecided: launch on 2027-03-01.\n"),
    ("data/sales.csv", b"month,total\n2026-09,1200\n2026-10,1350\n2026-11,1410\n"),
    ("data/logo.png", PNG_1X1),
    ("reports/2026/q3.md", b"# Q3 2026\n\nRevenue up 4%.\n"),
    ("reports/2026/q4.md", b"# Q4 2026 (draft)\n"),
]
DIRS = ["archive-empty", "notes", "data", "reports/2026", "reports"]  # children before parents


def prepare(run: Path) -> None:
    """Rebuild run/root and empty the Jupyter config/data/runtime dirs."""
    for d in (run / "root", run / "jh"):
        shutil.rmtree(d, ignore_errors=True)
    root = run / "root"
    for i, (rel, data) in enumerate(FILES):
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        os.utime(p, (SEED_TIME + 60 * i, SEED_TIME + 60 * i))
    for i, rel in enumerate(DIRS, start=len(FILES)):
        (root / rel).mkdir(parents=True, exist_ok=True)
        os.utime(root / rel, (SEED_TIME + 60 * i, SEED_TIME + 60 * i))
    os.utime(root, (SEED_TIME + 3600, SEED_TIME + 3600))


def env(run: Path) -> dict:
    jh = run / "jh"
    e = dict(os.environ)
    e.update(JUPYTER_CONFIG_DIR=str(jh / "config"), JUPYTER_DATA_DIR=str(jh / "data"),
             JUPYTER_RUNTIME_DIR=str(jh / "runtime"), IPYTHONDIR=str(jh / "ipython"))
    return e


def command(run: Path) -> list:
    return [HERE / ".venv" / "bin" / "jupyter-server", f"--config={HERE / 'jupyter_server_config.py'}",
            "--allow-root", "--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={APP_PORT}",
            "--ServerApp.port_retries=0", f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={run / 'root'}"]


# ---------------------------------------------------------------- helpers
def put_text(rec: Recorder, path: str, text: str, why: str, expect) -> httpx.Response:
    return rec.call("PUT", f"{C}/{path}", why, json={"type": "file", "format": "text", "content": text},
                    expect=expect)


def rename(rec: Recorder, old: str, new: str, why: str, expect=200) -> httpx.Response:
    return rec.call("PATCH", f"{C}/{old}", why, json={"path": new}, expect=expect)


# ---------------------------------------------------------------- scenarios
def build_reads(rec: Recorder) -> None:
    rec.section("Discover the server")
    rec.call("GET", "/api", "server version", expect=200)
    rec.call("GET", "/api/status", "server status (started, last_activity, kernels, connections)", expect=200)
    rec.call("GET", "/api/me", "who am I (the fixed anonymous identity `agent`)", expect=200)
    rec.call("GET", "/api/kernelspecs", "installed kernel specs (python3 from ipykernel)", expect=200)

    rec.section("Folders: listings, with and without content")
    rec.call("GET", C, "root folder listing (type directory, content = its children without content)", expect=200)
    rec.call("GET", f"{C}/notes", "folder notes", expect=200)
    rec.call("GET", f"{C}/reports", "folder reports (one subfolder)", expect=200)
    rec.call("GET", f"{C}/reports/2026", "nested folder reports/2026", params={"content": "1"}, expect=200)
    rec.call("GET", f"{C}/data", "folder data, metadata only", params={"content": "0"}, expect=200)

    rec.section("Documents: files and a notebook")
    rec.call("GET", f"{C}/notes/todo.md", "markdown file (format text)", expect=200)
    rec.call("GET", f"{C}/notes/todo.md", "same file, metadata only", params={"content": "0"}, expect=200)
    rec.call("GET", f"{C}/analysis.ipynb", "notebook (type notebook, format json: the parsed notebook)", expect=200)
    rec.call("GET", f"{C}/data/sales.csv", "csv asked as a text file", params={"type": "file", "format": "text"},
             expect=200)
    rec.call("GET", f"{C}/data/logo.png", "binary file (format base64)", expect=200)
    rec.call("GET", f"{C}/README.md", "README with its sha256 hash", params={"hash": "1"}, expect=200)


def build_file_writes(rec: Recorder) -> None:
    rec.section("Create a document at a chosen path (PUT), save it again, read back")
    put_text(rec, "notes/standup.md", "# Standup\n\n- ana: homepage copy\n", "create notes/standup.md (201, Location)",
             201)
    rec.call("GET", f"{C}/notes/standup.md", "read it back", expect=200)
    rec.call("GET", f"{C}/notes", "folder notes lists it", expect=200)
    put_text(rec, "notes/standup.md", "# Standup\n\n- ana: homepage copy\n- bo: CI pipeline\n",
             "save it again with more text (200)", 200)
    rec.call("GET", f"{C}/notes/standup.md", "read it back: new content and size", expect=200)

    rec.section("Create with a server-chosen name (POST to the folder), copy, make a folder")
    r = rec.call("POST", f"{C}/notes", "new untitled markdown file in notes", json={"type": "file", "ext": ".md"},
                 expect=201)
    untitled = r.json()["path"]
    rec.call("GET", f"{C}/{untitled}", "read the untitled file (empty)", expect=200)
    r = rec.call("POST", f"{C}/notes", "copy notes/todo.md into notes (server names the copy)",
                 json={"copy_from": "notes/todo.md"}, expect=201)
    copy = r.json()["path"]
    rec.call("GET", f"{C}/{copy}", "read the copy", expect=200)
    rec.call("GET", f"{C}/notes", "folder notes: standup, untitled, the copy", expect=200)
    r = rec.call("POST", C, "new untitled folder at the root", json={"type": "directory"}, expect=201)
    folder = r.json()["path"]
    rec.call("GET", f"{C}/{folder}", "read the new folder (empty)", expect=200)

    rec.section("Rename and move (PATCH with the new path)")
    rename(rec, folder, "archive", "rename the new folder to archive")
    rec.call("GET", f"{C}/archive", "read archive", expect=200)
    rec.call("GET", f"{C}/{folder}", "the old folder name: 404", expect=404)
    rename(rec, untitled, "archive/old-notes.md", "move the untitled file into archive under a new name")
    rec.call("GET", f"{C}/archive/old-notes.md", "read it at its new path", expect=200)
    rec.call("GET", f"{C}/{untitled}", "old path: 404", expect=404)
    rec.call("GET", f"{C}/archive", "archive lists it", expect=200)
    rec.call("GET", f"{C}/notes", "notes no longer does", expect=200)
    rename(rec, "notes/standup.md", "notes/todo.md", "rename onto an existing file: 409", expect=409)

    rec.section("Checkpoints: save a checkpoint, change the file, restore, delete the checkpoint")
    rec.call("POST", f"{C}/notes/standup.md/checkpoints", "create a checkpoint of standup.md (201)", expect=201)
    rec.call("GET", f"{C}/notes/standup.md/checkpoints", "list its checkpoints (one, id `checkpoint`)", expect=200)
    put_text(rec, "notes/standup.md", "# Standup\n\n(cleared by mistake)\n", "overwrite standup.md", 200)
    rec.call("GET", f"{C}/notes/standup.md", "read it: the overwritten text", expect=200)
    rec.call("POST", f"{C}/notes/standup.md/checkpoints/checkpoint", "restore the checkpoint (204)", expect=204)
    rec.call("GET", f"{C}/notes/standup.md", "read it: the checkpointed text again", expect=200)
    rec.call("DELETE", f"{C}/notes/standup.md/checkpoints/checkpoint", "delete the checkpoint (204)", expect=204)
    rec.call("GET", f"{C}/notes/standup.md/checkpoints", "no checkpoints left", expect=200)

    rec.section("Create a notebook with content; delete a file")
    nb = dict(NOTEBOOK, cells=[{"cell_type": "markdown", "id": "plan", "metadata": {}, "source": ["# Launch plan"]}])
    rec.call("PUT", f"{C}/launch.ipynb", "create launch.ipynb from a notebook model",
             json={"type": "notebook", "content": nb}, expect=201)
    rec.call("GET", f"{C}/launch.ipynb", "read it back as a notebook", expect=200)
    rec.call("DELETE", f"{C}/{copy}", "delete the copy of todo.md (204)", expect=204)
    rec.call("GET", f"{C}/{copy}", "read it: 404", expect=404)
    rec.call("GET", C, "root listing: archive and launch.ipynb added", expect=200)
    rec.call("GET", f"{C}/notes", "notes: the copy gone", expect=200)


def build_kernels(rec: Recorder) -> None:
    rec.section("Sessions and kernels (generated ids; the kernel nested in the session)")
    body = {"path": "analysis.ipynb", "name": "analysis.ipynb", "type": "notebook", "kernel": {"name": "python3"}}
    r = rec.call("POST", "/api/sessions", "open a session on analysis.ipynb with a python3 kernel", json=body,
                 expect=201)
    sid, kid = r.json()["id"], r.json()["kernel"]["id"]
    rec.call("GET", f"/api/sessions/{sid}", "read the session", expect=200)
    rec.call("GET", "/api/sessions", "list sessions", expect=200)
    rec.call("GET", f"/api/kernels/{kid}", "read its kernel", expect=200)
    rec.call("GET", "/api/kernels", "list kernels", expect=200)
    rec.call("PATCH", f"/api/sessions/{sid}", "rename the session's path",
             json={"path": "analysis-v2.ipynb", "name": "analysis-v2.ipynb"}, expect=200)
    rec.call("GET", f"/api/sessions/{sid}", "read the session: new path", expect=200)
    rec.call("POST", f"/api/kernels/{kid}/interrupt", "interrupt the kernel (action route, 204)", expect=204)
    rec.call("POST", f"/api/kernels/{kid}/restart", "restart the kernel (action route, 200 with the kernel)",
             expect=200)
    rec.call("GET", f"/api/kernels/{kid}", "read the kernel after the restart (same id)", expect=200)
    rec.call("DELETE", f"/api/sessions/{sid}", "close the session (also shuts its kernel down, 204)", expect=204)
    rec.call("GET", f"/api/sessions/{sid}", "read the session: 404", expect=404)
    rec.call("GET", "/api/sessions", "no sessions", expect=200)
    rec.call("GET", "/api/kernels", "no kernels", expect=200)
    r = rec.call("POST", "/api/kernels", "start a bare kernel (201, Location)", json={"name": "python3"}, expect=201)
    k2 = r.json()["id"]
    rec.call("GET", f"/api/kernels/{k2}", "read it", expect=200)
    rec.call("DELETE", f"/api/kernels/{k2}", "shut it down (204)", expect=204)
    rec.call("GET", f"/api/kernels/{k2}", "read it: 404", expect=404)

    rec.section("A config section as a JSON document (PATCH merges; null removes a key)")
    rec.call("GET", "/api/config/tracker", "config section tracker: {} before any write", expect=200)
    rec.call("PATCH", "/api/config/tracker", "merge theme, autosave and a nested object",
             json={"theme": "dark", "autosave": 30, "editor": {"tabSize": 4}}, expect=200)
    rec.call("GET", "/api/config/tracker", "read it back", expect=200)
    rec.call("PATCH", "/api/config/tracker", "remove autosave (null), add editor.wrap (deep merge)",
             json={"autosave": None, "editor": {"wrap": True}}, expect=200)
    rec.call("GET", "/api/config/tracker", "read it back", expect=200)


def scenario_build(rec: Recorder) -> None:
    build_reads(rec)
    build_file_writes(rec)
    build_kernels(rec)


def scenario_probe_reads(rec: Recorder) -> None:
    rec.section("Other folders and listing options")
    rec.call("GET", f"{C}/data", "folder data with content", expect=200)
    rec.call("GET", f"{C}/archive-empty", "an empty folder", expect=200)
    rec.call("GET", f"{C}/reports", "folder reports, metadata only", params={"content": "0"}, expect=200)
    rec.call("GET", C, "root asked with type=directory", params={"type": "directory"}, expect=200)
    rec.call("GET", f"{C}/notes/todo.md", "another file with its hash", params={"hash": "1"}, expect=200)

    rec.section("Other documents and formats")
    rec.call("GET", f"{C}/notes/ideas.txt", "plain text file", expect=200)
    rec.call("GET", f"{C}/notes/meeting-2026-11-30.md", "markdown file with a date in its name", expect=200)
    rec.call("GET", f"{C}/reports/2026/q3.md", "file two folders down", expect=200)
    rec.call("GET", f"{C}/reports/2026/q4.md", "its sibling, metadata only", params={"content": "0"}, expect=200)
    rec.call("GET", f"{C}/analysis.ipynb", "notebook, metadata only", params={"content": "0"}, expect=200)
    rec.call("GET", f"{C}/analysis.ipynb", "notebook as a raw text file", params={"type": "file", "format": "text"},
             expect=200)
    rec.call("GET", f"{C}/data/sales.csv", "csv as base64", params={"format": "base64"}, expect=200)
    r = rec.call("GET", f"{C}/notes/todo.md", "todo.md (ETag)", expect=200)
    rec.call("GET", f"{C}/notes/todo.md", "todo.md with If-None-Match: its ETag -> 304",
             headers={"If-None-Match": r.headers["Etag"]}, expect=304)
    rec.call("GET", f"{C}/notes/todo.md/checkpoints", "checkpoints of a seeded file: none", expect=200)

    rec.section("Sibling resources")
    rec.call("GET", "/api/kernelspecs/python3", "one kernel spec", expect=200)
    rec.call("GET", "/api/sessions", "sessions: none in the seed", expect=200)
    rec.call("GET", "/api/kernels", "kernels: none in the seed", expect=200)
    rec.call("GET", "/api/config/tracker", "config section tracker: {} in the seed", expect=200)
    rec.call("GET", "/api/config/notebook", "another config section: {}", expect=200)

    rec.section("Errors")
    rec.call("GET", f"{C}/notes/missing.md", "a file that does not exist: 404", expect=404)
    rec.call("GET", f"{C}/nowhere", "a folder that does not exist: 404", expect=404)
    rec.call("GET", f"{C}/notes/todo.md", "a file asked as a directory: 400", params={"type": "directory"},
             expect=400)
    rec.call("GET", f"{C}/notes", "a folder asked as a file: 400", params={"type": "file"}, expect=400)
    rec.call("GET", f"{C}/notes/todo.md", "an unknown format: 400", params={"format": "xml"}, expect=400)
    rec.call("GET", f"{C}/notes/todo.md", "content=2: 400", params={"content": "2"}, expect=400)
    rec.call("GET", f"/api/sessions/{MISSING_UUID}", "a session id that does not exist: 404", expect=404)
    rec.call("GET", f"/api/kernels/{MISSING_UUID}", "a kernel id that does not exist: 404", expect=404)
    rec.call("GET", "/api/kernelspecs/julia", "a kernel spec that is not installed: 404", expect=404)
    rec.client.cookies.clear()  # the login cookie set by earlier answers would authenticate too
    rec.call("GET", f"{C}/notes/todo.md", "no token and no cookie: 403", headers={"Authorization": ""}, expect=403)


def scenario_probe_crud(rec: Recorder) -> None:
    rec.section("Create, read, list; save again")
    put_text(rec, "data/budget.csv", "item,amount\nvenue,900\n", "create data/budget.csv", 201)
    rec.call("GET", f"{C}/data/budget.csv", "read it", expect=200)
    rec.call("GET", f"{C}/data", "folder data lists it", expect=200)
    put_text(rec, "data/budget.csv", "item,amount\nvenue,900\ncatering,450\n", "save it with one more row", 200)
    rec.call("GET", f"{C}/data/budget.csv", "read it: new size", expect=200)
    rec.call("PUT", f"{C}/data/pixel.png", "create a binary file from base64",
             json={"type": "file", "format": "base64", "content": "iVBORw0KGgo="}, expect=201)
    rec.call("GET", f"{C}/data/pixel.png", "read it (base64)", expect=200)

    rec.section("Refused writes change nothing")
    rec.call("PUT", f"{C}/data/x.txt", "PUT a file without a format: 400",
             json={"type": "file", "content": "x"}, expect=400)
    rename(rec, "data/sales.csv", "data/budget.csv", "rename onto an existing file: 409", expect=409)
    rename(rec, "data/missing.csv", "data/found.csv", "rename a missing file: 404", expect=404)
    rec.call("POST", f"{C}/nowhere", "create inside a missing folder: 404", json={"type": "file"}, expect=404)
    rec.client.cookies.clear()
    rec.call("PUT", f"{C}/notes/x.md", "no token and no cookie: 403", json={"type": "file", "format": "text", "content": "x"},
             headers={"Authorization": ""}, expect=403)
    rec.call("GET", f"{C}/data", "folder data unchanged", expect=200)

    rec.section("Server-named creates in another folder; rename; delete")
    r1 = rec.call("POST", f"{C}/reports", "new untitled folder in reports", json={"type": "directory"}, expect=201)
    r2 = rec.call("POST", f"{C}/reports", "another one (the name gets a number)", json={"type": "directory"},
                  expect=201)
    rec.call("GET", f"{C}/reports", "reports lists both", expect=200)
    rename(rec, r1.json()["path"], "reports/2027", "rename the first to reports/2027")
    rec.call("GET", f"{C}/reports/2027", "read reports/2027", expect=200)
    rec.call("DELETE", f"{C}/{r2.json()['path']}", "delete the second, empty folder (204)", expect=204)
    rec.call("GET", f"{C}/{r2.json()['path']}", "read it: 404", expect=404)
    r = rec.call("POST", f"{C}/reports/2027", "new untitled notebook in reports/2027", json={"type": "notebook"},
                 expect=201)
    rec.call("GET", f"{C}/{r.json()['path']}", "read the empty notebook", expect=200)
    rec.call("GET", f"{C}/reports", "reports: 2026 and 2027", expect=200)
    rec.call("DELETE", f"{C}/notes/ideas.txt", "delete a seeded file", expect=204)
    rec.call("GET", f"{C}/notes/ideas.txt", "read it: 404", expect=404)
    rec.call("GET", f"{C}/notes", "notes without ideas.txt", expect=200)

    rec.section("Checkpoint and restore a notebook")
    rec.call("POST", f"{C}/analysis.ipynb/checkpoints", "checkpoint analysis.ipynb", expect=201)
    nb = dict(NOTEBOOK, cells=[])
    rec.call("PUT", f"{C}/analysis.ipynb", "save the notebook with no cells", json={"type": "notebook", "content": nb},
             expect=200)
    rec.call("GET", f"{C}/analysis.ipynb", "read it: no cells", expect=200)
    rec.call("POST", f"{C}/analysis.ipynb/checkpoints/checkpoint", "restore the checkpoint", expect=204)
    rec.call("GET", f"{C}/analysis.ipynb", "read it: both cells back", expect=200)
    rec.call("GET", f"{C}/analysis.ipynb/checkpoints", "the checkpoint is still listed", expect=200)

    rec.section("Sessions: create, create again on the same path, change the kernel, delete")
    body = {"path": "notes/todo.md", "name": "todo.md", "type": "file", "kernel": {"name": "python3"}}
    r = rec.call("POST", "/api/sessions", "open a file session with a python3 kernel", json=body, expect=201)
    sid, kid = r.json()["id"], r.json()["kernel"]["id"]
    rec.call("POST", "/api/sessions", "the same path again: the existing session comes back", json=body, expect=201)
    rec.call("GET", "/api/sessions", "one session", expect=200)
    r = rec.call("PATCH", f"/api/sessions/{sid}", "ask for a new kernel: the session gets a new kernel id",
                 json={"kernel": {"name": "python3"}}, expect=200)
    rec.call("GET", f"/api/sessions/{sid}", "read the session", expect=200)
    rec.call("GET", f"/api/kernels/{kid}", "the old kernel: 404 (shut down by the change)", expect=(200, 404))
    rec.call("DELETE", f"/api/sessions/{sid}", "close the session", expect=204)
    rec.call("GET", "/api/sessions", "no sessions", expect=200)
    rec.call("DELETE", f"/api/sessions/{sid}", "close it again: 404", expect=404)
    rec.call("DELETE", f"/api/kernels/{MISSING_UUID}", "shut down a missing kernel: 404", expect=404)

    rec.section("Config document")
    rec.call("PATCH", "/api/config/tracker", "create section tracker with one key", json={"theme": "light"},
             expect=200)
    rec.call("GET", "/api/config/tracker", "read it", expect=200)
    rec.call("PATCH", "/api/config/tracker", "change it", json={"theme": "dark", "lineNumbers": True}, expect=200)
    rec.call("GET", "/api/config/tracker", "read it", expect=200)


SCENARIOS = [("build", scenario_build), ("probe-reads", scenario_probe_reads), ("probe-crud", scenario_probe_crud)]


def main() -> None:
    import readme

    run = HERE / "run"
    spec = AppSpec(
        name="jupyter_server", here=HERE, dist="jupyter_server", app_port=APP_PORT, proxy_port=PROXY_PORT,
        command=command, scenarios=SCENARIOS, render_readme=readme.render, prepare=prepare,
        headers={"Authorization": f"token {TOKEN}"}, ready_path="/api/status", env=env(run),
        stop_signal=signal.SIGTERM, settle=0.5,
    )
    record_app(spec)


if __name__ == "__main__":
    main()
