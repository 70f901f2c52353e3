"""README.md of the Directus captures (written by record.py after each recording)."""

import json

from appdriver import CAPTURE_FILES
from harlib import producer_notes, render_steps, render_summary_table

import record as R


def _cell(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, list):
        return ", ".join(v) or "[]"
    return str(v)


def _table(items, cols, first_id=1) -> str:
    head = "| id | " + " | ".join(cols) + " |\n| --- | " + " | ".join("---" for _ in cols) + " |\n"
    return head + "\n".join(f"| {i} | " + " | ".join(_cell(it.get(c)) for c in cols) + " |"
                            for i, it in enumerate(items, first_id))


def _fields(coll: dict) -> str:
    out = []
    for f in coll["fields"]:
        bits = [f["type"]]
        meta, schema = f.get("meta") or {}, f.get("schema") or {}
        if schema.get("is_primary_key"):
            bits.append("primary key, auto-increment")
        if meta.get("required"):
            bits.append("required")
        if schema.get("is_unique"):
            bits.append("unique")
        if "default_value" in schema:
            bits.append(f"default {schema['default_value']!r}")
        if meta.get("options", {}).get("choices"):
            bits.append("choices " + "/".join(c["value"] for c in meta["options"]["choices"]))
        if meta.get("validation"):
            bits.append("validation " + json.dumps(meta["validation"]))
        out.append(f"`{f['field']}` ({', '.join(bits)})")
    return "; ".join(out)


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    task_cols = ["title", "state", "priority", "assignee", "due", "estimate_h", "tags", "project"]
    return f"""# Directus captures

Real HTTP traffic of **Directus {ver}** (npm `directus`, SQLite through `sqlite3`), recorded on
loopback by `record.sh` in this folder (`npm ci` of the committed `package-lock.json`, then
`record.py`). Directus 11.3.5 is the newest release whose `engines` accepts Node 20 (11.4 and
later need Node 22). It is started through `@directus/api/cli/run.js` (the `directus` wrapper
asks the npm registry for updates first), with `HOST=127.0.0.1`, `PORT={R.APP_PORT}`, cache,
rate limiter, websockets and telemetry off. Every request carries the admin's static token
`Authorization: Bearer {R.TOKEN}` (set at bootstrap by `ADMIN_TOKEN`; admin
`{R.ADMIN_EMAIL}` / `{R.ADMIN_PASSWORD}`) and `Accept: application/json`.

{CAPTURE_FILES}

{render_summary_table(summaries)}

## Seed (the same before every capture; not recorded)

Once per run `record.py` bootstraps an empty SQLite file (`directus bootstrap`: system tables,
admin role, policy and user; the admin's id is then set to `{R.ADMIN_ID}`
in the file), starts Directus on it and seeds through the API, then stops it. Each capture starts
Directus on a fresh copy of that file, so all three start from the same bytes.

1. `POST /collections` **projects**: {_fields(R.PROJECTS_COLLECTION)}. Collection meta:
   `archive_field: "status"`, `archive_value: "archived"`, `unarchive_value: "active"` (Directus's
   soft delete).
2. `POST /collections` **tasks** (manual sort field `sort`): {_fields(R.TASKS_COLLECTION)}.
3. `POST /collections` **site_settings** (a singleton): {_fields(R.SITE_COLLECTION)}.
4. `POST /fields/projects` alias field `tasks` (o2m), then `POST /relations`: `tasks.project` →
   `projects`, `one_field: "tasks"`, `on_delete: SET NULL`.
5. Items, in this order (ids are auto-increment, so the same every time):

projects:

{_table(R.PROJECTS, ["name", "code", "status", "budget", "start_date"])}

tasks (`sort` = id):

{_table(R.TASKS, task_cols)}

site_settings: `{json.dumps(R.SITE)}`.

{render_steps(steps)}
## What each capture tests

- **build.har** — discovery (`/server/ping`, `/server/info`, `/users/me`, the tasks collection, its
  fields and relations); lists with bracket filters (`filter[state][_eq]=todo`, `_lte`,
  `_contains`, `_in`), the JSON filter form (`filter={{"estimate_h":{{"_gt":5}}}}`), a relational
  filter (`filter[project][code][_eq]=MOB`) with `fields=id,title,project.name`, `sort=-priority,id`,
  `limit`/`page` with `meta=total_count,filter_count`, `offset`, `search=`, an aggregate
  (`aggregate[count]=id&groupBy[]=state`), `deep[tasks][_filter]…` on a nested o2m; entity reads with
  `fields=*,project.*`, the singleton. Writes, each followed by reads of the item and a list: a full
  and a minimal create (defaults filled: `state` todo, `priority` 3), a project created **with two
  nested tasks** (their generated ids come back inside `data.tasks[]`), a batch create (array in,
  array out), `PATCH` of one item, batch `PATCH {{keys, data}}`, archive by `status: "archived"`,
  `PATCH` of the singleton, the action route `POST /utils/sort/tasks {{item, to}}` (manual order,
  read back with `sort=sort`), `DELETE` of one item (**204**, then **403** on read) and batch
  `DELETE` with a JSON array of ids; finally `/revisions` of task 1.
- **probe-reads.har** — other operators (`_gte`, `_between`, `_null`, `_nnull`, `_lt` on dates,
  `_icontains`, `_starts_with`, `_nin`), `_or` in bracket form, `_and` in JSON form, a filter through
  the relation on another field, an empty result, `_some` on the o2m; other sorts, page 3 of 4,
  a filtered page with `filter_count`, `limit=-1`, another `search`, `aggregate[sum]` by project,
  `aggregate[count]=*`; ids the build never read with other `fields`; the projects collection
  meta and one field; errors: a missing item or unknown collection (**403** `FORBIDDEN` — Directus
  does not say 404), an operator the field type lacks or unparsable JSON filter or `limit=abc`
  (**400** `INVALID_QUERY`), an unknown field in a filter (**403**).
- **probe-crud.har** — create → get → filtered list; refusals that change nothing: a duplicate
  unique `code` (**400** `RECORD_NOT_UNIQUE`), a missing required `title` and a `priority` outside
  its validation rule (**400** `FAILED_VALIDATION` with `field`/`type`/`valid`), a create in an
  unknown collection (**403**); a task in the new project, then a nested o2m create through
  `PATCH /items/projects/:id {{"tasks": {{"create": [...], "update": [], "delete": []}}}}`; updates:
  one item, a batch `PATCH` by `query` (a filter in the body), un-archive, the singleton; deletes:
  an item (403 after), the project (its remaining task's `project` becomes `null`: `SET NULL`), a
  batch `DELETE` by `query`, and a missing id (**204** too).

## API styles this app shows

- **Operator query language, bracket form** (`filter[field][_op]=value`, nested through relations
  `filter[project][code][_eq]`, logical `filter[_or][0]…`, `_some` on o2m) and the same filter as a
  **JSON** query value; `deep[…]` filters on nested lists; `sort=-a,b`; `fields=` projections with
  dotted relational paths; `aggregate[…]`/`groupBy[]`.
- **Pages**: `limit` + `page` or `offset`, counts in `meta.total_count`/`meta.filter_count` (no
  `Link` header, no cursor).
- **Answers wrapped in `{{"data": …}}`**, errors in `{{"errors": [{{message, extensions: {{code, …}}}}]}}`.
- **Generated ids nested in created objects**: a project created with nested `tasks` answers them
  with their new ids; batch creates answer arrays.
- **Batch writes with RPC-like bodies**: `PATCH /items/tasks {{keys, data}}` or `{{query, data}}`,
  `DELETE /items/tasks` with an id array or `{{query}}`; o2m `{{create, update, delete}}` change sets.
- **Action route**: `POST /utils/sort/tasks {{item, to}}` (a verb-like utility endpoint).
- **Soft delete by a status field**: the collection's archive field (`status: "archived"`).
- **A singleton document** (`/items/site_settings`, `GET`/`PATCH` without an id).
- **Validation errors**: required, unique, a field validation rule, invalid queries.
- Not shown: ETag/revision concurrency (Directus has none on items), cursors, upserts.

## What the captures cannot show

- **Missing items are 403, not 404**, and deleting a missing id is 204: Directus answers the same
  whether an item does not exist or the user may not see it. A capture cannot tell these apart.
- **Defaults and validation live in the schema**: defaults (`state` todo, `priority` 3, `status`
  active) appear only in answers; the rules are readable through `/fields/tasks` (read in build) but
  are never stated for `projects.code`'s uniqueness except by the 400 in `probe-crud.har`.
- **Side effects**: `on_delete: SET NULL` nulls `tasks.project` when a project is deleted; a
  manual sort (`/utils/sort`) renumbers `sort` on many rows; only later reads show either. New
  items get `sort: null` (Directus does not number them).
- Bootstrap draws a random UUID for the admin user; `record.py` replaces it in the SQLite file with
  `{R.ADMIN_ID}` before anything refers to it, so `/users/me`, revision ids and every item id are
  the same from run to run; `Date` headers are the only clocks in the bodies read.
- Files/assets, flows, content versions, comments and the realtime (websocket) API are not
  recorded; neither is login (`/auth/login`): the static token stands in for a session.

## HAR producer notes

{producer_notes(summaries)}
- Every URL is `http://127.0.0.1:{R.APP_PORT}/…`. A `204` answer has no body; `POST /utils/sort`
  answers `200` with an empty body.
"""
