"""The captures' README for the dynamic-rest tracker (written by record.py after each recording)."""

from appdriver import CAPTURE_FILES
from harlib import app_version, producer_notes, render_steps, render_summary_table

import record as R
import seed as S

PINNED = ["dynamic-rest", "Django", "djangorestframework"]


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
        est = t["estimate"] if t["estimate"] is not None else "null"
        rows.append(f"| `/api/tasks/` | {t['id']} | {t['title']} | status={t['status']}, priority={t['priority']}, "
                    f"estimate={est}, due={t['due'] or 'null'}, project={t['project_id']} "
                    f"({codes[t['project_id']]}), assignee={who} |")
    return "\n".join(rows)


STYLES = """| style | here |
| --- | --- |
| `next` links, Link headers, page numbers | `page`/`per_page` (10 a page, at most 50: a larger `per_page` answers 50) on every list, the envelope's `meta` `{page, per_page, total_results, total_pages}`; no `next` link: a client counts pages; a page past the end answers 404 `{"detail": "Invalid page."}` |
| sort and filter parameters | `filter{field}=v` on any serializer field (a relation by id, `filter{project.code}` across it), operators after a dot (`.gt`, `.gte`, `.lt`, `.lte`, `.in` repeated, `.icontains`, `.startswith`, `.istartswith`, `.isnull`), a negation `filter{-field}`; `sort[]=-priority&sort[]=title` (ties by id, SQLite's NULLs first ascending); an unknown field or a value of the wrong type answers 400 with a list of messages |
| sideloading (`include[]`) | `include[]=project.` or `include[]=project.*` adds the related records under a top-level key named by their plural (`projects`, `people`, `tasks`), the relation in the primary record staying an id; `exclude[]=field`, `exclude[]=*` with `include[]=title` choose fields (a relation left out becomes `links: {project: "project/"}`) |
| relation routes | `GET /api/projects/{id}/tasks/`, `/api/people/{id}/tasks/` (DREST's `list_related`: `{"tasks": [...]}` without `meta`); every project and person carries `links: {"tasks": "tasks/"}` |
| generated ids nested in created objects | `POST` answers 201 `{"task": {...}}` (the singular name); its `id` is the next number |
| updates | `PUT` (required fields needed; fields not sent kept) and `PATCH` answer `{"<name>": {...}}`; `DELETE` answers 204 without a body; a project's delete deletes its tasks (CASCADE), a person's clears their tasks' assignee (SET_NULL) |
| validation errors and conflicts | 400 `{field: [messages]}` (required fields, a choice, a unique code, an email, a missing related id); 400 `[message]` for a bad filter or sort; 404 `{"detail": "Not found."}` (Django's HTML page for an unknown route) |
| fused ids, keyset cursors, upserts, documents, soft delete, ETags | no; `created_at` is a clock (the app's clock is frozen) |"""


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    pins = ", ".join(f"`{d}=={app_version(R.VENV, d)}`" for d in PINNED)
    return f"""# dynamic-rest captures

Real HTTP traffic of a small project tracker served by **dynamic-rest** (DREST, `dynamic-rest`
{ver}) on Django REST framework: the app is `app.py` in this folder, its seed `seed.py` (projects,
people, tasks naming a project and an optional assignee). Django's SQLite is in memory; every
start creates the tables and the seed with explicit ids and clocks, and the app's clock is frozen
at {R.APP_CLOCK}, so every capture starts from the same rows and writes the same clocks.
Recorded by `record.sh` in this folder: it makes a venv under `/tmp` and installs
{pins}
and the rest of the `==` pins of `requirements.txt` (PyPI; dynamic-rest 2.3.0 asks Django below
4.3 and DRF below 3.16), and for each capture starts `python app.py {R.APP_PORT}` (wsgiref,
127.0.0.1 only), records through mitmdump on port {R.PROXY_PORT}, and stops both by PID with SIGINT.

{CAPTURE_FILES}

{render_summary_table(summaries)}

## The app (`app.py`): three DynamicModelViewSets on a DynamicRouter under `/api/`

| route | envelope | fields |
| --- | --- | --- |
| `/api/projects/` | `{{"projects": [...], "meta": …}}`, an item `{{"project": {{…}}}}` | `id`, `code` (required, unique), `name` (required), `budget` (default 0), `active` (default true), `tasks` (deferred: `links.tasks`) |
| `/api/people/` | `{{"people": [...], "meta": …}}`, an item `{{"person": {{…}}}}` | `id`, `name` (required), `email` (an email or null), `role` (default engineer), `tasks` (deferred: `links.tasks`) |
| `/api/tasks/` | `{{"tasks": [...], "meta": …}}`, an item `{{"task": {{…}}}}` | `id`, `title` (required), `status` (todo, doing, done; default todo), `priority` (default 2), `estimate` (hours or null), `due` (a date or null), `project` (an id, required), `assignee` (an id or null), `created_at` (read-only clock) |

Every list takes `filter{{…}}`, `sort[]`, `include[]`, `exclude[]`, `page` and `per_page`; lists
are in id order unless `sort[]` says otherwise. `GET /api/projects/{{id}}/tasks/` and
`/api/people/{{id}}/tasks/` are DREST's relation routes.

## Seed (the same before every capture; not recorded)

{seed_tables()}

Every recorded request sends `Accept: application/json`; writes with a body send `Content-Type:
application/json`. Parameter names are sent as written (`filter{{priority.gte}}`, `sort[]`), values
percent-encoded.

{render_steps(steps)}
## What each capture tests

- **build.har** — the three collections (tasks walked by `page`); equality on a string, a relation's
  id, two filters; `.gte`, `.lt`, `.lte` with equality, `.gt` on the estimate, `.icontains`,
  `.startswith`, `.in` repeated, a negation, `.isnull` on a date and a relation, a date `.gte`,
  `project.code` across the relation; people and projects by a field, `.icontains`, a boolean,
  `.in`, a budget `.gte`; sorts by one key both ways and by two, on a nullable date and estimate;
  sideloads (`project.`, `project.*`, `assignee.`, a project's `tasks.`), `exclude[]` of a field and
  of all but two; pages of 5 and of 3 (filtered) walked, a page asked directly, a page past the
  end; items, relation routes, 404s. Then the writes, each followed by reads: a task created,
  patched, put (moved to another project, assignee and due cleared), a seeded task patched, the new
  task deleted; a person created, patched, deleted; a project created with a task, patched, deleted
  (its task with it); refusals (400 missing fields, a bad choice, a taken code, 404s, 400 for a
  filter value that is not a number, an unknown sort or filter field).
- **probe-reads.har** — other values; `.gt` on the priority, `.gte` on the estimate,
  `.istartswith` (never in the build), `.in` with one value, a negation
  of another field and of a relation, `.isnull=false`, a date `.lte`, other codes across the
  relation and a boolean across it; people without an email; other sorts (a descending date, two
  keys with a string first, the estimate ascending), other sideloads (`assignee.*`, the managers'
  `tasks.`); other pages, a `per_page` above the limit, a page past the end; other items and
  relation routes, 404s, 400s for a wrong value and unknown fields on other collections.
- **probe-crud.har** — a task created in project 2, listed, patched (a due date), put into project
  4 for another person; a seeded task patched and another deleted; pages of 4 after the writes; a
  person created, patched, put, deleted; a seeded person deleted (their tasks lose the assignee); a
  project created, put, given a task, deleted (the task with it); refusals (400 missing fields, a
  missing project, an invalid email, 404s); a task the build read patched (reassigned) and another
  deleted; all tasks walked by `page`.

## API styles this app shows (corpus checklist)

{STYLES}

## What a faithful environment should do

**Envelopes.** A list answers `{{"<plural>": [...], "meta": {{page, per_page, total_results,
total_pages}}}}` plus one top-level key per sideloaded type; an item, a create, a PATCH and a PUT
`{{"<singular>": {{…}}}}`; a relation route `{{"tasks": [...]}}` without `meta`; a DELETE 204 without
a body. A write answer holds every field, a project's or person's to-many `tasks` as a list of ids
(`tasks: []`) where reads show `links`. A 400 for a write names each field's errors; a 400 for a
query is a list of strings (an empty string for a value of the wrong type); a 404 is
`{{"detail": …}}` (Django's HTML page for an unknown route).

**Not deterministic across captures.** The `Date` headers only (the clock is frozen).

## What the captures cannot show

- The clock a write sets is frozen; a live app's would move.

## HAR producer notes

{producer_notes(summaries)}
- wsgiref answers HTTP/1.0 (`Server: WSGIServer/0.2`), one connection per request; answers are
  `application/json` with an `Allow` header.
"""
