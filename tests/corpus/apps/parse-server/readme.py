"""README.md of the Parse Server captures (written by record.py after each recording)."""

from appdriver import CAPTURE_FILES
from harlib import producer_notes, render_steps, render_summary_table

import record as R


def _cell(v) -> str:
    if isinstance(v, list):
        return ", ".join(v)
    return str(v).lower() if isinstance(v, bool) else str(v)


def _rows(objs, cols) -> str:
    return "\n".join("| `" + oid + "` | " + " | ".join(_cell(o.get(c, "—")) for c in cols) + " |"
                     for oid, o, *_ in objs)


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    task_cols = ["title", "project", "priority", "status", "tags", "estimate", "done", "due"]
    schemas = "\n".join(f"- `{cls}`: " + ", ".join(
        f"`{f}` {k[0] + ' → ' + k[1] if isinstance(k, tuple) else k}" for f, k in fields.items())
        for cls, fields in R.SCHEMAS.items())
    members = "\n".join(f"- `{oid}` ({p['name']}): " + ", ".join(f"`{m}`" for m in ms) for oid, p, ms in R.PROJECTS)
    return f"""# Parse Server captures

Real HTTP traffic of **Parse Server {ver}** (npm `parse-server`, its REST API under `{R.MOUNT}`) on
Node 20 with **PostgreSQL 15** (Debian) as its database, recorded on loopback by `record.sh` in this
folder (`npm ci --ignore-scripts` of the committed `package-lock.json`, then `record.py`). `record.py`
runs a private PostgreSQL cluster under `run/pg` (`initdb` once, `postgres` on 127.0.0.1:{R.PG_PORT};
as the `postgres` user when the recorder runs as root, which `initdb` refuses), seeds, records
through the kit's mitmdump proxy, and stops what it started by PID.

The application id `{R.APP_ID}` and the master key `{R.MASTER_KEY}` are fixed throwaway
values (no secret). Every recorded request sends only `X-Parse-Application-Id` and
`Accept: application/json` (no master key, no session: the public class-level permissions apply);
the master key is used by the seed only, which is not recorded.

{CAPTURE_FILES}

{render_summary_table(summaries)}

## Seed (the same before every capture; not recorded)

Before each capture the database `parse` is dropped and re-created, then a short-lived seeding
Parse Server (started with `allowCustomObjectId: true`, so the seeded objects get the same fixed
`objectId`s in every capture) creates three class schemas with the master key (`POST
{R.MOUNT}/schemas/<Class>`, default public permissions) and the objects below; then SQL sets every
seeded object's `createdAt` and `updatedAt` to `{R.SEED_STAMP}` (so they are the same in every
capture). The recorded server runs without `allowCustomObjectId`, so the objects created in the
captures get generated 10-character `objectId`s and real timestamps.

{schemas}

| Member | name | email | role | active |
| --- | --- | --- | --- | --- |
{_rows(R.MEMBERS, ["name", "email", "role", "active"])}

| Project | name | code | budget | archived |
| --- | --- | --- | --- | --- |
{_rows(R.PROJECTS, ["name", "code", "budget", "archived"])}

The `members` relation of each project (a join table, read by `$relatedTo`):

{members}

| Task | {" | ".join(task_cols)} |
| --- | {" | ".join("---" for _ in task_cols)} |
{_rows(R.TASKS, task_cols)}

(`project` is a Pointer to that Project; `due` a Date, `{{"__type": "Date", "iso": …}}`.)

{render_steps(steps)}
## What each capture tests

- **build.har** — list reads of `{R.C}/<Class>` with a JSON `where=` (equality, `$gte`, `$in`,
  `$regex`, `$or`, `$all` on an array, a Pointer value, `$relatedTo` a relation), `order=-a,b`,
  `limit`/`skip` pages, `count=1&limit=0`, `keys=`, `include=project` (the pointer replaced by the
  whole object); reads by `objectId`; then every write kind, each followed by reads of the object
  and of a list it appears in: create (`POST` answers only `{{objectId, createdAt}}` with 201 and a
  `Location` header), update (`PUT` answers only `{{updatedAt}}`), the update operators `Increment`
  (the answer carries the new value), `AddUnique`, `Remove`, `AddRelation`, a `{R.MOUNT}/batch` of two
  creates and one update (an array of `{{success: …}}`), delete (answers `{{}}`; a later read is
  **404** `{{"code": 101, "error": "Object not found."}}`); errors: a missing object (404 code 101 on
  GET and PUT), a type mismatch (400 code 111), a `where` that is not JSON (400 code 107).
- **probe-reads.har** — filters, operators and values the build never used (`$lt`, `$ne`, `$nin`,
  `$gt`, `$gte`+`$lte`, `$regex` with `$options: "i"`, `$lt` on a Date, another
  pointer and another relation owner, two equalities), other `order`, `limit`/`skip`, `count=1` with
  and without results, `keys=`; objects the build never read (one with `include`); errors (missing
  objects, an unknown operator `$like`: 400 code 119 from the PostgreSQL adapter).
- **probe-crud.har** — creates in two classes, field updates, `Increment` by a negative amount,
  `Add` to an array, the `Delete` operator (unset a field), `RemoveRelation`/`AddRelation` then
  `$relatedTo`, a batch mixing a create, an update and a delete, delete then 404 (and a second
  delete: 404), counts, and refusals that change nothing (type mismatches: 400 code 111; `Increment`
  on a string field).

## How the captures were produced

{producer_notes(summaries)}
- Parse Server answers JSON with `Content-Type: application/json; charset=utf-8` and an
  `X-Powered-By: Express` header; `POST` creates answer **201** with `Location:
  http://127.0.0.1:{R.APP_PORT}{R.C}/<Class>/<objectId>`.
- Without an `order`, PostgreSQL returns rows in its storage order (an updated row may move).
"""
