"""The captures' README for the PiccoloCRUD tracker (written by record.py after each recording)."""

from appdriver import CAPTURE_FILES
from harlib import app_version, producer_notes, render_steps, render_summary_table

import record as R
import seed as S

PINNED = ["piccolo", "piccolo_api", "uvicorn", "starlette"]


def seed_tables() -> str:
    names = {p["id"]: p["name"] for p in S.PEOPLE}
    codes = {p["id"]: p["code"] for p in S.PROJECTS}
    rows = ["| route | id | what | other fields |", "| --- | ---: | --- | --- |"]
    for p in S.PROJECTS:
        rows.append(f"| `/api/projects/` | {p['id']} | {p['name']} | code={p['code']}, budget={p['budget']}, "
                    f"active={str(p['active']).lower()} |")
    for p in S.PEOPLE:
        rows.append(f"| `/api/people/` | {p['id']} | {p['name']} | role={p['role']}, email={p['email'] or 'null'} |")
    for t in S.TASKS:
        who = f"{t['assignee']} ({names[t['assignee']]})" if t["assignee"] else "null"
        rows.append(f"| `/api/tasks/` | {t['id']} | {t['title']} | status={t['status']}, priority={t['priority']}, "
                    f"due={t['due'] or 'null'}, project={t['project']} ({codes[t['project']]}), "
                    f"assignee={who}, created_at={t['created_at'].isoformat()} |")
    return "\n".join(rows)


STYLES = """| style | here |
| --- | --- |
| `next` links, Link headers, page numbers | none: `__page` (from 1) and `__page_size` (tasks 6 by default, projects and people 15, at most 20: more answers 403 `{"error": …}`) in a `{"rows": […]}` envelope without a total; a page past the end answers no rows; `/count/` answers `{count, page_size}` |
| sort and filter parameters | a field's own name with its value; on a text column a case-blind `contains` match, `FIELD__match=starts|ends|exact|contains` says otherwise; on other columns equality, `FIELD__operator=lt|lte|gt|gte|e|ne|is_null|not_null` a separate parameter (`is_null`/`not_null` need no value); `__order=-priority,title` (several keys, or the parameter repeated); default order: the primary key descending; `__visible_fields=id,title` (the row holds only those); `__readable=true` (a foreign key's readable form as `FIELD_readable`); an unknown operator answers 400 as plain text |
| action routes, RPC bodies naming the targets | `/ids/` (`{id: readable}`, `search`, `limit`, `offset`), `/count/`, `/schema/` (JSON Schema), `/new/` (a new row's defaults) |
| generated ids nested in created objects | `POST` answers 201 `[{"id": N}]` (the next SQLite rowid: a deleted last id is drawn again) |
| updates | `PUT` answers 204 without a body (only the fields sent are written); `PATCH` answers the whole row; `DELETE` answers 204; a project's delete deletes its tasks (cascade), a person's clears their tasks' assignee (set null) |
| relation fields | a task's `project` and `assignee` are primary keys |
| validation errors and conflicts | 400 with pydantic's error text (plain text); 404 `The resource doesn't exist` (plain text) |
| fused ids, keyset cursors, upserts, documents, soft delete, ETags | no; `created_at` defaults to a fixed clock |"""


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    pins = ", ".join(f"`{d}=={app_version(R.VENV, d)}`" for d in PINNED)
    return f"""# Piccolo API captures

Real HTTP traffic of a small project tracker served by **piccolo-api**'s `PiccoloCRUD`
(`piccolo_api` {ver}) on Starlette: the app is `app.py` in this folder, its seed `seed.py`
(projects, people, tasks naming a project and an assignee). The database is a Piccolo SQLite file in
a temporary folder made at every start; every start creates the tables and the seed with explicit
ids and clocks, and a created task's `created_at` defaults to {R.APP_CLOCK}, so every capture starts
from the same rows and writes the same clocks.
Recorded by `record.sh` in this folder: it makes a venv under `/tmp` and installs
{pins}
(the `==` pins of `requirements.txt`, PyPI), and for each capture starts `python app.py {R.APP_PORT}`
(uvicorn, 127.0.0.1 only), records through mitmdump on port {R.PROXY_PORT}, and stops both by PID
with SIGINT.

{CAPTURE_FILES}

{render_summary_table(summaries)}

## The app (`app.py`): three PiccoloCRUD endpoints under `/api/`

| route | fields | page size |
| --- | --- | --- |
| `/api/projects/` | `id`, `code` (required, unique), `name` (required), `budget`, `active` | 15 (at most 20) |
| `/api/tasks/` | `id`, `title` (required), `status`, `priority`, `due` (a date or null), `project` (a foreign key, required; cascade), `assignee` (a foreign key or null; set null), `created_at` (a timestamp, default the fixed clock) | 6 (at most 20) |
| `/api/people/` | `id`, `name` (required), `email` (may be null), `role` | 15 (at most 20) |

Each also answers `/count/`, `/ids/`, `/schema/`, `/new/`, `/references/` and `/{{id}}/` (GET, PUT,
PATCH, DELETE). A create or a PUT sends every field: PiccoloCRUD's model sends a field left out as
null, which a NOT NULL column refuses (422 `{{"db_error": …}}`, not recorded).

## Seed (the same before every capture; not recorded)

{seed_tables()}

Every recorded request sends `Accept: application/json`; writes with a body send `Content-Type:
application/json`. Query values are percent-encoded, commas kept.

{render_steps(steps)}
## What each capture tests

- **build.har** — the three collections (tasks by page number); equality on text (a contains
  match), a foreign key, two fields; `__operator` `gte`, `lt`, `lte`, `ne`, `is_null` (on a date and
  a foreign key), a date `gte`; `__match` `starts`, `ends`, `exact`; orders by one key both ways and
  by two; pages by `__page`/`__page_size`, a page past the end, a page size over the limit (403);
  `__visible_fields` on lists and an item, `__readable` on lists and an item; counts (filtered),
  ids (with `search`), a new row's defaults, a schema; items and 404s. Then the writes, each
  followed by reads: a task created, patched, put, deleted; a person created, patched, deleted; a
  project created with a task, put, deleted (its task with it); refusals (400 missing fields, an
  unknown operator, 404s).
- **probe-reads.har** — other values, `gt` and `e` (never in the build), other operators and
  combinations, a contains match in capitals, `ends` and `exact` on other values, `not_null`, a date
  `lte`; other orders (a repeated `__order`), other pages, visible fields and readable rows, counts,
  ids (`search`, `limit`), another table's `/new/` and `/schema/`; other items, 404s.
- **probe-crud.har** — a task created in project 2, patched, put into project 4 for another person;
  a seeded task patched and another deleted; a person created, patched, put, deleted; a seeded
  person deleted (their tasks lose the assignee); a project created, put, given a task, deleted (the
  task with it); refusals (400, 404); a task the build read patched (reassigned) and another deleted.

## API styles this app shows (corpus checklist)

{STYLES}

## What a faithful environment should do

**Envelopes.** Lists answer `{{"rows": […]}}`, newest first unless `__order` says otherwise; an
item and a PATCH the row; a create `[{{"id": N}}]`; a PUT and a DELETE 204 without a body; `/count/`
`{{count, page_size}}`; `/ids/` an object from id to readable name. Refusals are plain text (400,
404) or `{{"error": …}}` (403).

**Not deterministic across captures.** The `date` headers only (the clock is fixed).

## What the captures cannot show

- The clock a create writes is the column's fixed default; a live app's would move.

## HAR producer notes

{producer_notes(summaries)}
- uvicorn answers HTTP/1.1 (`server: uvicorn`); the plain-text refusals (400, 404) carry no
  `Content-Type` (Starlette's `Response` given no media type).
"""
