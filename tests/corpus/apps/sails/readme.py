"""The captures' README for the Sails.js tracker (written by record.py after each recording)."""

from appdriver import CAPTURE_FILES, npm_version
from harlib import producer_notes, render_steps, render_summary_table

import record as R

PINNED = ["sails", "sails-hook-orm", "sails-disk"]


def seed_tables() -> str:
    names = {kind: {r["id"]: r["name"] for r in R.SEED[kind]} for kind in ("project", "person")}
    rows = ["| route | id | what | other attributes |", "| --- | ---: | --- | --- |"]
    for p in R.SEED["project"]:
        rows.append(f"| `/project` | {p['id']} | {p['name']} | code={p['code']}, budget={p['budget']}, "
                    f"active={str(p['active']).lower()} |")
    for p in R.SEED["person"]:
        rows.append(f"| `/person` | {p['id']} | {p['name']} | role={p['role']}, email={p['email']} |")
    for t in R.SEED["task"]:
        who = f"{t['assignee']} ({names['person'][t['assignee']]})" if t.get("assignee") else "null"
        rows.append(f"| `/task` | {t['id']} | {t['title']} | status={t['status']}, priority={t['priority']}, "
                    f"project={t['project']} ({names['project'][t['project']]}), "
                    f"assignee={who}, dueDate={t.get('dueDate') or 'null'} |")
    return "\n".join(rows)


STYLES = """| style | here |
| --- | --- |
| `next` links, Link headers, page numbers | `limit`/`skip` offsets over a plain array; no envelope, no total, no links |
| sort and filter parameters | equality as a plain parameter (`status=todo`, `project=1`); the whole criteria as JSON in `where` (`where={"priority":{">":2}}`: `<`, `<=`, `>`, `>=`, `!=`, `in`, `nin`, `contains`, `startsWith`, `endsWith`, `or: [...]`); `sort=title DESC` or `sort=[{"title":"DESC"}]`; `select=title,status` (the id always kept), `omit=…`; `populate=false` or `populate=project` |
| action routes, RPC bodies naming the targets | association routes: `PUT /project/{id}/tasks/{fk}` adds a task to the collection, `DELETE /project/{id}/tasks/{fk}` removes it, `PUT /project/{id}/tasks` with a list of ids replaces it; each answers the project with its tasks |
| generated ids nested in created objects | `POST` answers 200 with the created record (associations populated); its `id` is the next number |
| updates | `PATCH /<model>/{id}` and `PUT /<model>/{id}` both merge and answer the updated record; `DELETE` answers the deleted record |
| relation routes | `GET /project/{id}/tasks` (the collection), `GET /task/{id}/project` (a model association) |
| validation errors and conflicts | 400 `{code: E_INVALID_NEW_RECORD, details, message}` (a required attribute missing); 404 `Not Found` as text for a missing id or route |
| fused ids, keyset cursors, upserts, documents, soft delete, ETags | no; `createdAt`/`updatedAt` are epoch-millisecond clocks |"""


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    pins = ", ".join(f"`{d}@{npm_version(R.HERE, d)}`" for d in PINNED)
    return f"""# Sails.js captures

Real HTTP traffic of a small project tracker served by **Sails.js** (`sails` {ver}) blueprints:
the app is `app.js` and the models `api/models/*.js` in this folder (projects with a to-many
`tasks` collection, people, tasks with `project` and `assignee` model associations) over the
sails-disk adapter kept in memory (`inMemoryOnly`), blueprint REST routes on, shortcut and action
routes off. Recorded by `record.sh` in this folder: it installs {pins} from npm (`npm ci` of the
committed `package-lock.json`), and for each capture starts `node app.js {R.APP_PORT}`
(127.0.0.1 only), which creates the seed of `seed.json`, records through mitmdump on port
{R.PROXY_PORT}, and stops both by PID with SIGINT.

{CAPTURE_FILES}

{render_summary_table(summaries)}

## The app (`app.js`, `api/models/*.js`)

| route | attributes | notes |
| --- | --- | --- |
| `/project` | `id`, `name` (required), `code` (required), `budget` (default 0), `active` (default true), `tasks` (collection via `project`) | CRUD; `/project/{{id}}/tasks` read, add, remove, replace |
| `/person` | `id`, `name` (required), `role` (default engineer), `email` (may be null) | CRUD |
| `/task` | `id`, `title` (required), `status` (default todo), `priority` (default 2), `dueDate` (a `YYYY-MM-DD` string or null), `project` (model), `assignee` (model) | CRUD; `/task/{{id}}/project`, `/task/{{id}}/assignee` |

Every record carries `createdAt` and `updatedAt` (epoch milliseconds). Reads populate
associations by default (a task's `project` and `assignee` records, a project's `tasks` list);
`populate=false` answers them as ids. Lists are in the store's order (ids ascending).

## Seed (the same before every capture; not recorded)

`app.js` creates, from `seed.json`, with explicit ids and clocks (later creates draw the next number):

{seed_tables()}

Every recorded request sends `Accept: application/json`; writes send `Content-Type:
application/json`. Query values are percent-encoded (a JSON value whole; commas kept).

{render_steps(steps)}
## What each capture tests

- **build.har** — the three collections; equality parameters on a string, an id, two fields; the
  `where` JSON: equality, `in`, `nin`, `<`, `<=`, `>`, `>=` with equality, a date string compared,
  `!=`, `contains`, `startsWith`, `endsWith`, `or`; people and projects by a field, a boolean, a
  budget range; sorts by one key (both words) and two (the JSON array), `select`, `omit`,
  `populate=false`/`populate=project`, a combination; pages of 5 and of 3 (filtered) walked by
  `skip` until a short page, a sorted page, slices; items (one with nulls, one with `select`),
  association routes; 404s. Then the writes, each followed by reads: a task created, patched, put
  (moved to another project), a seeded task patched, the task deleted; a task added to a project's
  collection, another removed, a collection replaced; a person created, patched, deleted; a project
  created with a task, patched, deleted; refusals (400 a required attribute missing, 404).
- **probe-reads.har** — other values, `where` equality on a number, `in` with one value and on
  ids, `nin` on status, other comparisons and a combination, a date `<`, `!=` on an id, `contains`,
  `startsWith`, `endsWith` on other words, `or` on ids, `or` beside equality, an exact title,
  people and projects by other fields, an empty answer; other sorts (the JSON array), selections,
  `omit`, `populate=assignee`; a page asked directly, pages of 6 and of 3 (an `in` with a sort)
  walked to the end, a page past the end; other items, other association routes, 404s.
- **probe-crud.har** — a task created in project 2, listed, patched (a due date), put into
  project 4; a seeded task patched and another deleted; pages of 4 after the writes; other
  association adds, removes and a replace; a person created, patched, deleted; a project created,
  put, deleted; refusals (400, 404); a task the build read patched (reassigned) and another deleted.

## API styles this app shows (corpus checklist)

{STYLES}

## What a faithful environment should do

**Envelopes.** Lists and association routes answer plain arrays; an item, a create, a PATCH, a
PUT and a DELETE the record; an association write the parent with its collection. A 400 is
`{{"code", "details", "message"}}`; a 404 is the text `Not Found`.

**Not deterministic across captures.** The `Date` headers; the `createdAt`/`updatedAt` clocks a
write sets (the seed's are fixed).

## What the captures cannot show

- The clocks a write sets are the wall clock of the recording.

## HAR producer notes

{producer_notes(summaries)}
- Express answers HTTP/1.1 with `Connection: keep-alive`; answers are `application/json` with a
  weak `ETag`.
"""
