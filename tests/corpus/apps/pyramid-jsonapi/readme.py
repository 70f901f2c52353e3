"""The captures' README for the pyramid-jsonapi tracker (written by record.py after each recording)."""

from appdriver import CAPTURE_FILES
from harlib import app_version, producer_notes, render_steps, render_summary_table

import record as R
import seed as S

PINNED = ["pyramid-jsonapi", "pyramid", "SQLAlchemy", "rqlalchemy", "pyrql", "WebOb", "setuptools"]


def seed_tables() -> str:
    names = {p["id"]: p["name"] for p in S.PEOPLE}
    codes = {p["id"]: p["code"] for p in S.PROJECTS}
    rows = ["| route | id | what | other fields |", "| --- | ---: | --- | --- |"]
    for p in S.PROJECTS:
        rows.append(f"| `/api/projects` | {p['id']} | {p['name']} | code={p['code']}, status={p['status']}, "
                    f"budget={p['budget'] if p['budget'] is not None else 'null'} |")
    for p in S.PEOPLE:
        rows.append(f"| `/api/people` | {p['id']} | {p['name']} | role={p['role']}, email={p['email'] or 'null'} |")
    for t in S.TASKS:
        who = f"{t['assignee_id']} ({names[t['assignee_id']]})" if t["assignee_id"] else "null"
        est = t["estimate"] if t["estimate"] is not None else "null"
        rows.append(f"| `/api/tasks` | {t['id']} | {t['title']} | status={t['status']}, priority={t['priority']}, "
                    f"estimate={est}, project={t['project_id']} ({codes[t['project_id']]}), assignee={who} |")
    return "\n".join(rows)


STYLES = """| style | here |
| --- | --- |
| `next` links, Link headers, page numbers | `page[limit]` (default 10, at most 100) and `page[offset]`; `links` `first` always, `next`/`prev` once an offset is given or more rows follow, `last` only with `pj_include_count=true` (which also fills `meta.results.available`), all absolute URLs with the brackets percent-encoded and `sort=id` added (a descending sort's `-` dropped: a quirk of the package); `links.self` the call's URL as sent; `meta.results` `{available, limit, returned}` |
| sort and filter parameters | `filter[field:op]=value` (every filter holds): `eq` (the default without `:op`), `ne`, `lt`, `gt`, `le`, `ge`, `like`/`ilike` (`*` the wildcard), `startswith`, `endswith`, `contains` on columns, the hidden foreign keys `project_id`/`assignee_id` too, and on a related resource's columns (`filter[project.code:eq]=OPS`); RQL in `filter[*rql]=or(eq(status,done),in(status,(todo,doing)))`; `sort=-a,b` (also `project.name`); 400 on an unknown field, sort or operator |
| sparse fields and includes | `fields[tasks]=title,status` (leaves the relationships out too), `include=project,assignee` (compound documents, `included` in first-seen order: each primary resource's related resources in relationship order, no repeats) |
| related routes and relationships | `GET /api/tasks/1/project`, `/api/projects/2/tasks`, `GET /api/tasks/1/relationships/project` (identifiers), `PATCH` of a to-one relationship (200 answering the new identifier), `POST` to a to-many one (200 answering every identifier; moving the task), `DELETE` from a to-many one refused 424 when the task needs its project |
| generated ids nested in created objects | `POST` answers 201 with the resource, its generated id in `data.id` (SQLite rowids: a deleted last id is drawn again) |
| updates | `PATCH` with `{data: {type, id, attributes?, relationships?}}` answers 200 with the resource and `meta.updated`; `DELETE` answers 200 with the identifier; a person's delete clears their tasks' `assignee` (SQLAlchemy nulls the loaded relationship); a project's delete while a task names it is refused 424 (the task's project may not be null) |
| validation errors and conflicts | error objects `{errors: [{code, detail, title}]}`: 404 `No item 99 in tasks`, 409 `Conflict` (a missing required field, a status the CHECK refuses, a taken project code, each with the SQLite message; a type that is not the collection's), 424 `Failed Dependency` (a delete a NOT NULL foreign key forbids), 400 `Bad Request` |
| fused ids, keyset cursors, upserts, documents, soft delete, ETags | no |"""


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    pins = ", ".join(f"`{d}=={app_version(R.VENV, d)}`" for d in PINNED)
    return f"""# pyramid-jsonapi captures

Real HTTP traffic of a small project tracker served as JSON:API by **pyramid-jsonapi {ver}**
(Pyramid + SQLAlchemy 1.4, SQLite): the app is `app.py` in this folder, its seed `seed.py`
(projects, people, tasks naming a project and an assignee). The database is a SQLite file in a
temporary folder made at every start; every start creates the tables and the seed with explicit
ids, so every capture starts from the same rows. No field holds a clock. Each request gets its own
SQLAlchemy session, committed by a tween when the answer is a success and rolled back otherwise (the
role `pyramid_tm` plays in the package's examples). The app is served by the standard library's
`wsgiref` with `PYTHONHASHSEED=0` (the package orders attributes through a set), so re-recording
answers the same bytes (recorded twice: every request, status and body identical).
Recorded by `record.sh` in this folder: it makes a venv under `/tmp` and installs {pins} and the
rest of `requirements.txt` (every distribution pinned, PyPI; pyramid-jsonapi 2.2.13 is an sdist
built without build isolation, its `setup.py` importing `pkg_resources`; it needs SQLAlchemy 1.4,
rqlalchemy 0.4 and imports `psycopg2` even over SQLite), and for each capture starts
`python app.py {R.APP_PORT}` (127.0.0.1 only), records through mitmdump on port {R.PROXY_PORT}, and
stops both by PID with SIGINT.

{CAPTURE_FILES}

{render_summary_table(summaries)}

## The app (`app.py`): three collections under `/api/`

| route | attributes | relationships |
| --- | --- | --- |
| `/api/projects` | `code` (required, unique), `name` (required), `status` (default `active`), `budget` | `tasks` (to-many) |
| `/api/people` | `name` (required), `email`, `role` (default `engineer`) | `tasks` (to-many) |
| `/api/tasks` | `title` (required), `status` (`todo`/`doing`/`done`, default `todo`), `priority` (default 2), `estimate`; the foreign keys `project_id`, `assignee_id` are not shown but filterable | `project` (to-one, required), `assignee` (to-one) |

Each answers `GET` on the collection, the item, its related resources and relationships, `POST` on
the collection, `PATCH` and `DELETE` on the item, and relationship writes; SQLite checks foreign
keys (`PRAGMA foreign_keys=ON`). Every resource has `links.self`, every relationship its `data`,
`links` `self`/`related` (absolute) and `meta.direction`.

## Seed (the same before every capture; not recorded)

{seed_tables()}

Every request sends `Accept: application/vnd.api+json`, writes `Content-Type:
application/vnd.api+json`. Brackets in parameter names are sent as written; values are
percent-encoded.

{render_steps(steps)}
## What each capture tests

- **build.har** — the three collections, the default page of 10 followed through `links.next`,
  pages of 5 and 2 by offset, a counted page followed; filters `eq`, `ne`, `lt`, `ge`, `le`, `like`,
  `ilike`, `startswith`, `contains`, the foreign keys, two filters, related fields, RQL `or` and
  `in`, no match; sorts both ways, two keys, nulls, a related field; `fields`, `include` on lists
  and items, filter + sort + fields + page followed; items, 404s, related resources and
  relationships (null ones too), 400s. Then the writes, each followed by reads: a task created,
  updated, moved by its relationship route (its related project read after), unassigned by a PATCH
  body (its linkage read after), deleted; a person created, updated, given a task by the task's
  relationship route and another by a `POST` to their tasks (their related tasks and the task's
  related assignee read after), deleted (the task unassigned); a project created with a task, its
  delete refused (424), the task and the project deleted; a task moved by a `POST` to a project's
  tasks (its linkage read after); refusals (424 a to-many removal, 409 integrity, check, unique and
  wrong type, 404 update and delete).
- **probe-reads.har** — other values; operators the build never used (`gt`, `endswith`, `ne` on a
  foreign key), other related fields, an RQL `or` with other conditions, people and projects
  filtered by other fields; other sorts and pages (past the end), other `fields` and includes; other
  items (and task 1 again), related routes and relationships for other ids, 404s, a 400.
- **probe-crud.har** — a task created in project 2, updated, moved to project 4 by its relationship
  route (its linkage read after) and assigned; a seeded task done and another deleted; a person
  created without an email, updated, given tasks by both relationship routes, deleted (the tasks
  unassigned); a project created archived, reopened, deleted; a task moved by a `POST` to a
  project's tasks (its related project read after); refusals (409 missing name, 409 a taken code,
  404, 424 a project tasks name); a task the build read reassigned and another deleted; the newest
  tasks after.

## API styles this app shows (corpus checklist)

{STYLES}

## What the captures cannot show

- Client-generated ids are refused (`allow_client_ids` off, not recorded); the JSON Schema and
  OpenAPI metadata endpoints (`/metadata/...`) are not called.
- The body of the `DELETE` from a to-many relationship (`DELETE /api/projects/2/relationships/tasks`
  naming task 6, refused 424) was sent but is not in the HAR: this mitmproxy's HAR writer keeps
  `postData` for POST, PUT and PATCH only.
- The package logs `Invalid response: HTTPOk` for the to-many relationship POSTs (it expects 204
  there) and answers them 200 with the whole linkage anyway; that is what is recorded.

## HAR producer notes

{producer_notes(summaries)}
- `wsgiref` answers HTTP/1.0 without keep-alive; answers are JSON in the package's member order
  (`links`, `data`, `included`, `meta`).
"""
