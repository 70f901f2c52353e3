"""The captures' README for the LoopBack 4 tracker (written by record.py after each recording)."""

from appdriver import CAPTURE_FILES, npm_version
from harlib import producer_notes, render_steps, render_summary_table

import record as R

PINNED = ["@loopback/core", "@loopback/rest", "@loopback/repository", "@loopback/rest-crud"]


def seed_tables() -> str:
    names = {kind: {r["id"]: r["name"] for r in R.SEED[kind]} for kind in ("projects", "people")}
    rows = ["| route | id | what | other properties |", "| --- | ---: | --- | --- |"]
    for p in R.SEED["projects"]:
        rows.append(f"| `/projects` | {p['id']} | {p['name']} | code={p['code']}, budget={p['budget']}, "
                    f"active={str(p['active']).lower()} |")
    for p in R.SEED["people"]:
        rows.append(f"| `/people` | {p['id']} | {p['name']} | role={p['role']}, email={p['email']} |")
    for t in R.SEED["tasks"]:
        who = f"{t['assigneeId']} ({names['people'][t['assigneeId']]})" if t.get("assigneeId") else "absent"
        rows.append(f"| `/tasks` | {t['id']} | {t['title']} | status={t['status']}, priority={t['priority']}, "
                    f"estimate={t['estimate']}, projectId={t['projectId']} ({names['projects'][t['projectId']]}), "
                    f"assigneeId={who}, dueDate={t.get('dueDate', 'absent')} |")
    return "\n".join(rows)


STYLES = """| style | here |
| --- | --- |
| `next` links, Link headers, page numbers | `filter[limit]`/`filter[skip]` (or `filter[offset]`) offsets over a plain array; no envelope, no total, no links; `GET /<models>/count` answers `{count}` |
| sort and filter parameters | the whole query nested under `filter[...]`: `filter[where][status]=todo`, operators as a bracket suffix (`[gt]`, `[gte]`, `[lt]`, `[lte]`, `[neq]`, `[between][0]`/`[1]`, `[like]` a case-kept substring on the memory connector, `[inq][0]=a&[inq][1]=b` or `[inq][]=`, `[nin]`), `filter[where][or][0][status]=doing&filter[where][or][1][priority]=1`; `filter[order]=title%20DESC` or `filter[order][0]=…`; `filter[fields][title]=true` or `filter[fields][0]=title`; the same filter as JSON (`filter={"where":…}`); `/count` and PATCH by query take `where[...]` without the `filter` prefix |
| action routes, RPC bodies naming the targets | `PATCH /tasks?where[projectId]=4` updates every match and answers `{count}` |
| generated ids nested in created objects | `POST` answers 200 with the created record; its `id` is the next number after the highest (the memory connector's counter) |
| updates | `PATCH /<models>/{id}` merges, `PUT` replaces (properties not sent are gone), `DELETE` removes; all three answer 204 without a body |
| relation routes | `/projects/{id}/tasks`, `/people/{id}/tasks`: the tasks naming that id (plain arrays) |
| validation errors and conflicts | `{error: {statusCode, name, message, code?, details?}}`: 422 (`VALIDATION_FAILED`: a required property missing, a property the model lacks), 404 (`ENTITY_NOT_FOUND` for a missing id, `NotFoundError` for a route the app lacks) |
| fused ids, keyset cursors, upserts, documents, soft delete, ETags | no |"""


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    pins = ", ".join(f"`{d}@{npm_version(R.HERE, d)}`" for d in PINNED)
    return f"""# LoopBack 4 captures

Real HTTP traffic of a small project tracker served by **LoopBack 4** (`@loopback/rest` {ver}) in
plain JavaScript, the one-file app of `app.js` in this folder: models defined without decorators
(`defineModelClass`), repositories over the memory connector (`defineCrudRepositoryClass`), the
stock CRUD REST controllers (`defineCrudRestController`) and two relation routes. Recorded on
loopback by `record.sh` in this folder: it installs {pins} from npm (`npm ci` of the committed
`package-lock.json`), and for each capture starts `node app.js {R.APP_PORT}` (127.0.0.1 only),
which loads the seed of `seed.json`, records through mitmdump on port {R.PROXY_PORT}, and stops
both by PID with SIGINT.

{CAPTURE_FILES}

{render_summary_table(summaries)}

## The app (`app.js`)

| route | properties | notes |
| --- | --- | --- |
| `/projects` | `id`, `name` (required), `code` (required), `budget`, `active` (default true) | CRUD, `/count`, PATCH by `where` |
| `/people` | `id`, `name` (required), `role`, `email` | CRUD, `/count`, PATCH by `where` |
| `/tasks` | `id`, `title` (required), `status` (default todo), `priority` (default 2), `estimate` (default 1), `projectId`, `assigneeId`, `dueDate` (a `YYYY-MM-DD` string) | CRUD, `/count`, PATCH by `where` |
| `/projects/{{id}}/tasks`, `/people/{{id}}/tasks` | the tasks whose `projectId` / `assigneeId` is the id | a route of the app (`app.route`) |

Models are strict: a property the model lacks is refused (422). A property never set is absent
from the answers (no `null`s). Lists are in the memory store's order (ids ascending).

## Seed (the same before every capture; not recorded)

`app.js` loads, from `seed.json`, with explicit ids (later creates draw the next number):

{seed_tables()}

Every recorded request sends `Accept: application/json`; writes send `Content-Type:
application/json`. Query strings are written as the LoopBack documentation writes them, brackets
unencoded (`filter[where][priority][gt]=2`); a value holding a space is percent-encoded, and the
whole-filter JSON is percent-encoded whole.

{render_steps(steps)}
## What each capture tests

- **build.har** — the three collections; equality on a string, an id, two properties; `inq`
  (indexed and `[]`), `nin`, `lt`, `lte`, `gt`, `gte` with equality, `between`, a date string
  compared, `neq`, `like`, `or`; people and projects by a property, a boolean, a budget range;
  orders on one and two keys (indexed), `fields` as an object and as an array; the filter as
  JSON; counts with and without `where`; pages of 5 and of 3 (filtered) walked by `skip` until a
  short page, a sorted page, `offset`, a projects slice; items (one with absent properties, one
  with `fields`), two relation routes; 404s. Then the writes, each followed by reads: a task
  created (200, the next id), patched (204), replaced by `PUT` (moved to another project, the
  assignee and due date dropped), a seeded task patched, the task deleted; PATCH by `where` on
  `projectId` and on `estimate[gte]` (`{{count}}`); a person created, patched, replaced (a
  property dropped), deleted; a project created with a task, patched, deleted; refusals (422
  missing title, unknown property, a replace without a title; 404 `PATCH`/`PUT`/`DELETE` of a
  missing task).
- **probe-reads.har** — other values, `inq` with one value, on ids and as a `[]` list, `nin` on
  status, other comparisons and a combination with equality, `between` on priority, a date `lt`,
  `neq` on an id, `like` on another word, `or` on ids, `or` with an operator beside equality, an
  exact title, people and projects by other properties, an empty answer; other orders (two keys),
  other fields, an order with a filter and fields; JSON filters with other clauses (`inq`,
  `limit`); other counts; a page asked directly, pages of 6 and of 3 (an `inq` with an order)
  walked to the end, a page past the end, a people page, a projects slice; other items, an item
  with `fields`, other relation routes, 404s.
- **probe-crud.har** — a task created in project 2, listed and counted, patched (a due date),
  replaced into project 4; a seeded task patched and another deleted; pages of 4 after the
  writes; PATCH by `where` on the assignee and by `inq` with a project; counts; a person created,
  patched, deleted; a project created, replaced, deleted; refusals (422, 404); a task the build
  read patched (reassigned) and another deleted.

## API styles this app shows (corpus checklist)

{STYLES}

## What a faithful environment should do

**Envelopes.** Lists and relation routes answer plain arrays, an item and a create the record,
`/count` and a PATCH by `where` `{{"count": n}}`; PATCH, PUT and DELETE by id answer 204 without a
body. Errors are `{{"error": {{"statusCode", "name", "message", "code"?, "details"?}}}}`.

**Not deterministic across captures.** The `Date` headers.

## What the captures cannot show

- A PATCH by `where` answers only the count: the records it changed show only in later reads.
- A `PUT` or `PATCH` by id answers no body: its effect shows only in later reads.

## HAR producer notes

{producer_notes(summaries)}
- Express answers HTTP/1.1 with `Connection: keep-alive`; answers are `application/json` without
  an `ETag`.
"""
