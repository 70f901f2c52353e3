"""The captures' README for Jupyter Server (written by record.py after each recording)."""

from datetime import datetime, timezone

from appdriver import CAPTURE_FILES
from harlib import producer_notes, render_steps, render_summary_table

import record as R


def iso(ts: int) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def seed_table() -> str:
    rows = [f"| `{rel}` | file | {len(data)} | {iso(R.SEED_TIME + 60 * i)} |" for i, (rel, data) in enumerate(R.FILES)]
    rows += [f"| `{rel}/` | folder | — | {iso(R.SEED_TIME + 60 * i)} |"
             for i, rel in enumerate(R.DIRS, start=len(R.FILES))]
    rows.append(f"| `/` (root) | folder | — | {iso(R.SEED_TIME + 3600)} |")
    return "| path | kind | bytes | last_modified |\n| --- | --- | ---: | --- |\n" + "\n".join(rows)


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    return f"""# Jupyter Server captures

Real HTTP traffic of **Jupyter Server {ver}** (Tornado) with **ipykernel 7.4.0** for kernels.
Recorded on loopback by `record.sh` in this folder (it installs both from PyPI into `.venv`,
rebuilds the served folder `run/root`, starts `jupyter-server` fresh for each capture on
127.0.0.1:{R.APP_PORT} with `jupyter_server_config.py`, records through mitmdump on port
{R.PROXY_PORT}, stops both by PID with SIGTERM, which also shuts any kernel down).

{CAPTURE_FILES}

{render_summary_table(summaries)}

## Seed (the same before every capture; not recorded)

`record.py` deletes `run/root` and `run/jh` (Jupyter's config, data and runtime dirs, so no
config section, session or kernel survives) and writes these files, each with a fixed modification
time (the `last_modified` the API reports for seeded entries):

{seed_table()}

`analysis.ipynb` is an nbformat 4.5 notebook with two cells (markdown `intro`, code `load`);
`data/logo.png` is a 1×1 PNG. Server options: token `{R.TOKEN}` (every request sends
`Authorization: token {R.TOKEN}`), `FileContentsManager.delete_to_trash = False`, and
`jupyter_server_config.py` names the token's anonymous user `agent` (Jupyter would otherwise make up
a random "Anonymous <moon>" user per cookie-less request). The HTTP client keeps the login cookie
the first answer sets, as a browser or an httpx session would.

{render_steps(steps)}
## What each capture tests

- **build.har** — discover (`/api`, status, identity, kernel specs); list folders (with
  `content=1`, `content=0`), read documents in every format (text, notebook JSON, base64, `hash=1`);
  then every write of the contents API, each followed by the document and its folder listing:
  create at a chosen path (PUT 201) and save again (PUT 200); create with a server-chosen name
  (POST `{{"type": "file", "ext": ".md"}}` → `untitled.md`), copy (`copy_from` → `todo-Copy1.md`),
  new folder (→ `Untitled Folder`); rename and move (PATCH `{{"path": new}}`, the old path then
  404); a rename onto an existing file (409); checkpoint create / list / restore / delete; a notebook
  created from a model; a delete. Then sessions and kernels (a session's generated id with the
  generated kernel id nested in it; rename; kernel `interrupt` and `restart` action routes; delete;
  bare kernel start and shutdown) and a config section edited as a JSON document with a deep
  merge.
- **probe-reads.har** — other folders (an empty one, `type=directory`, metadata only), other
  files and formats (a notebook as raw text, CSV as base64, `hash=1`), a conditional GET
  (`If-None-Match` → 304), checkpoints of a seeded file (`[]`), sibling resources (one kernel spec,
  empty session/kernel lists, config sections), and errors: missing file and folder (404, with a
  plain-text body under a JSON content type), wrong `type` (400), bad `format` and `content` (400),
  missing session, kernel and kernel spec (404), no credentials (403).
- **probe-crud.har** — create → read → folder list → save → read; a binary file from base64;
  refusals that change nothing (PUT without `format` 400, rename onto an existing file 409, rename
  of a missing file 404, POST into a missing folder 404, a PUT without token or cookie 403 with
  Jupyter's XSRF message) then the folder; two server-named folders (`Untitled Folder`,
  `Untitled Folder 1`), rename, delete an empty folder, a server-named notebook; delete a seeded
  file; checkpoint → overwrite → restore a notebook; sessions: a second POST on the same path answers
  the same session, PATCH with a kernel name gives the session a new kernel id (the old kernel is
  then 404), delete, delete again 404; a config section created by PATCH.

## API styles this app shows (corpus checklist)

| style | here |
| --- | --- |
| documents and folders | yes: `/api/contents/<path>` where the path has any depth; folders list their children; `type` file / notebook / directory; `format` text / base64 / json |
| action routes | yes: `/api/kernels/<id>/interrupt`, `/api/kernels/<id>/restart`, `/api/contents/<path>/checkpoints` (POST creates), `/checkpoints/<id>` (POST restores) |
| generated ids nested in created objects | yes: `POST /api/sessions` answers `{{"id": <uuid>, "kernel": {{"id": <uuid>, …}}}}`; server-chosen names (`untitled.md`, `Untitled Folder 1`, `todo-Copy1.md`) |
| rename by PATCH of the path | yes: the document's identity is its path, so a PATCH changes the id |
| upsert | yes: PUT at a path creates (201) or replaces (200); PATCH on a config section creates or deep-merges (null deletes a key) |
| ETag | yes, Tornado's content hash on GET answers; `If-None-Match` → 304. No `If-Match` concurrency on writes |
| validation errors | yes: 400 with `{{"message", "reason"}}`; 409 on a rename conflict |
| fused ids, operator query languages, keyset cursors, soft delete | no (no filtering, sorting or paging at all) |

## What a faithful environment should do

**Models.** Every contents answer is a model `{{name, path, last_modified, created, content, format,
mimetype, size, writable, hash, hash_algorithm, type}}`. A folder's `content` is the list of its
children's models (with `content: null`) in the order the file system lists them (not sorted:
`os.scandir` order, which can differ between machines and file systems);
`content=0` gives `content: null` for the folder itself. Write answers are the
model without content (`content: null, format: null`); PUT/POST creates answer 201 with
`Location: /api/contents/<path>`. Renaming keeps `last_modified` (the file's mtime) and sets a new
`created`. Writing a file changes its folder's `last_modified`.

**Names the server chooses.** POST to a folder: `untitled<ext>` / `Untitled.ipynb` /
`Untitled Folder`, then `Untitled Folder 1`, …; a copy is `<stem>-Copy1<ext>`.

**Checkpoints.** One checkpoint per file, id `checkpoint`, its `last_modified` the file's mtime when
it was made; restoring brings back content and mtime (answer 204, no body).

**Sessions and kernels.** Ids are random UUID4s. A session answer nests its kernel `{{id, name,
last_activity, execution_state, connections}}`; `execution_state` stays `starting` here (no client
ever opens the kernel's websocket). Deleting a session shuts its kernel down; after that both lists
are `[]`.

**Errors.** JSON `{{"message", "reason"}}` for 400/404/409 from handlers; a missing path in GET
answers 404 with a plain-text body (`file or directory '/x' does not exist`) under
`Content-Type: application/json`; an unknown route (e.g. a session id that is not a UUID) answers
Jupyter's HTML 404 page (never recorded here).

**Not deterministic across captures.** Session and kernel ids, `created` of every entry (the
file's change time, which cannot be set), `last_modified` of everything written during a capture,
`last_activity`/`started` in status and kernels, `Date`, the login cookie (`Set-Cookie` carries a
signed timestamp), the order of children in folder listings.
Paths, names, sizes, contents and hashes are deterministic.

## What the captures cannot show

- Kernel execution: code runs over a websocket (`/api/kernels/<id>/channels`), which a HAR of
  plain HTTP calls does not hold; the terminals API (`jupyter_server_terminals`) and nbconvert are
  installed but not used.
- Hidden files and `.ipynb_checkpoints/` (where checkpoints live) are not listed by the API.
- Answers that would leak the recording machine's absolute path were left out on purpose: a PUT
  into a missing folder (500 with the path), DELETE of a missing path (404 with the path), DELETE of
  a non-empty folder (400 with the path), and `hash=1` on a folder (500, a server bug).
- Whether a write is allowed depends on file-system permissions, which the capture never shows
  (every entry here is `writable: true`).

## HAR producer notes

{producer_notes(summaries)}
- Tornado adds `Etag` (content hash) to 200 GET answers, `Content-Security-Policy`, an empty
  `Access-Control-Allow-Origin`, and `Set-Cookie: username-127-0-0-1-{R.APP_PORT}=…` whenever the
  request carried no valid login cookie.
"""
