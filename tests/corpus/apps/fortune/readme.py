"""The captures' README for the Fortune.js tracker (written by record.py after each recording)."""

from appdriver import CAPTURE_FILES, npm_version
from harlib import producer_notes, render_steps, render_summary_table

import record as R

PINNED = ["fortune", "fortune-http", "fortune-json-api"]


def seed_tables() -> str:
    names = {kind: {r["id"]: r["name"] for r in R.SEED[kind]} for kind in ("project", "person")}
    rows = ["| type (collection) | id | what | other attributes |", "| --- | ---: | --- | --- |"]
    for p in R.SEED["project"]:
        rows.append(f"| projects (`/projects`) | {p['id']} | {p['name']} | code={p['code']}, budget={p['budget']} |")
    for p in R.SEED["person"]:
        rows.append(f"| people (`/people`) | {p['id']} | {p['name']} | role={p['role']}, email={p['email']} |")
    for t in R.SEED["task"]:
        proj = f"{t['project']} ({names['project'][t['project']]})" if t["project"] else "null"
        who = f"{t['assignee']} ({names['person'][t['assignee']]})" if t["assignee"] else "null"
        rows.append(f"| tasks (`/tasks`) | {t['id']} | {t['title']} | status={t['status']}, priority={t['priority']}, "
                    f"estimate={t['estimate']}, due-date={t['dueDate'] or 'null'}, project={proj}, assignee={who} |")
    return "\n".join(rows)


STYLES = """| style | here |
| --- | --- |
| `next` links, Link headers, page numbers | `page[offset]` + `page[limit]` (default and maximum 1000); a list longer than its limit answers top-level `links` `first`, `last`, `next` (absent on the last page), `prev` (absent on the first), relative URLs with the call's other parameters first and the brackets percent-encoded (`/tasks?sort=title&page%5Boffset%5D=5&page%5Blimit%5D=5`); `links.self` echoes the call's query percent-encoded; `meta.count` holds the filtered total |
| sort and filter parameters | `filter[field]=v` (equality; a comma list is `in`) on an attribute or on a link field's bare identifier (`filter[project]=1`, `filter[assignee]=2,4`, on a to-many link `filter[tasks]=7`: the records whose list holds it); `filter[f][min]`/`[max]` ranges (numbers, dates), `filter[f][exists]=true/false` (a null or empty link or value), `filter[f][fuzzy-match]=s` (case-insensitive substring); an unknown filter field answers 400; `sort=-a,b` (a null sorts last in both directions; ties keep the store's order), an unknown sort field 500; `fields[tasks]=a,b`; `include=project,assignee` (compound documents: `included`) |
| action routes, RPC bodies naming the targets | related routes (`GET /projects/<id>/tasks`, `/people/<id>/tasks`, to-one `/tasks/<id>/project`, `/tasks/<id>/assignee`) and relationship routes (`GET`/`PATCH /tasks/<id>/relationships/{project,assignee}`; `GET`/`POST`/`DELETE`/`PATCH /projects/<id>/relationships/tasks` with a list of identifiers) answering 204 without a body on a write |
| generated ids nested in created objects | `POST` answers 201 with the created resource and `Location`; `data.id` is a random 15-character string the memory adapter draws (the seed's ids are explicit numbers) |
| inverse links | Fortune keeps both sides of every link: a task's `project` or `assignee` written (in a create, a `PATCH` body or a relationship route) moves the task between the parents' `tasks` lists; a project's `tasks` written moves the tasks' `project`; a deleted record disappears from the other side's links (a person's delete clears the tasks' `assignee`, a project's delete their `project`, a task's delete the parents' `tasks`) |
| validation errors and conflicts | `{"jsonapi", "errors": [{"title": "<ErrorClass>", "detail"}]}`: 404 (missing record, unknown type), 400 (an unknown filter field, the app's checks: a title missing, a status not a choice; a link to a record that does not exist), 409 (an email or code that exists, the app's check; a type not the collection's; a body naming another id), 500 (an unknown sort field) |
| updates | `PATCH` merges the attributes and relationships sent and answers 204 without a body (the app's input hook leaves the update as sent); `DELETE` answers 204 |
| fused ids, keyset cursors, upserts, documents, soft delete | no; weak `ETag`s on every answer with a body (`W/<crc32>`), never asked with `If-None-Match` here |"""


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    pins = ", ".join(f"`{d}@{npm_version(R.HERE, d)}`" for d in PINNED)
    return f"""# Fortune.js captures

Real HTTP traffic of a small project tracker served as JSON:API by **Fortune.js {ver}** (its memory
adapter), fortune-http's listener and fortune-json-api's serializer, the one-file app of `app.js`
in this folder. Recorded on loopback by `record.sh` in this folder: it installs {pins} from npm
(`npm ci` of the committed `package-lock.json`), and for each capture starts
`node app.js {R.APP_PORT}` (node's `http` server, 127.0.0.1 only), which creates the seed of
`seed.json`, records through mitmdump on port {R.PROXY_PORT}, and stops both by PID with SIGINT.

{CAPTURE_FILES}

{render_summary_table(summaries)}

## The app (`app.js`)

| collection | type | attributes | relationships |
| --- | --- | --- | --- |
| `/projects` | `projects` | `name`, `code` (unique, the app's check), `budget` | `tasks` (to-many, the inverse of a task's `project`) |
| `/people` | `people` | `name`, `role`, `email` (unique, the app's check) | `tasks` (to-many, the inverse of a task's `assignee`) |
| `/tasks` | `tasks` | `title` (required), `status` (a choice of todo, doing, done; default todo), `priority` (default 2), `estimate` (default 1), `due-date` (a date, written `2026-12-12`, answered `2026-12-12T00:00:00.000Z`) | `project` (to-one, nullable), `assignee` (to-one, nullable) |

fortune-json-api's defaults: the record types (`project`, `person`, `task`) are pluralized in the
routes and in the resources' `type`; camel-cased fields are dasherized (`dueDate` is `due-date`);
numeric ids in a route or body are read as numbers. Lists are in the memory adapter's order:
numeric ids ascending, then the generated ids in the order they were last written or read by id
(the adapter's least-recently-used order). No attribute holds a clock value.

## Seed (the same before every capture; not recorded)

`app.js` creates, from `seed.json`, with explicit ids (the memory adapter would draw random ones):

{seed_tables()}

Every recorded request sends `Accept: {R.JSONAPI}`; writes send `Content-Type: {R.JSONAPI}`.
Query strings are written with their brackets unencoded (`filter[project]=1`); a value holding a
space is percent-encoded. Pages are followed through the server's own `links.next`.

{render_steps(steps)}
## What each capture tests

- **build.har** — the three collections; filters on an attribute, a comma list, a link's bare
  identifier (`filter[project]=1`, `filter[assignee]=3`, a comma list `filter[assignee]=2,4`), two
  filters at once, ranges (`[min]`, `[max]`, both, on a date), `[exists]=false`, `[fuzzy-match]`;
  sorts (`-priority,title`, `estimate`, `due-date` with nulls last, people by `-name`); sparse
  fields; pages of 5 and of 2 (filtered) followed through `links.next`; includes on lists and an
  item; items (one with a null assignee and due date); related routes (to-many and to-one) and
  relationship routes; missing task and person (404); an unknown filter (400). Then the writes,
  each followed by reads: create a task (201; its due date sent as a full timestamp) and read both
  parents' `tasks` identifiers, `PATCH`
  two attributes (204), move it by `PATCH /tasks/<id>/relationships/project` (both projects' `tasks`
  identifiers read after), pass a task to another person through its relationship route; a person
  created, changed, given a task by a `relationships` member in a `PATCH`, deleted (the task's
  assignee becomes null); a project created with two tasks (listed by `filter[project]=<generated
  id>`), one task deleted (the project's identifiers shrink), the project deleted (the other task's
  project becomes null); a task added to and removed from a project's to-many relationship route;
  refusals (an email that exists, a type not the collection's, a body naming another id: 409; a
  missing title, a status not a choice, a link to a missing project: 400; a missing task: 404; an
  unknown sort: 500); tasks by estimate, 5 a page, followed.
- **probe-reads.har** — filter values the build never used (doing, `todo,done`, assignee 4,
  project 3, project and status, `assignee=1,3`, project and assignee), other ranges (`[max]` on
  priority, `[min]` on estimate, both on one field, a date `[max]`, a project budget), `[exists]`
  on `project` and `=true`, another fuzzy match, an exact title, an estimate, people and projects by
  other fields, an empty answer, a to-many identifier (`/projects?filter[tasks]=7`); other sorts
  (also `-due-date`, nulls still last), sparse fields; a page asked directly, pages of 3 and a
  filtered sorted paging of 2 followed to the end, a page past the end; other includes, items,
  related and relationship routes (a null to-one); missing task, project and person (404), another
  unknown filter (400), an unknown type (404); items the build read, asked with `fields[tasks]` and
  with `include`.
- **probe-crud.har** — a task created in project 2, read in filtered lists and in its parents'
  identifiers, `PATCH`ed (a due date written short, `2026-12-30`, is answered as the full timestamp
  `2026-12-30T00:00:00.000Z`) and moved to project 4 by its relationship route; a seeded task done and
  another deleted (its project's identifiers shrink), pages of 4 after; a person created, handed a
  task through its relationship route, deleted (the task's assignee becomes null); a project
  created with a task, deleted (the task's project becomes null, `[exists]=false` lists it); a
  project's to-many relationship route adding and removing tasks; refusals (an email and a code
  that exist, a type not the collection's: 409; a missing title, a status not a choice: 400; a
  missing task and person: 404); tasks the build read by id changed (an assignee cleared in a
  `PATCH` body) and deleted, each read back.

## API styles this app shows (corpus checklist)

{STYLES}

## What a faithful environment should do

**Envelopes.** A list answers `{{"jsonapi": {{"version": "1.0"}}, "meta": {{"count"}}, "links": {{"self",
"first"?, "last"?, "next"?, "prev"?}}, "data": [...], "included"?}}`; an item `{{"jsonapi", "links":
{{"self"}}, "data": ...}}`. A resource is `{{"type", "id" (a string), "attributes", "relationships",
"links": {{"self": "/tasks/1"}}}}` (relative links); every relationship carries its relationship
route as `links.self` and its related route as `links.related`, and its identifiers (`data`: an
object or null to-one, a list to-many), except under sparse `fields`, which drop the identifiers
of the links not asked for but keep their links. A relationship route answers the identifiers
with `links` `self` and `related`; a related route the related resources. Writes other than a
create answer 204 without a body.

**Not deterministic across captures.** The `Date` headers, and the generated ids of created
records (random; the probes use the ids their own creates answered).

## What the captures cannot show

- A `PATCH`, a relationship route's write and a `DELETE` answer 204 without a body: the changed
  record and the inverse links Fortune moved are seen only by later reads.
- The order of generated ids in a list follows the adapter's least-recently-used order (a read by
  id moves a record to the end), which no answer states.
- Bulk writes (`/tasks/1,2`) and `If-None-Match` are not recorded.

## HAR producer notes

{producer_notes(summaries)}
- node's `http` server answers HTTP/1.1 with `Connection: keep-alive`; answers are JSON
  (`application/vnd.api+json`, gzip-compressed on the wire when the client accepts it), errors
  `{{"jsonapi", "errors": [...]}}`.
"""
