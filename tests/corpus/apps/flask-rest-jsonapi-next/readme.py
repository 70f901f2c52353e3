"""The captures' README for the flask-rest-jsonapi-next tracker (written by record.py after each recording)."""

from appdriver import CAPTURE_FILES
from harlib import app_version, producer_notes, render_steps, render_summary_table

import record as R
import seed as S

PINNED = ["flask-rest-jsonapi-next", "Flask", "Werkzeug", "SQLAlchemy", "marshmallow", "marshmallow-jsonapi-minfork"]


def seed_tables() -> str:
    rows = ["| type (collection) | id | what | other attributes |", "| --- | ---: | --- | --- |"]
    for i, (name, code, budget) in enumerate(S.PROJECTS, 1):
        rows.append(f"| project (`/projects`) | {i} | {name} | code={code}, budget={budget} |")
    for i, (name, role, email) in enumerate(S.PEOPLE, 1):
        rows.append(f"| person (`/people`) | {i} | {name} | role={role}, email={email} |")
    for i, (title, status, priority, estimate, project, assignee) in enumerate(S.TASKS, 1):
        proj = f"{project} ({S.PROJECTS[project - 1][0]})" if project else "null"
        who = f"{assignee} ({S.PEOPLE[assignee - 1][0]})" if assignee else "null"
        rows.append(f"| task (`/tasks`) | {i} | {title} | status={status}, priority={priority}, "
                    f"estimate={estimate}, project={proj}, assignee={who} |")
    return "\n".join(rows)


STYLES = """| style | here |
| --- | --- |
| `next` links, Link headers, page numbers | `page[number]` + `page[size]` (default 30); a paged list answers top-level `links` `self`, `first`, `last`, `next`, `prev` (absent when there is none), absolute URLs with the brackets percent-encoded (`?sort=title&page%5Bsize%5D=5&page%5Bnumber%5D=2`); an unpaged list answers only `self`; `meta.count` holds the filtered total |
| sort and filter parameters | simple filters `filter[field]=v` (equality; a comma list is `in`), on an attribute, on a relationship's id (`filter[assignee.id]=3`) or on a related attribute (`filter[project.code]=ORC`, `filter[assignee.name]=…`); the JSON filter `filter=[{"name","op","val"}]` with SQLAlchemy operators (`ge`, `le`, `ilike`); an unknown filter or sort field answers 400; `sort=-a,b`, also on a related attribute (`project.name`, `-assignee.name`: an outer join, unassigned first ascending); `fields[task]=a,b`; `include=project,assignee` (compound documents: `included`) |
| action routes, RPC bodies naming the targets | related routes (`GET /projects/<id>/tasks`, `/people/<id>/tasks`: the task list filtered by its parent) and relationship routes (`GET`/`PATCH /tasks/<id>/relationships/project`, `/tasks/<id>/relationships/assignee`; `GET`/`POST`/`DELETE /projects/<id>/relationships/tasks` with a list of identifiers) answering only `meta.message` on a write |
| generated ids nested in created objects | `POST` answers 201 with the created resource (`data.id` a string) |
| cascading deletes | deleting a person or a project clears the `assignee` or `project` of its tasks (SQLAlchemy's default for a loaded relationship): the task's linkage becomes `data: null` |
| validation errors and conflicts | `{"errors": [{"detail", "id", "source"?, "status", "title"}], "jsonapi"}`: 404 (missing item), 422 (a unique email or code that exists, a required title missing, a status not a choice), 400 (no `id` in a `PATCH` body, an unknown filter or sort), 409 (a type not the collection's) |
| fused ids, keyset cursors, upserts, ETag, documents, soft delete | no |"""


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    venv = R.HERE / ".venv"
    pins = ", ".join(f"`{d}=={app_version(venv, d)}`" for d in PINNED)
    return f"""# flask-rest-jsonapi-next captures

Real HTTP traffic of a small project tracker served as JSON:API by **flask-rest-jsonapi-next {ver}**
(Flask, marshmallow-jsonapi, SQLAlchemy with SQLite), the one-file app of `app.py` in this folder:
three models with the package's `ResourceList`, `ResourceDetail` and `ResourceRelationship` over
its SQLAlchemy data layer, schemas of `marshmallow_jsonapi.flask` whose relationships show their
identifiers (`include_resource_linkage=True`), `PATCH` partial (`patch_schema_kwargs`). Recorded on
loopback by `record.sh` in this folder: it installs {pins} from PyPI into `.venv`, and for each
capture removes `run/{R.DB}`, runs `seed.py`, starts `.venv/bin/python app.py run/{R.DB} {R.APP_PORT}`
(the stdlib's wsgiref server, 127.0.0.1 only, `PYTHONHASHSEED=0`), records through mitmdump on
port {R.PROXY_PORT}, and stops both by PID with SIGINT.

{CAPTURE_FILES}

{render_summary_table(summaries)}

## The app (`app.py`)

| collection | type | attributes | relationships |
| --- | --- | --- | --- |
| `/projects` | `project` | `name`, `code` (unique), `budget` | `tasks` (to-many: the tasks in it) |
| `/people` | `person` | `name`, `role`, `email` (unique) | `tasks` (to-many: the tasks assigned) |
| `/tasks` | `task` | `title` (required), `status` (a choice of todo, doing, done; default todo), `priority` (default 2), `estimate` (default 1) | `project` (to-one, nullable), `assignee` (to-one, nullable) |

Lists are in the database's order (by id) unless sorted. No attribute holds a clock value.

## Seed (the same before every capture; not recorded)

`seed.py` (the app's own Python) creates the tables and, in this order (so the ids are the same in
every capture):

{seed_tables()}

Every recorded request sends `Accept: {R.JSONAPI}`; writes send `Content-Type: {R.JSONAPI}`.
Query strings are written with their brackets unencoded (`filter[status]=todo`); a value holding a
space or a JSON filter is percent-encoded. Pages are followed through the server's own
`links.next`.

{render_steps(steps)}
## What each capture tests

- **build.har** — the three collections; filters on an attribute, a comma list, a relationship's
  id (`filter[assignee.id]=3`, `filter[project.id]=1`), two filters at once, related attributes
  (`filter[project.code]`, `filter[assignee.name]`), JSON filters (`ge`, `ilike`); sorts
  (`-priority,title`, `estimate,id`, people by `-name`, tasks by `project.name,title` and by
  `-assignee.name`); sparse fields; pages of 5 and of 2 (filtered) followed through `links.next`;
  includes on lists and an item; items (one with a null assignee); related routes and
  relationship routes; missing task and person (404); an unknown filter and sort (400). Then the
  writes, each followed by reads: create a task (201), `PATCH` two attributes, move it by
  `PATCH /tasks/<id>/relationships/project` (both projects' `tasks` identifiers read after), pass
  a task to another person through its relationship route; a person created, changed, given a
  task by a `relationships` member in a `PATCH`, deleted (the task's assignee becomes null); a
  project created with two tasks, one task deleted (the project's identifiers shrink), the project
  deleted (the other task's project becomes null); a task added to and removed from a project's
  to-many relationship route; refusals (an email that exists, a missing title, a status not a
  choice: 422; a type not the collection's: 409; a `PATCH` without `id`: 400; a missing task:
  404); the newest tasks, 5 a page, followed.
- **probe-reads.har** — filter values the build never used (doing, `todo,done`, assignee 4,
  project 3, two filters, another project code and assignee name, a related attribute the build
  never filtered on (`project.name`, `assignee.role`), an exact title, an estimate, JSON filters
  `le` and `ilike` with other values, people and projects by other fields, an empty answer); other
  sorts, also by `-project.name`, `assignee.name` (nulls first) and `project.code`; sparse fields;
  a page asked directly, pages of 3 and a filtered sorted paging of 2 followed to the end, a page
  past the end; other includes, items, related and relationship routes (a null to-one); missing
  task, project and person (404), another unknown filter and sort (400); items the build read,
  asked with `fields[task]` and with `include`.
- **probe-crud.har** — a task created in project 2, read in filtered lists and in its parents'
  identifiers, `PATCH`ed and moved to project 4 by its relationship route; a seeded task done and
  another deleted (its project's identifiers shrink), pages of 4 after; a person created, handed a
  task through its relationship route, deleted (the task's assignee becomes null); a project
  created with a task, deleted (the task's project becomes null); a project's to-many relationship
  route adding and removing tasks; refusals (an email and a code that exist: 422; a type not the
  collection's: 409; a missing task and person: 404); tasks the build read by id changed (an
  assignee cleared in a `PATCH` body) and deleted, each read back.

## API styles this app shows (corpus checklist)

{STYLES}

## What a faithful environment should do

**Envelopes.** A list answers `{{"data": [...], "included"?, "links": {{"self", "first"?, "last"?,
"next"?, "prev"?}}, "meta": {{"count"}}, "jsonapi": {{"version": "1.0"}}}}`; an item `{{"data": ...,
"links": {{"self"}}, "jsonapi"}}`. A resource is `{{"type", "id" (a string), "attributes",
"relationships", "links": {{"self": "/tasks/1"}}}}` (relative links); every relationship carries
its identifiers (`data`: an object or null to-one, a list to-many) and its relationship route as
`links.self` (to-many also `links.related`). A relationship route answers the identifiers only;
its writes answer `{{"meta": {{"message"}}}}`. A `PATCH` answers the whole updated resource, a
`DELETE` 200 with `{{"meta": {{"message": "Object successfully deleted"}}}}`.

**Not deterministic across captures.** Only the `Date` headers.

## What the captures cannot show

- The to-many relationship routes' writes and the relationship routes' to-one writes answer only a
  message: the changed linkage is seen only by a later read.
- Bulk writes and a sort without a total order across equal keys (the captures' sorts end on a
  unique key, or their ties fall in id order) are not recorded.

## HAR producer notes

{producer_notes(summaries)}
- The stdlib's wsgiref server answers HTTP/1.0 (`Server: WSGIServer/0.2 CPython/3.11.7`); answers
  are JSON (`application/vnd.api+json`), errors `{{"errors": [...]}}`.
"""
