"""The captures' README for the Flask-Restless-NG tracker (written by record.py after each recording)."""

from appdriver import CAPTURE_FILES
from harlib import app_version, producer_notes, render_steps, render_summary_table

import record as R
import seed as S

PINNED = ["Flask-Restless-NG", "Flask", "Werkzeug", "SQLAlchemy", "Flask-SQLAlchemy"]


def seed_tables() -> str:
    names = {p["id"]: p["name"] for p in S.PEOPLE}
    codes = {p["id"]: p["code"] for p in S.PROJECTS}
    rows = ["| route | id | what | other fields |", "| --- | ---: | --- | --- |"]
    for p in S.PROJECTS:
        rows.append(f"| `/api/project` | {p['id']} | {p['name']} | code={p['code']}, status={p['status']}, "
                    f"budget={p['budget'] if p['budget'] is not None else 'null'} |")
    for p in S.PEOPLE:
        rows.append(f"| `/api/person` | {p['id']} | {p['name']} | role={p['role']}, email={p['email'] or 'null'} |")
    for t in S.TASKS:
        who = f"{t['assignee_id']} ({names[t['assignee_id']]})" if t["assignee_id"] else "null"
        est = t["estimate"] if t["estimate"] is not None else "null"
        rows.append(f"| `/api/task` | {t['id']} | {t['title']} | status={t['status']}, priority={t['priority']}, "
                    f"estimate={est}, project={t['project_id']} ({codes[t['project_id']]}), assignee={who} |")
    return "\n".join(rows)


STYLES = """| style | here |
| --- | --- |
| `next` links, Link headers, page numbers | `page[number]` (from 1) and `page[size]` (default 10, at most 50); `links` `first`/`last`/`next`/`prev` as absolute URLs echoing the filter list and sort unencoded (`prev`/`next` null at the ends), `links.self` the bare collection path, a `Link` header with the same, `meta.total` every match |
| sort and filter parameters | `filter[objects]=[{"name", "op", "val"}]` (a JSON list, every condition holds; `{"or": [...]}`/`{"and": [...]}` nest): `eq`, `neq`, `lt`, `le`, `gt`, `ge`, `like`, `ilike`, `not_like`, `in`, `not_in`, `is_null`, `is_not_null` on columns (foreign keys `project_id`, `assignee_id` too), `has` (a to-one relation's condition) and `any` (a to-many's); `sort=-a,b` (also `project.name`, a join); 400 on an unknown field, an unknown sort and a filter that is no JSON list |
| sparse fields and includes | `fields[task]=title,status` (leaves the relationships out too), `include=project,assignee` (compound documents, `included`) |
| related routes and relationships | `GET /api/task/1/project`, `/api/project/2/tasks`, `/api/project/1/tasks/2` (a member of a to-many), `GET /api/task/1/relationships/project` (identifiers), `PATCH` of a to-one relationship and `POST` to a to-many one (moving the task), all 204 |
| generated ids nested in created objects | `POST` answers 201 with the resource, its generated id in `data.id`, and `Location` |
| updates | `PATCH` with `{data: {type, id, attributes?, relationships?}}` answers 204 without a body; `DELETE` 204; a person's delete clears their tasks' `assignee` (SQLAlchemy nulls the loaded relationship); a project's delete while a task names it is refused 400 (the task's project may not be null) |
| validation errors and conflicts | error objects `{errors: [{status, title, detail, …}]}`: 404 `No resource with ID 99`, 400 `Integrity Error` (a missing required field, with the SQL statement in `detail`), 400 `Validation error` (a task status that is no choice), 409 `Integrity Error` (a taken project code), 409 a type that is not the collection's |
| fused ids, keyset cursors, upserts, documents, soft delete, ETags | no |"""


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    pins = ", ".join(f"`{d}=={app_version(R.VENV, d)}`" for d in PINNED)
    return f"""# Flask-Restless-NG captures

Real HTTP traffic of a small project tracker served as JSON:API by **Flask-Restless-NG {ver}**'s
`APIManager` (Flask + Flask-SQLAlchemy, SQLite): the app is `app.py` in this folder, its seed
`seed.py` (projects, people, tasks naming a project and an assignee). The database is a SQLite file
in a temporary folder made at every start; every start creates the tables and the seed with
explicit ids, so every capture starts from the same rows. No field holds a clock. Flask-Restless-NG
gathers a compound document's `included` resources in a set, in an order that changes from run to
run; the app sorts them by type and id (a postprocessor on every read), so re-recording answers the
same bytes (recorded twice: every request, status and body identical).
Recorded by `record.sh` in this folder: it makes a venv under `/tmp` and installs {pins} and the
rest of `requirements.txt` (every distribution pinned, PyPI), and for each capture starts
`python app.py {R.APP_PORT}` (Werkzeug, 127.0.0.1 only, `PYTHONHASHSEED=0`), records through
mitmdump on port {R.PROXY_PORT}, and stops both by PID with SIGINT.

{CAPTURE_FILES}

{render_summary_table(summaries)}

## The app (`app.py`): three APIs under `/api/`

| route | attributes | relationships |
| --- | --- | --- |
| `/api/project` | `code` (required, unique), `name` (required), `status` (default `active`), `budget` | `tasks` (to-many) |
| `/api/person` | `name` (required), `email`, `role` (default `engineer`) | `tasks` (to-many) |
| `/api/task` | `title` (required, not empty), `status` (`todo`/`doing`/`done`, default `todo`), `priority` (default 2), `estimate`, and the foreign keys are filterable (`project_id`, `assignee_id`) but not shown | `project` (to-one, required), `assignee` (to-one) |

Each answers `GET` on the collection, the item, its related resources and relationships, `POST` on
the collection, `PATCH` and `DELETE` on the item, and relationship writes; SQLite checks foreign
keys (`PRAGMA foreign_keys=ON`).

## Seed (the same before every capture; not recorded)

{seed_tables()}

Every request sends `Accept: application/vnd.api+json`, writes `Content-Type:
application/vnd.api+json`. Brackets in parameter names are sent as written; values (the filter
list's JSON too) are percent-encoded.

{render_steps(steps)}
## What each capture tests

- **build.har** — the three collections, the default page of 10 followed through `links.next`,
  pages of 5 and 2; filters `eq`, `neq`, `lt`, `ge`, `le`, `like`, `ilike`, `in`, `not_in`,
  `is_null`, foreign keys, two conditions, `has` on both to-one relations, `any` on a to-many, an
  `or`, no match; sorts both ways, two keys, nulls, a related field; `fields`, `include`, filter +
  sort + fields + page followed; items, 404s, related resources and relationships (null ones too),
  a to-many member, 400s. Then the writes, each followed by reads: a task created, updated, moved
  by its relationship route, unassigned by a PATCH body, deleted; a person created, updated,
  assigned a task, deleted (the task unassigned); a project created with a task, its delete refused
  (400), the task and the project deleted; a task moved by a `POST` to a project's tasks;
  refusals (400 integrity and validation, 409 unique and wrong type, 404 update and delete).
- **probe-reads.har** — other values; operators the build never used (`gt`, `not_like`,
  `is_not_null`, `in` on numbers, `neq` on a foreign key), `has` on other fields, an `or` with
  other conditions, people and projects filtered by other fields; other sorts and pages (past the
  end), other `fields` and includes; other items (and task 1 again), related routes for other ids,
  404s, a 400.
- **probe-crud.har** — a task created in project 2, updated, moved to project 4 and assigned; a
  seeded task done and another deleted; a person created without an email, updated, assigned,
  deleted (the task unassigned); a project created archived, reopened, deleted; a task moved by a
  `POST` to a project's tasks; refusals (400 missing name, 409 a taken code, 404, 400 a project
  tasks name); a task the build read reassigned and another deleted; the newest tasks after.

## API styles this app shows (corpus checklist)

{STYLES}

## What the captures cannot show

- `allow_to_many_replacement` and deletes from a to-many relationship are off (the app's
  defaults); client-generated ids are refused (not recorded).

## HAR producer notes

{producer_notes(summaries)}
- Werkzeug's development server answers HTTP/1.0 with `Connection: close`; answers are JSON with
  sorted keys.
"""
