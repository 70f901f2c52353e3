"""The captures' README for the plain DRF tracker (written by record.py after each recording)."""

from appdriver import CAPTURE_FILES
from harlib import app_version, producer_notes, render_steps, render_summary_table

import record as R
import seed as S

PINNED = ["Django", "djangorestframework", "django-filter"]


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
        who = f"{t['assignee_id']} ({names[t['assignee_id']]})" if t["assignee_id"] else "null"
        closed = t["closed_at"].isoformat().replace("+00:00", "Z") if t["closed_at"] else "null"
        rows.append(f"| `/api/tasks/` | {t['id']} | {t['title']} | status={t['status']}, priority={t['priority']}, "
                    f"due={t['due'] or 'null'}, project={t['project_id']} ({codes[t['project_id']]}), "
                    f"assignee={who}, closed_at={closed} |")
    return "\n".join(rows)


STYLES = """| style | here |
| --- | --- |
| `next` links, Link headers, page numbers | tasks: `page`/`page_size` (10 a page, at most 50) in `{count, next, previous, results}` with absolute `next`/`previous` URLs (the query re-encoded: `%2C` for a comma); projects: `limit`/`offset` (default 10) in the same envelope; people: a plain array; a page past the end answers 404 `{"detail": "Invalid page."}` |
| sort and filter parameters | django-filter lookups `field__lookup=value`: exact (the field's own name, a relation's primary key `project=1`), `__gte`, `__gt`, `__lte`, `__lt`, `__icontains`, `__startswith`, `__in` (a comma list), `__isnull` (`true`/`false`), `project__code` across the relation; `ordering=-priority,title` (OrderingFilter; ties by id); `search=` (SearchFilter: every word must match one of the named fields, any case); an invalid value answers 400 with the field's errors |
| action routes, RPC bodies naming the targets | `GET /api/projects/{id}/tasks/` (a detail action answering a plain array), `POST /api/tasks/{id}/close/` (no body: status done, `closed_at` the clock) |
| generated ids nested in created objects | `POST` answers 201 with the created object; its `id` is the next number |
| updates | `PUT` (required fields needed; fields not sent kept) and `PATCH` answer the updated object; `DELETE` answers 204 without a body; a project's delete deletes its tasks (CASCADE), a person's clears their tasks' assignee (SET_NULL) |
| relation fields | a task's `project` is a primary key; its `assignee` a nested read-only `{id, name}` written through `assignee_id` |
| validation errors and conflicts | 400 `{field: ["This field is required."]}`; 404 `{"detail": "No Task matches the given query."}`; an unknown route answers Django's HTML 404 |
| fused ids, keyset cursors, upserts, documents, soft delete, ETags | no; `created_at` and `closed_at` are clocks (the app's clock is frozen) |"""


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    pins = ", ".join(f"`{d}=={app_version(R.VENV, d)}`" for d in PINNED)
    return f"""# Django REST framework captures

Real HTTP traffic of a small project tracker served by plain **Django REST framework**
(`djangorestframework` {ver}) with **django-filter**: the app is `app.py` in this folder, its seed
`seed.py` (projects, people, tasks naming a project and an assignee). Django's SQLite is in memory;
every start creates the tables and the seed with explicit ids and clocks, and the app's clock is
frozen at {R.APP_CLOCK}, so every capture starts from the same rows and writes the same clocks.
Recorded by `record.sh` in this folder: it makes a venv under `/tmp` and installs
{pins}
(the `==` pins of `requirements.txt`, PyPI), and for each capture starts `python app.py {R.APP_PORT}`
(wsgiref, 127.0.0.1 only), records through mitmdump on port {R.PROXY_PORT}, and stops both by PID
with SIGINT.

{CAPTURE_FILES}

{render_summary_table(summaries)}

## The app (`app.py`): three ModelViewSets on a DefaultRouter under `/api/`

| route | fields | filters (django-filter) | search | ordering | pages |
| --- | --- | --- | --- | --- | --- |
| `/api/projects/` | `id`, `code` (required, unique), `name` (required), `budget` (default 0), `active` (default true) | `code`, `code__in`, `active`, `budget`, `budget__gte`, `budget__lte` | `name`, `code` | `id`, `name`, `code`, `budget` | `limit`/`offset` (default 10) |
| `/api/tasks/` | `id`, `title` (required), `status` (open, doing, done; default open), `priority` (default 2), `due` (a date or null), `project` (a primary key, required), `assignee` (nested `{{id, name}}`, read-only; written as `assignee_id`), `created_at`, `closed_at` (read-only clocks) | `status`, `status__in`, `priority` with `__gte`, `__gt`, `__lte`, `__lt`, `title__icontains`, `title__startswith`, `due__isnull`, `due__gte`, `due__lte`, `project`, `project__code`, `assignee`, `assignee__isnull` | `title` | `id`, `title`, `priority`, `due`, `status` | `page`/`page_size` (10, at most 50) |
| `/api/people/` | `id`, `name` (required), `email` (may be null), `role` (default engineer) | `role`, `name__icontains`, `email__isnull` | `name`, `email` | `id`, `name`, `email` | none (a plain array) |

Actions: `GET /api/projects/{{id}}/tasks/` lists a project's tasks (a plain array);
`POST /api/tasks/{{id}}/close/` sets `status` done and `closed_at` to the clock and answers the task.
Lists are in id order unless `ordering` says otherwise (ties by id).

## Seed (the same before every capture; not recorded)

{seed_tables()}

Every recorded request sends `Accept: application/json`; writes with a body send `Content-Type:
application/json`. Query values are percent-encoded, commas kept.

{render_steps(steps)}
## What each capture tests

- **build.har** — the three collections (tasks walked by `next`); equality on a string, a primary
  key, two fields; `__gte`, `__lt`, `__lte` with equality, `__icontains`, `__startswith`, `__in`,
  `__isnull` on a date and a relation, a date `__gte`, `project__code` across the relation; people
  and projects by a field, `__icontains`, a boolean, `__in`, a budget range; orderings by one key
  both ways and by two, search on each collection (one with an ordering); pages of 5 and of 3
  (filtered) walked by `next`, a page asked directly, limit/offset pages walked and asked, a page
  past the end; items, the nested action route, 404s. Then the writes, each followed by reads: a
  task created, patched, put (moved to another project, assignee and due cleared), a seeded task
  closed by the action, the task deleted; a person created, patched, deleted; a project created
  with a task, patched, deleted (its task with it); refusals (400 missing fields, 404s, 400 for a
  value that is not a number).
- **probe-reads.har** — other values, `__gt` (never in the build), other comparisons and
  combinations, `__icontains` in capitals, `__in` with one value, `__isnull=false`, a date
  `__lte`, other codes across the relation; people without an email; other orderings (a
  descending date, two keys), other searches (two words, capitals, with an ordering); other pages
  of both styles, a page past the end; other items, other action routes, 404s.
- **probe-crud.har** — a task created in project 2, listed, patched (a due date), put into
  project 4 for another person, closed; a seeded task closed and another deleted; pages of 4 after
  the writes; a person created, patched, put, deleted; a seeded person deleted (their tasks lose
  the assignee); a project created, put, given a task, deleted (the task with it); refusals (400,
  404); a task the build read patched (reassigned) and another deleted; all tasks walked by `next`.

## API styles this app shows (corpus checklist)

{STYLES}

## What a faithful environment should do

**Envelopes.** Task and project lists answer `{{count, next, previous, results}}` with absolute
`next`/`previous` URLs; people and the action route a plain array; an item, a create, a PATCH, a
PUT and the close action the object; a DELETE 204 without a body. A 400 names each field's errors;
a 404 is `{{"detail": …}}` (Django's HTML page for an unknown route).

**Not deterministic across captures.** The `Date` headers only (the clock is frozen).

## What the captures cannot show

- The clock a write sets is frozen; a live app's would move.

## HAR producer notes

{producer_notes(summaries)}
- wsgiref answers HTTP/1.0 (`Server: WSGIServer/0.2`), one connection per request; answers are
  `application/json` with an `Allow` header.
"""
