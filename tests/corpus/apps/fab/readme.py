"""The captures' README for the Flask-AppBuilder tracker (written by record.py after each recording)."""

from appdriver import CAPTURE_FILES
from harlib import app_version, producer_notes, render_steps, render_summary_table

import record as R
import seed as S

PINNED = ["Flask-AppBuilder", "Flask", "Werkzeug", "SQLAlchemy", "Flask-SQLAlchemy", "marshmallow",
          "marshmallow-sqlalchemy", "prison", "Flask-JWT-Extended", "PyJWT"]


def seed_tables() -> str:
    names = {p["id"]: p["name"] for p in S.PEOPLE}
    codes = {p["id"]: p["code"] for p in S.PROJECTS}
    rows = ["| route | id | what | other columns |", "| --- | ---: | --- | --- |"]
    for p in S.PROJECTS:
        rows.append(f"| `/api/v1/project/` | {p['id']} | {p['name']} | code={p['code']}, status={p['status']}, "
                    f"budget={p['budget']} |")
    for p in S.PEOPLE:
        rows.append(f"| `/api/v1/person/` | {p['id']} | {p['name']} | role={p['role']}, email={p['email'] or 'null'} |")
    for t in S.TASKS:
        who = f"{t['assignee_id']} ({names[t['assignee_id']]})" if t["assignee_id"] else "null"
        est = t["estimate"] if t["estimate"] is not None else "null"
        rows.append(f"| `/api/v1/task/` | {t['id']} | {t['title']} | status={t['status']}, priority={t['priority']}, "
                    f"estimate={est}, project={t['project_id']} ({codes[t['project_id']]}), assignee={who} |")
    return "\n".join(rows)


STYLES = """| style | here |
| --- | --- |
| `next` links, Link headers, page numbers | none: `page` (from 0) and `page_size` (default 20) inside the Rison `q`; a list answers `count` (every match) and `ids` (the page's ids in order) beside `result`; a page past the end answers no rows |
| sort and filter parameters | one Rison parameter `q`: `filters:!((col:status,opr:eq,value:todo),…)` (every filter holds), operators per column type (text: `sw`, `ew`, `ct`, `eq`, `nsw`, `new`, `nct`, `neq`, `in`, `not_in`; numbers: `eq`, `gt`, `lt`, `neq`, `in`, `not_in`; a relation: `rel_o_m`, `nrel_o_m` with the related id), `order_column` with `order_direction` (`asc`/`desc`), `columns:!(id,title)` (a subset of the list's columns, the metadata narrowed to them), `keys:!(list_columns)` or `keys:!(none)` (which metadata members answer); an unknown filter column or order column answers 400 `{message}`; `_info` describes the columns, filters and permissions |
| action routes, RPC bodies naming the targets | `_info` (add/edit columns with a relation's possible values, filters, permissions); `POST /api/v1/security/login` answering `{access_token}` |
| generated ids nested in created objects | `POST` answers 201 `{id, result}` (`result` the sent columns with their defaults, relations as ids) |
| updates | `PUT` merges the columns sent and answers 200 `{result}` (every edit column, relations as ids); `DELETE` answers 200 `{message: "OK"}`; a project or person a task names refuses its delete (422, `FOREIGN KEY constraint failed`) |
| relation fields | a task lists `project: {id, code}` and `assignee: {id, name}` (or null) and shows `project.name` too; writes send `project`/`assignee` as the related id |
| validation errors and conflicts | 422 `{message: {column: [...]}}` (marshmallow: a missing required column, a wrong type), 422 `{message: "UNIQUE constraint failed: project.code"}`, 404 `{message: "Not found"}`, 400 `{message}` (a bad filter or order column), 401 without a token (not recorded) |
| fused ids, keyset cursors, upserts, documents, soft delete, ETags | no |"""


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    pins = ", ".join(f"`{d}=={app_version(R.VENV, d)}`" for d in PINNED)
    return f"""# Flask-AppBuilder (ModelRestApi) captures

Real HTTP traffic of a small project tracker served by **Flask-AppBuilder {ver}**'s `ModelRestApi`
(Flask + SQLAlchemy, SQLite): the app is `app.py` in this folder, its seed `seed.py` (projects,
people, tasks naming a project and an assignee). The database is a SQLite file in a temporary folder
made at every start; every start creates the tables, the API user and the seed with explicit ids,
so every capture starts from the same rows. No column holds a clock; the login token is the same in
every capture (Flask-JWT-Extended's clock frozen, its token ids counted; tokens never expire), and
no session cookie is set.
Recorded by `record.sh` in this folder: it makes a venv under `/tmp` and installs {pins} and the
rest of `requirements.txt` (every distribution pinned, PyPI), and for each capture starts
`python app.py {R.APP_PORT}` (Werkzeug, 127.0.0.1 only, `PYTHONHASHSEED=0`), records through
mitmdump on port {R.PROXY_PORT}, and stops both by PID with SIGINT.

{CAPTURE_FILES}

{render_summary_table(summaries)}

## The app (`app.py`): three `ModelRestApi`s under `/api/v1/`

| route | list columns | show columns | add and edit columns |
| --- | --- | --- | --- |
| `/api/v1/project/` | `id`, `code`, `name`, `status`, `budget` | the same | `code` (required, unique), `name` (required), `status` (default `active`), `budget` |
| `/api/v1/person/` | `id`, `name`, `email`, `role` | the same | `name` (required), `email`, `role` (default `engineer`) |
| `/api/v1/task/` | `id`, `title`, `status`, `priority`, `estimate`, `project.id`, `project.code`, `assignee.id`, `assignee.name` | those and `project.name` | `project` (required), `assignee`, `title` (required), `status` (default `todo`), `priority` (default 2), `estimate` |

Each answers `GET /` (the list, `?q=` Rison), `GET /<pk>` (`?q=(columns:…)`), `GET /_info`,
`POST /`, `PUT /<pk>`, `DELETE /<pk>`; SQLite checks foreign keys (`PRAGMA foreign_keys=ON`).

## Seed (the same before every capture; not recorded)

{seed_tables()}

Every capture logs in first as `{S.ADMIN['username']}` (the Admin role) and sends
`Authorization: Bearer <token>` on every later call; every request sends `Accept: application/json`,
writes with a body `Content-Type: application/json`. The Rison `q` is percent-encoded only where a
URL needs it (a space, a quote).

{render_steps(steps)}
## What each capture tests

- **build.har** — login, `_info` (whole and `keys:!(permissions)`), the three collections; pages of
  5 and 2; filters `eq`, `neq`, `gt`, `lt`, `ct`, `sw`, `ew`, `in` and `rel_o_m` on both relations,
  two filters at once, on all three collections; orders both ways on text and numbers (no estimate
  first); `columns`, `keys:!(list_columns)`, `keys:!(none)`, filter + order + page + columns
  together; items (one with `columns`) and 404s. Then the writes, each followed by reads: a task
  created, updated twice (moved to another project, unassigned), deleted; a person created,
  updated, deleted; a project created with a task, its delete refused (422), the task and the
  project deleted; refusals (422 missing columns, a taken code, a wrong type; 404 update and
  delete; 400 on an unknown filter and order column); the newest tasks, 5 a page.
- **probe-reads.har** — other values; operators the build never used (`nrel_o_m`, `nct`,
  `not_in`, `in` on numbers), other columns (`estimate gt`, a title by `eq` with spaces, people by
  name `sw`, projects by `code` and `budget lt`), no match; other orders (by email with a null,
  projects by code), other pages (4 and 3 a page, past the end, people 2 a page), other `columns`
  and `keys`; other items (and task 1 again), an item with `columns`, 404s, `_info` of people, a
  400.
- **probe-crud.har** — a task created in project 2, updated, moved to project 4 for another person;
  a seeded task done and another deleted; a person created without an email, updated, assigned a
  task, its delete refused while assigned (422), unassigned and deleted; a project created archived,
  reopened, deleted; refusals (422 missing name, a taken code, a project tasks name; 404); a task
  the build read reassigned and another deleted; the newest tasks after.

## API styles this app shows (corpus checklist)

{STYLES}

## What a faithful environment should do

**Envelopes.** A list answers `{{count, description_columns, ids, label_columns, list_columns,
list_title, order_columns, result}}` (`keys` narrows the metadata; `columns` narrows `result`,
`list_columns`, `label_columns` and `order_columns`); an item `{{description_columns, id,
label_columns, result, show_columns, show_title}}`; a create 201 `{{id, result}}`, an update
`{{result}}`, a delete `{{message: "OK"}}`. Keys are sorted (Flask's JSON).

**Not deterministic across captures.** The `Date` headers only.

## What the captures cannot show

- Many-to-many relations (`rel_m_m`), `_related/<column>` and the bulk delete (`DELETE /?q=!(…)`)
  are not exposed or not recorded; refresh tokens are not asked for.

## HAR producer notes

{producer_notes(summaries)}
- Werkzeug's development server answers HTTP/1.0 with `Connection: close`; answers are compact
  JSON with sorted keys.
"""
