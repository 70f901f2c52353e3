"""The captures' README for Datasette (written by record.py after each recording)."""

from appdriver import CAPTURE_FILES
from harlib import producer_notes, render_steps, render_summary_table

import record as R


def seed_tables() -> str:
    people = "\n".join(f"| `{u}` | {n} | {e or 'null'} |" for u, n, e in R.PEOPLE)
    projects = "\n".join(f"| `{c}` | {n} | {a} |" for c, n, a in R.PROJECTS)
    tasks = "\n".join(
        f"| {i} | {t} | {s} | {p} | {pr} | {a} | {d or 'null'} |" for i, t, s, p, pr, a, d in R.TASKS)
    tags = ", ".join(f"`{i},{t}`" for i, t in R.TAGS)
    return f"""| people.username | name | email |
| --- | --- | --- |
{people}

| projects.code | name | archived |
| --- | --- | --- |
{projects}

| tasks.id | title | status | priority | project | assignee | due |
| --- | --- | --- | --- | --- | --- | --- |
{tasks}

`task_tags` rows (compound primary key `task_id,tag`): {tags}."""


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    return f"""# Datasette captures

Real HTTP traffic of **Datasette {ver}** (a pre-release of Datasette 1.0 with the JSON write API;
its own ASGI app under uvicorn) serving one SQLite file, `tracker.db`. Recorded on loopback
by `record.sh` in this folder (it installs `datasette=={ver}` from PyPI into `.venv`, rebuilds the
seed, starts `datasette serve run/tracker.db --host 127.0.0.1 --port {R.APP_PORT} --secret {R.SECRET} --root`
fresh for each capture, records through mitmdump on port {R.PROXY_PORT}, stops both by PID).

{CAPTURE_FILES}

{render_summary_table(summaries)}

## Seed (the same before every capture; not recorded)

`record.py` deletes `run/tracker.db` and rebuilds it with Python's `sqlite3` from the schema in
`record.py` (`SCHEMA`): `people(username TEXT PK, name NOT NULL, email)`,
`projects(code TEXT PK, name NOT NULL, archived INTEGER NOT NULL DEFAULT 0 CHECK 0/1)`,
`tasks(id INTEGER PK, title NOT NULL, status NOT NULL DEFAULT 'todo' CHECK in
todo/doing/done/cancelled, priority INTEGER NOT NULL DEFAULT 3 CHECK 1–5, project → projects,
assignee → people, due TEXT)`, `task_tags(task_id → tasks, tag, PRIMARY KEY (task_id, tag))`.

{seed_tables()}

Every recorded request carries `Authorization: Bearer dstok_…`: Datasette's own signed API token for
the actor `root`, signed with the fixed secret `{R.SECRET}` and a fixed creation time
({R.TOKEN_TIME}), so the token is the same on every run. `--root` gives that actor every permission.
The only request without it is the refused anonymous insert in `probe-crud.har` (it sends an empty
`Authorization` header).

{render_steps(steps)}
## What each capture tests

- **build.har** — an agent session: discover the database, list every table, filter with operator
  suffixes (`__lte`, `__in`, `__contains`, `__notnull`, `__notin`), sort (`_sort`, `_sort_desc`),
  count (`_extra=count`), page with `_size` following `next_url` to the end (by id and by title),
  read single rows, then every write form the API offers, each followed by the row and a list that
  shows its effect: insert one row (the generated id is nested in `rows[0].id`), insert several,
  insert into a compound-key table, update (`/<pk>/-/update`, with and without `return`), a cancel
  by status, upsert (an existing and a new key in one call, on a text and an integer key), delete
  (`/<pk>/-/delete`, also on a compound key), and create a table from rows then insert into it. One
  refused insert (missing `title`) stands where an agent would first get it wrong.
- **probe-reads.har** — operators the build never used (`__gt`, `__gte`+`__lt`, `__startswith`,
  `__endswith`, `__not`, `__isnull`, `__like`, `__glob`), other values (status done/cancelled,
  project OPS/CRM), an empty result, other sorts, projections (`_col`, `_nocol`), `_labels=on`,
  `_shape=array`, `_facet=status`, other page sizes and sort orders followed to the end, a cursor
  value the build never saw (`_next=7`), other ids in every table (task 3 is back: each capture
  starts from the seed), sibling tables filtered, and errors: 404 for a missing row, compound key,
  table and database; 400 for an unknown sort column, a bad or too large `_size`, `_sort` with
  `_sort_desc`, an unknown `_extra`.
- **probe-crud.har** — insert → read → list (generated id, client-chosen id, text key),
  refusals that change nothing (NOT NULL, unknown column, duplicate key, CHECK, `row`+`rows`, a
  body that is not JSON, no token → 403) then a count, insert with `replace` and with `ignore`,
  update → read → list, refused updates (missing row 404, unknown column 400, CHECK 400), upsert
  (update + create; refused without a NOT NULL column or without the key), delete → read 404 →
  list, a second delete → 404, a compound-key delete, and a table created, written, dropped in two
  steps (`-/drop` without `confirm` only reports the row count) and gone (404).

## API styles this app shows (corpus checklist)

| style | here |
| --- | --- |
| id fused with a format suffix in one segment | yes: `/tracker/tasks/7.json`, `/tracker/projects/WEB.json`, compound `/tracker/task_tags/5,release.json` |
| action routes (verb segments) | yes: `/<table>/-/insert`, `/-/upsert`, `/<pk>/-/update`, `/<pk>/-/delete`, `/<table>/-/drop`, `/<db>/-/create`; every write is a POST |
| operator query language | yes, suffix form: `col__gt=`, `__gte`, `__lt`, `__lte`, `__in`, `__notin`, `__not`, `__contains`, `__startswith`, `__endswith`, `__like`, `__glob`, `__isnull`, `__notnull`; `col=` is exact |
| keyset cursors, `next` links, Link headers | yes: `next` (keyset: last id, or `sortvalue,id`), `next_url` in the body and `Link: <…>; rel="next"` |
| upserts | yes: `/-/upsert`, and insert with `replace: true` / `ignore: true` |
| generated ids nested in created objects | yes: `{{"ok": true, "rows": [{{"id": 13, …}}]}}` |
| validation errors | yes: 400 with `{{"ok": false, "error", "errors": [...], "status": 400}}` (NOT NULL, CHECK, UNIQUE, unknown column, bad JSON, bad query parameters) |
| sibling collections of one route family | yes: four tables (and a fifth created in the build) under `/tracker/<table>.json` |
| documents and folders, ETag/revision concurrency, soft delete by status | no (no ETags; deletes are hard; `status = cancelled` is only an ordinary update) |

## What a faithful environment should do

**Envelopes.** A table answers `{{"ok": true, "next": null|"<cursor>", "next_url": null|"<url>",
"rows": [...], "truncated": false}}` (`_extra=count` adds `count` and `count_truncated`; `_facet`
adds `facet_results`; `_shape=array` answers the bare list). A row answers `{{"ok": true,
"database", "table", "rows": [<one row>], "primary_keys", "primary_key_values" (strings),
"query_ms", "truncated"}}`. Rows are objects in column order; `null` for missing values. Errors are
`{{"ok": false, "error": msg, "errors": [msg], "status": N}}` with that HTTP status.

**Paging.** Default page size 100; `_size=N` (1–1000 or `max`). When more rows follow, `next` is the
keyset of the last row (its id, or `<sort value>,<id>` when sorted, URL-encoded in `next_url`), and
the same URL is in a `Link: <…>; rel="next"` header; the last page has `next: null` and no Link.
A cursor is a value, not a token: `_next=7` answers the rows after id 7.

**Writes.** Every write is a POST to an action route with a JSON body and the bearer token.
`insert` answers **201** with `rows` (the inserted rows, with generated ids and defaults) for a
single `row` or with `return: true`; several `rows` without `return` answer only `{{"ok": true}}`.
`update` answers 200 `{{"ok": true}}` (plus `rows` with `return: true`) and changes only the columns
sent; `delete` answers 200 `{{"ok": true}}` and the row is then 404. `upsert` answers 200; rows in
one upsert are written with the union of their keys, so a key one row leaves out is written as
NULL for that row (hence the seed-compatible bodies used here, and the NOT NULL refusal in
probe-crud). `replace: true` overwrites a whole row (unsent columns fall back to their defaults);
`ignore: true` leaves the existing row and answers it. `-/create` with `rows` infers the columns
and makes a new table that `/tracker.json` then lists; `-/drop` needs `confirm: true`.

**Catalog lag.** Datasette refreshes its table catalog at most once a second: `/tracker.json` read
within a second of `-/create` may not list the new table yet (rows of the new table are readable at
once). The recorders wait 1.2 s (a `wait` step) before reading the database after a create or drop.

**Not deterministic across captures.** The key order of `count`/`count_truncated` under
`_extra=count` varies between runs. `query_ms` in row answers, `Date` headers, the per-run
`--root` login URL in the log (not in the captures). Ids are deterministic (SQLite integer keys:
max + 1), and so is the API token.

## What the captures cannot show

- Tables of the seed never listed in the build have no recorded rows beyond those in the answers
  shown (all four tables are listed whole in build.har, so this does not bite here).
- The defaults (`status` `todo`, `priority` 3, `archived` 0) and the CHECK/NOT NULL rules live in the
  SQLite schema; the captures show them only through created rows and 400 messages
  (`/tracker.json` lists columns and keys but not types, defaults or constraints).
- What `_where=` (raw SQL fragments), `?sql=` queries, CSV/HTML renderings, `_search` (no FTS table)
  and the permission system beyond one root token would answer.
- `query_ms` is a timing, not state.

## HAR producer notes

{producer_notes(summaries)}
- `next_url`, `table_url` and `table_api_url` carry the request's host, `http://127.0.0.1:{R.APP_PORT}`.
"""
