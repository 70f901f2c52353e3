"""The captures' README for the nestjs-crud tracker (written by record.py after each recording)."""

import json
from pathlib import Path

from appdriver import CAPTURE_FILES
from harlib import producer_notes, render_steps, render_summary_table

import record as R

HERE = Path(__file__).resolve().parent
PACKAGE = json.loads((HERE / "package.json").read_text())
SEED = json.loads((HERE / "seed.json").read_text())


def seed_tables() -> str:
    names = {p["id"]: p["name"] for p in SEED["people"]}
    codes = {p["id"]: p["code"] for p in SEED["projects"]}
    rows = ["| route | id | what | other fields |", "| --- | ---: | --- | --- |"]
    for p in SEED["projects"]:
        rows.append(f"| `/projects` | {p['id']} | {p['name']} | code={p['code']}, budget={p['budget']}, "
                    f"active={str(p['active']).lower()} |")
    for p in SEED["people"]:
        rows.append(f"| `/people` | {p['id']} | {p['name']} | role={p['role']}, email={p['email'] or 'null'} |")
    for t in SEED["tasks"]:
        who = f"{t['assigneeId']} ({names[t['assigneeId']]})" if t["assigneeId"] else "null"
        est = t["estimate"] if t["estimate"] is not None else "null"
        rows.append(f"| `/tasks` | {t['id']} | {t['title']} | status={t['status']}, priority={t['priority']}, "
                    f"estimate={est}, due={t['due'] or 'null'}, projectId={t['projectId']} "
                    f"({codes[t['projectId']]}), assigneeId={who} |")
    return "\n".join(rows)


STYLES = """| style | here |
| --- | --- |
| sort and filter parameters | `filter=<field>\\|\\|<operator>\\|\\|<value>` (repeated: AND) and `or=…` (with one `filter` and one `or`: either; with only `or`s: any), operators `$eq`, `$ne`, `$gt`, `$lt`, `$gte`, `$lte`, `$cont`, `$starts`, `$ends` (SQLite's LIKE: any case), `$in`/`$notin` with a comma list, `$isnull`/`$notnull` without a value; a joined relation's field (`project.code`, with `join=project`); `s=<JSON>` (`{"status":"todo"}`, `{"priority":{"$gte":2}}`, `{"$or":[…]}`; when `s` is given, `filter` and `or` are ignored); `sort=<field>,<ASC\\|DESC>` repeatable (ties and no sort: id order, the controllers' default `sort`); a field the entity does not have answers 500 (SQLite's `no such column`: never recorded) |
| pages | `limit` (or `per_page`), `offset`, `page`; `alwaysPaginate` is off, so a list answers a plain array unless a `page` or an `offset` comes with a `limit`: then `{data, count, total, page, pageCount}` (`count` the rows of this page, `total` every match; a page past the end: `data` `[]`); `limit` alone cuts the array; at most 50 (`maxLimit`) |
| sparse fields and embedding | `fields=id,title` (the primary key always answered), `join=project` (the relation's object embedded; `join=tasks` on `/projects` and `/people` an array) |
| nested routes | `/projects/{projectId}/tasks` (a second crud controller with `params.projectId`): every read filtered by the project, `GET /projects/{projectId}/tasks/{id}` 404 for another project's task, a create setting `projectId` from the path |
| generated ids | `POST` answers 201 with the whole object read back (the next SQLite id; defaults and the frozen clock filled in) |
| updates | `PATCH` merges the fields sent (validation group UPDATE: every field optional) and answers the object; `PUT` merges the body into the stored row the same way (@dataui/crud's `replaceOne`, validated with the UPDATE group too); `DELETE` answers 200 with the deleted object (`returnDeleted: true`, its `id` kept); a project's delete deletes its tasks (`ON DELETE CASCADE`), a person's clears their tasks' `assigneeId` (`ON DELETE SET NULL`); `updatedAt` is stamped on every task write (the frozen clock) |
| validation errors and conflicts | 400 `{message: [messages], error: "Bad Request", statusCode: 400}` from class-validator (`title should not be empty`, `status must be one of the following values: …`, `priority must not be greater than 3`, `email must be an email`); 400 `{statusCode, message, error}` for a foreign key naming no row; 409 `{statusCode: 409, message: "code is already taken", error: "Conflict"}` for a taken code; 404 `{message, error: "Not Found", statusCode: 404}` for an unknown id (`Task not found`) or route (`Cannot GET /invoices`) |
| fused ids, keyset cursors, upserts, documents, soft delete | no; `createdAt`/`updatedAt` on tasks are clocks (frozen); Express's weak `ETag` on every answer with a body |"""


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    deps = PACKAGE["dependencies"]
    pins = ", ".join(f"`{k}@{v}`" for k, v in deps.items())
    dev = ", ".join(f"`{k}@{v}`" for k, v in PACKAGE["devDependencies"].items())
    return f"""# nestjs-crud captures

Real HTTP traffic of a small project tracker served by **NestJS** (`@nestjs/core`
{deps['@nestjs/core']}, Express) with **@dataui/crud** {ver} (the maintained fork of @nestjsx/crud)
and `@dataui/crud-typeorm` on **TypeORM** {deps['typeorm']} with SQLite through `better-sqlite3`
{deps['better-sqlite3']}: the app is `src/main.ts` in this folder (three entities, three services
extending `TypeOrmCrudService`, four `@Crud()` controllers: `/projects`, `/people`, `/tasks` and the
nested `/projects/:projectId/tasks`), its seed `seed.json` (projects, people, tasks naming a
project and an optional assignee). The database is a SQLite file in `run/` deleted and created
again at every start (TypeORM's `synchronize`) with the seed's explicit ids and clocks, and the
clock every task write stamps (`@BeforeInsert`/`@BeforeUpdate` hooks) is frozen at
{R.APP_CLOCK}, so every capture starts from the same rows and writes the same clocks.

Recorded by `record.sh` in this folder. It installs the npm packages `package.json` pins
({pins}; to build: {dev}) with `npm ci` from `package-lock.json` (better-sqlite3 compiles from
source when its prebuilt binary cannot be downloaded: python3, make and g++; version 13 does not run
on Node 20), compiles `src/main.ts` with `tsc` into `run/dist/`, and for each capture starts
`node run/dist/main.js {R.APP_PORT}` (127.0.0.1 only, from `run/`), records through mitmdump on
port {R.PROXY_PORT}, and stops both by PID with SIGINT.

{CAPTURE_FILES}

{render_summary_table(summaries)}

## The app (`src/main.ts`): four @dataui/crud controllers

| route | answers | fields |
| --- | --- | --- |
| `/projects`, `/projects/{{id}}` | an array (or a page envelope); an object | `id`, `code` (required, 2 to 6 capitals, unique), `name` (required), `budget` (default 0), `active` (default true) |
| `/people`, `/people/{{id}}` | an array (or a page envelope); an object | `id`, `name` (required), `email` (an email or null), `role` (engineer, designer, manager; default engineer) |
| `/tasks`, `/tasks/{{id}}`, `/projects/{{projectId}}/tasks`, `/projects/{{projectId}}/tasks/{{id}}` | an array (or a page envelope); an object | `id`, `title` (required), `status` (todo, doing, done; default todo), `priority` (1 to 3, default 2), `estimate` (hours or null), `due` (a date or null), `projectId` (required, a project's id), `assigneeId` (a person's id or null), `createdAt`, `updatedAt` |

Every route is what `@Crud()` generates: `GET` list and item, `POST` (and `POST /bulk`, never
called), `PATCH`, `PUT`, `DELETE`. Global options (`CrudConfigService.load`): `alwaysPaginate:
false`, `maxLimit: 50`, `deleteOneBase.returnDeleted: true`; each controller sorts by `id` when the
call names no sort and allows `join` of its relations (`project`, `assignee`; `tasks`). Bodies are
validated by class-validator decorators on the entities (groups CREATE and UPDATE). SQLite's
constraint failures are mapped by an exception filter: a taken unique code answers 409, a foreign
key naming no row 400 (Nest would answer 500). Express's `X-Powered-By` is off; no header changes
from one call to the next but `Date`.

## Seed (the same before every capture; not recorded)

{seed_tables()}

Every task of the seed was created at `2026-11-0xT…Z` (`createdAt`/`updatedAt` as in `seed.json`).
Every recorded request sends `Accept: application/json`; writes with a body send `Content-Type:
application/json`. Query values are percent-encoded except `|`, `$`, `,`, `:` and `-`
(`filter=status||$in||doing,done`); the `s=` JSON is percent-encoded whole.

{render_steps(steps)}
## What each capture tests

- **build.har** — the three collections; `$eq` on a string, a foreign key, two filters (AND);
  `$ne`, `$gte`, `$lt`, `$gt`, `$lte`, `$cont`, `$starts`, `$ends`, `$in`, `$isnull` on a date and a
  foreign key, `$notnull`, a date `$gte`; `filter` with `or`, two `or`s; people by role and without
  an email; projects by a boolean, `$in`, a budget `$gte`; sorts by one key both ways, by two, on a
  nullable date, on people and projects; `limit` alone, pages of 5 (the envelope), `per_page`,
  `offset`, a filtered page, a sorted page, a page past the end; `fields=`, `join=` (a to-one, with
  a filter, a to-many, on an item, a filter on a joined field), `s=` (equality, an operator, `$or`);
  items, the nested route (list, filtered, item), 404s. Then the
  writes, each followed by reads: a task created, patched, put (moved to another project, assignee
  and due cleared), a seeded task patched, the new task deleted, a task created through the nested
  route; a person created, patched, put, deleted, a seeded person deleted (her tasks lose the
  assignee); a project created, patched, given a task through the nested route, put, deleted (its
  task with it); refusals (400 missing fields, a status not in the list, a priority out of range;
  409 a taken code; 404s).
- **probe-reads.har** — other values: `$lte` and `$gt` on the priority, `$gte`/`$lt` on the
  estimate, `$ends`, `$in` on a number, `$notnull` on a date, `$isnull` on the estimate, a date
  `$lt`, other combinations and `or`; people by another role, with an email, by a prefix; projects
  active, by `$lt`, by `$cont` on the name; other sorts (a descending date, the estimate, two keys
  with a string first, people by email, projects by code); other pages (`offset`, `per_page`, a
  filtered page); other `fields=`, `join=` with filters, `s=` on other fields; other items and
  nested lists, a nested item; 404s (another project's task through the nested route).
- **probe-crud.har** — a task created in project 2, listed, patched (a due date), put into project
  4 for another person; a seeded task patched and another deleted; a task created through another
  project's nested route; a page after the writes; a person created, put, patched (email to null),
  deleted; a seeded person deleted (his tasks lose the assignee); a project created inactive, put
  active, given a task, deleted (the task with it); refusals (400 a missing title, a missing
  project, an invalid email; 409 a taken code on PATCH; 404); a seeded task reassigned and another
  deleted; all tasks.

## API styles this app shows (corpus checklist)

{STYLES}

## What a faithful environment should do

**Answers.** A list answers a plain JSON array, or with a `page`/`offset` and a `limit` the
envelope `{{data, count, total, page, pageCount}}`; an item, a create, a PATCH, a PUT and a DELETE
answer the object (a create with 201). A 400 lists class-validator's messages; a 404 is
`{{message, error, statusCode}}`.

**Not deterministic across captures.** The `Date` headers only (the clock is frozen; the ETags
follow the bodies).

## What the captures cannot show

- The clock a write sets is frozen; a live app's would move.
- @dataui/crud's other operators (`$notin`, `$between`, `$excl`, the case-insensitive `…L`
  variants), `cache`, `POST /bulk`, and nested `join` paths (`join=project.tasks`) are never used.

## HAR producer notes

{producer_notes(summaries)}
- Express answers HTTP/1.1 with `Connection: keep-alive` and `Keep-Alive: timeout=5`; answers are
  `application/json; charset=utf-8` with a weak `ETag`.
"""
