"""The captures' README for the safrs tracker (written by record.py after each recording)."""

from appdriver import CAPTURE_FILES
from harlib import app_version, producer_notes, render_steps, render_summary_table

import record as R
import seed as S

PINNED = ["safrs", "Flask", "Flask-SQLAlchemy", "SQLAlchemy", "Werkzeug"]


def seed_tables() -> str:
    rows = ["| type (collection) | id | what | other attributes |", "| --- | ---: | --- | --- |"]
    for i, (username, full_name, email, role) in enumerate(S.USERS, 1):
        rows.append(f"| User (`users`) | {i} | `{username}` ({full_name}) | email={email}, role={role} |")
    codes = {}
    for i, (code, name, status) in enumerate(S.PROJECTS, 1):
        codes[code] = i
        rows.append(f"| Project (`projects`) | {i} | `{code}` {name} | status={status} |")
    users = {u[0]: i for i, u in enumerate(S.USERS, 1)}
    for i, (title, status, priority, estimate, code, assignee) in enumerate(S.TASKS, 1):
        who = f"{users[assignee]} ({assignee})" if assignee else "null"
        rows.append(f"| Task (`tasks`) | {i} | {title} | status={status}, priority={priority}, estimate={estimate}, "
                    f"project_id={codes[code]} ({code}), assignee_id={who} |")
    return "\n".join(rows)


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    venv = R.HERE / ".venv"
    pins = ", ".join(f"`{d}=={app_version(venv, d)}`" for d in PINNED)
    return f"""# safrs (JSON:API) captures

Real HTTP traffic of a small tracker served as JSON:API by **safrs {ver}** (Flask + SQLAlchemy,
SQLite), the app of `app.py` in this folder: three models exposed with `SAFRSAPI.expose_object`,
nothing else. Recorded on loopback by `record.sh` in this folder: it installs {pins} from PyPI
into `.venv`, and for each capture removes `run/{R.DB}`, runs `seed.py`, starts
`.venv/bin/python app.py run/{R.DB} {R.APP_PORT}` (Werkzeug's server, 127.0.0.1 only,
`PYTHONHASHSEED=0`), records through mitmdump on port {R.PROXY_PORT}, and stops both by PID with
SIGINT.

{CAPTURE_FILES}

{render_summary_table(summaries)}

## The app (`app.py`)

| collection | type | attributes | relationships |
| --- | --- | --- | --- |
| `/api/users` | `User` | `username` (unique), `full_name`, `email`, `role` (default `member`) | `tasks` (to-many: the tasks assigned) |
| `/api/projects` | `Project` | `code` (unique), `name`, `status` (default `active`) | `tasks` (to-many) |
| `/api/tasks` | `Task` | `title` (required), `status` (default `todo`), `priority` (default 2), `estimate`, `project_id` (required), `assignee_id` | `project`, `assignee` (to-one) |

No attribute holds a clock value. The models hash by their class and id (`Hashed` in `app.py`):
safrs keeps the instances an `include=` adds in a Python set and answers `included` in that set's
order, which with the default identity hash changes from run to run.

## Seed (the same before every capture; not recorded)

`seed.py` (the app's own Python) creates the tables and, in this order (so the ids are the same in
every capture):

{seed_tables()}

Every recorded request sends `Accept: {R.JSONAPI}`; writes send `Content-Type: {R.JSONAPI}`.
Query strings are written with their brackets unencoded (`filter[status]=todo`), as the server's own
page links spell them; a value holding a space is percent-encoded.

{render_steps(steps)}
## What each capture tests

- **build.har** — the three collections; filters on an attribute (`filter[status]=todo`), a comma
  list (`filter[status]=done,doing`, SQL `IN`), a foreign key (`filter[project_id]=2`), two filters
  at once; sorts (`sort=-priority,title`, `sort=estimate`, `sort=-username`); sparse fields
  (`fields[Task]=title,status`); pages of 4 and of 2 (filtered) followed through `links.next`;
  `include=project` and `include=assignee,project` on lists and `include=tasks` on an item; items;
  relationship routes (`/tasks/4/project`, `/tasks/4/assignee`, `/projects/2/tasks`,
  `/users/2/tasks`); missing task and user (404). Then the writes, each followed by reads: create a
  task (201 with the generated id), `PATCH` two attributes, `PATCH` the to-one relationship
  `/tasks/<id>/assignee`; create and archive a project, a task in it, the project's delete refused
  while the task names it (409), the task and the project deleted (204, then 404); a user created,
  assigned a task and deleted (the task's `assignee_id` becomes null); refusals (a project code that
  exists: 409; a type not the collection's: 400; a `PATCH` without `id`: 400; a missing task:
  404); the newest tasks, 5 a page, followed.
- **probe-reads.har** — filter values the build never used (`doing`, `todo,done`, project 3,
  projects `1,3`, alice, priority 2 with todo, an exact title with spaces, a status no task has,
  archived projects, leads, a username), other sorts (`-estimate,title`, `status,-priority`,
  `title`, projects by `-code`, users by `full_name`), other sparse fields, filter + sort + fields
  together; a page asked directly (`page[offset]=4&page[limit]=2`), an offset off a page boundary,
  pages of 5 and a filtered sorted paging of 3 followed to the end, users 2 a page, an offset past
  the end; other includes (`include=project` with a filter, `include=assignee` on a page, an item
  with `include=tasks` and `include=assignee`), other items and relationships (an empty to-one
  answers 404 `"Not Found"`);
  missing task, project and user (404); items the build read, asked with `fields[Task]`,
  by their `links.self` (trailing slash) and with `include=tasks`.
- **probe-crud.har** — a task created in project 3, read in filtered lists and its project's
  relationship, `PATCH`ed (title, priority) and moved by `PATCH /tasks/<id>/project`; a seeded task
  set done and another deleted, the lists and pages of 4 read after; a project created, renamed,
  its delete refused while a task names it (409), then deleted; a user created, assigned a task,
  listed by role, deleted (its task's `assignee_id` becomes null); refusals (a username that exists
  and a task without a title: 409; a type not the collection's: 400; a missing task and user: 404);
  tasks the build read by id (1 and 4) changed and one deleted, each read back.

## API styles this app shows (corpus checklist)

| style | here |
| --- | --- |
| `next` links, Link headers, page numbers | `page[offset]` + `page[limit]` (default 250); a list answers top-level `links` with `self` and, where they differ from it, `first`, `prev`, `next`, `last`: each repeats the call's other query pairs in the order sent and puts `page[offset]=N&page[limit]=M` last, under the collection path with a trailing slash (`/api/tasks/?…`); `meta.count` and `meta.total` are the filtered count, `meta.limit` the page size |
| sort and filter parameters | `filter[attr]=v` (equality; `a,b` is `IN`) on any attribute, foreign keys included; a filter on an unknown attribute answers an empty list; `sort=-a,b`; `fields[Type]=a,b`; `include=rel,rel` (compound documents: `included`) |
| action routes, RPC bodies naming the targets | relationship routes: `GET`/`PATCH /tasks/<id>/project` (to-one), `GET /projects/<id>/tasks` (to-many) |
| generated ids nested in created objects | `POST` answers 201 with the created resource (`data.id` a string) and `Location` |
| cascading deletes | deleting a user clears `assignee_id` of its tasks; deleting a project a task names is refused (409) |
| validation errors and conflicts | `{{"errors": [{{"title", "detail", "code"}}]}}`: 404 (missing item), 409 (a unique value that exists, a required attribute missing, a delete a foreign key forbids), 400 (a type not the collection's, no `id` in a `PATCH` body) |
| fused ids, operator query languages, keyset cursors, upserts, ETag, documents, soft delete | no |

## What a faithful environment should do

**Envelopes.** Every answer is JSON:API: `{{"data", "included", "jsonapi": {{"version": "1.0"}},
"links", "meta"}}`. A resource is `{{"attributes", "id" (a string), "links": {{"self":
"/api/<coll>/<id>/"}}, "relationships", "type"}}`; a relationship's `data` is null (to-one) or `[]`
(to-many) unless that relationship was included, then `{{"id", "type"}}` identifiers. An item
answers `links.self` (and `links.related` when the path differs from it, e.g. with a query) and
`meta.instance_meta: {{}}`, `meta.count: 1`, `meta.limit: 250`; a relationship route answers the
related resource(s) with an absolute `links.self` (`{R.APP_PORT}` in it). A `PATCH` answers the
whole updated resource, a `DELETE` 204 with no body.

**Not deterministic across captures.** Only the `Date` headers. Ids, bodies, links and `included`
order are the same in every capture.

## What the captures cannot show

- safrs's JSON `filter=` expressions (`[{{"name", "op", "val"}}]`) and its RPC methods
  (`@jsonapi_rpc`) are not exposed by this app; the Swagger UI is off.
- Bulk creates (a `data` array) and to-many relationship writes are not recorded.

## HAR producer notes

{producer_notes(summaries)}
- Werkzeug's development server answers HTTP/1.0 with `Connection: close`; answers are compact JSON
  (`application/vnd.api+json`), errors `{{"errors": [...]}}` with a space after each separator.
"""
