"""The captures' README for the FeathersJS tracker (written by record.py after each recording)."""

from appdriver import CAPTURE_FILES, npm_version
from harlib import producer_notes, render_steps, render_summary_table

import record as R

PINNED = ["@feathersjs/feathers", "@feathersjs/express", "@feathersjs/memory", "@feathersjs/errors"]


def seed_tables() -> str:
    names = {kind: {r["id"]: r["name"] for r in R.SEED[kind]} for kind in ("projects", "people")}
    rows = ["| service | id | what | other fields |", "| --- | ---: | --- | --- |"]
    for p in R.SEED["projects"]:
        rows.append(f"| `/projects` | {p['id']} | {p['name']} | code={p['code']}, budget={p['budget']}, "
                    f"active={str(p['active']).lower()} |")
    for p in R.SEED["people"]:
        rows.append(f"| `/people` | {p['id']} | {p['name']} | role={p['role']}, email={p['email']} |")
    for t in R.SEED["tasks"]:
        who = f"{t['assigneeId']} ({names['people'][t['assigneeId']]})" if t["assigneeId"] else "null"
        rows.append(f"| `/tasks` | {t['id']} | {t['title']} | status={t['status']}, priority={t['priority']}, "
                    f"estimate={t['estimate']}, projectId={t['projectId']} ({names['projects'][t['projectId']]}), "
                    f"assigneeId={who}, dueDate={t['dueDate'] or 'null'}, createdAt=updatedAt={t['createdAt']} |")
    return "\n".join(rows)


STYLES = """| style | here |
| --- | --- |
| `next` links, Link headers, page numbers | `$limit`/`$skip` offsets; a paginated service (`/tasks`, `/people`: `paginate: {default: 10, max: 50}`) answers `{total, limit, skip, data}` (`total` counts every match, `limit` is the default 10 when none is asked and at most 50, `$limit=0` answers only the total); an unpaginated one (`/projects`) answers a plain array, `$limit`/`$skip` slicing it; no links |
| sort and filter parameters | a field's own name for equality (`status=todo`, `assigneeId=null`), operators as a bracket suffix (`priority[$lt]=2`, `[$lte]`, `[$gt]`, `[$gte]`, `[$ne]`, `status[$in][]=a&status[$in][]=b`, `[$nin][]`), `$or[0][status]=doing&$or[1][priority]=1`; `$sort[field]=1|-1` (several keys in order; a null sorts first ascending); `$select[]=title` (the id always kept); an operator or a `$` filter Feathers does not know answers 400 |
| action routes, RPC bodies naming the targets | multi writes by query on tasks: `PATCH /tasks?projectId=4` and `DELETE /tasks?status=done&projectId=2` answer the array of changed or removed records; a service without `multi` answers 405 |
| generated ids nested in created objects | `POST` answers 201 with the created record; its `id` is the next number after the seed's (the memory service's counter) |
| updates | `PATCH` merges (answers the record); `PUT` replaces the record (fields not sent are gone; the app keeps `createdAt`); `DELETE` answers the removed record; tasks carry `createdAt`/`updatedAt` clocks set by an app hook |
| validation errors and conflicts | `{name, message, code, className, data?, errors?}`: 400 (`BadRequest`: the app's hook on a task without a title or with a status not a choice, a query operator not allowed), 404 (`NotFound`: a missing id, a service the app lacks), 405 (`MethodNotAllowed`: a multi write a service does not allow) |
| fused ids, keyset cursors, upserts, documents, soft delete, ETags | no (Express sends weak `ETag`s, never asked with `If-None-Match` here) |"""


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    pins = ", ".join(f"`{d}@{npm_version(R.HERE, d)}`" for d in PINNED)
    return f"""# FeathersJS captures

Real HTTP traffic of a small project tracker served by **FeathersJS {ver}** (memory services) over
its Express REST transport (no sockets), the one-file app of `app.js` in this folder. Recorded on
loopback by `record.sh` in this folder: it installs {pins} from npm (`npm ci` of the committed
`package-lock.json`), and for each capture starts `node app.js {R.APP_PORT}` (127.0.0.1 only),
which loads the seed of `seed.json`, records through mitmdump on port {R.PROXY_PORT}, and stops
both by PID with SIGINT.

{CAPTURE_FILES}

{render_summary_table(summaries)}

## The app (`app.js`)

| service | paginated | fields | hooks |
| --- | --- | --- | --- |
| `/projects` | no (an array) | `id`, `name`, `code`, `budget`, `active` | — |
| `/people` | `{{default: 10, max: 50}}` | `id`, `name`, `role`, `email` | — |
| `/tasks` | `{{default: 10, max: 50}}`, `multi: ['patch', 'remove']` | `id`, `title` (required), `status` (todo, doing, done; default todo), `priority` (default 2), `estimate` (default 1), `projectId`, `assigneeId` (nullable), `dueDate` (a `YYYY-MM-DD` string or null), `createdAt`, `updatedAt` | validation (400 without a title or with a status not a choice, on create and replace), defaults on create, clocks (`createdAt` and `updatedAt` on create, `updatedAt` on patch and replace) |

An app hook converts the query's values of the numeric and boolean fields (through operators,
`$in` lists and `$or` branches; `null` for null) as a schema's coercion would: the query string
arrives as strings. Lists are in the memory store's order (ids ascending).

## Seed (the same before every capture; not recorded)

`app.js` loads, from `seed.json`, with explicit ids (later creates draw the next number):

{seed_tables()}

Every recorded request sends `Accept: application/json`; writes send `Content-Type:
application/json`. Query strings are written as the Feathers documentation writes them, brackets
and `$` unencoded (`priority[$lt]=2`, `status[$in][]=doing`); a value holding a space is
percent-encoded.

{render_steps(steps)}
## What each capture tests

- **build.har** — the three services (tasks over two pages of the default 10); equality on a
  string, an id, `null`, two fields; `$in`, `$nin`, `$lt`, `$lte`, `$gt`, `$gte` (and a range of
  two), a date string compared, `$ne`, `$or`; people and projects by a field, a boolean, a budget
  range; sorts on one and two keys (a null first), `$select[]`; pages of 5 and of 3 (filtered)
  walked by `$skip` to the `total`, a sorted page, `$limit=0`, `$limit` over the maximum, an
  unpaginated slice; items (one with nulls, one with `$select`); 404s for a task, a person, a
  project and a service; 400 for an operator and a filter Feathers does not allow. Then the
  writes, each followed by reads: a task created (201, the next id, both clocks), patched,
  replaced by `PUT` (moved to another project), a seeded task patched, the task deleted; multi
  `PATCH` by `projectId` and by `estimate[$gte]`, multi `DELETE` by status and project; a person
  created, patched, replaced (a field dropped), deleted; a project created with a task, patched,
  deleted; refusals (400 missing title, status not a choice, a replace without a title; 404
  `PATCH`/`PUT`/`DELETE` of a missing task; 405 multi writes a service does not allow).
- **probe-reads.har** — other values (doing, project 3, assignee 5, two fields), `$in` with one
  value and on ids, `$nin` on status, other comparisons and a combination with equality, a date
  `$lt`, `$ne` on an id, `$or` on ids, `$or` with an operator beside equality, an exact title,
  people and projects by other fields, an empty answer; other sorts (a null last descending),
  other selections, a sort with a filter and a selection; a page asked directly, pages of 6 and
  of 3 (an `$in` with a sort) walked to the end, a page past the end, `$limit=0` with a filter,
  `$limit=60`, a people page, a projects slice; other items, an item with `$select`, 404s, 400s,
  a missing service.
- **probe-crud.har** — a task created in project 2, listed, patched (a due date), replaced into
  project 4; a seeded task patched and another deleted; pages of 4 after the writes; multi
  `PATCH` by assignee and by `$in` with a project, multi `DELETE` by project with `$ne`; a person
  created, patched, deleted; a project created, replaced, deleted; refusals (400, 404, 405); a
  task the build read patched (its assignee cleared) and another deleted.

## API styles this app shows (corpus checklist)

{STYLES}

## What a faithful environment should do

**Envelopes.** A paginated service answers a list as `{{"total", "limit", "skip", "data": [...]}}`,
an unpaginated one as a plain array; an item, a create, a patch, a replace and a delete answer the
record itself; a multi write the array of records it changed or removed. Errors are Feathers
errors `{{"name", "message", "code", "className", "data"?, "errors"?}}`.

**Not deterministic across captures.** The `Date` headers, the `ETag`s of answers holding a clock,
and the `createdAt`/`updatedAt` clocks the tasks' hook writes (the seed's clocks are fixed).

## What the captures cannot show

- The clocks a write sets are the server's time of the call.
- A multi write's matching set is known only from the records the state holds.
- Sockets (the app serves REST only) and `If-None-Match` are not recorded.

## HAR producer notes

{producer_notes(summaries)}
- Express answers HTTP/1.1 with `Connection: keep-alive`; answers are `application/json;
  charset=utf-8` with a weak `ETag`.
"""
