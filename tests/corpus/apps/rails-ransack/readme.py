"""The captures' README for the rails-ransack tracker (written by record.py after each recording)."""

import json
import re
from pathlib import Path

from appdriver import CAPTURE_FILES
from harlib import producer_notes, render_steps, render_summary_table

import record as R

HERE = Path(__file__).resolve().parent
PINNED = ["rails", "ransack", "kaminari", "api-pagination", "sqlite3", "webrick"]
SEED = json.loads((HERE / "seed.json").read_text())


def locked() -> dict:
    """Every gem of Gemfile.lock with its version."""
    return dict(re.findall(r"^    ([a-z0-9_.-]+) \(([^)]+)\)$", (HERE / "Gemfile.lock").read_text(), re.M))


def ransack_version() -> str:
    return locked()["ransack"]


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
        who = f"{t['assignee_id']} ({names[t['assignee_id']]})" if t["assignee_id"] else "null"
        est = t["estimate"] if t["estimate"] is not None else "null"
        rows.append(f"| `/tasks` | {t['id']} | {t['title']} | status={t['status']}, priority={t['priority']}, "
                    f"estimate={est}, due={t['due'] or 'null'}, project_id={t['project_id']} "
                    f"({codes[t['project_id']]}), assignee_id={who} |")
    return "\n".join(rows)


STYLES = """| style | here |
| --- | --- |
| `next` links, Link headers, page numbers | `page`/`per_page` (10 a page, at most 50: a larger `per_page` answers 50) on every index; the body is a plain array; api-pagination answers `Total` (the count of every match), `Per-Page` and a `Link` header with absolute URLs `rel="first"`/`"prev"` (past the first page) and `"last"`/`"next"` (before the last), each the call's query re-encoded by Rails (`to_param`: names percent-encoded, a space as `+`, parameters in sorted order, `page` replaced); a page past the end answers 200 `[]` with `first`/`prev` only |
| sort and filter parameters | ransack `q[<attribute>_<predicate>]=v` on the attributes each model allows (`ransackable_attributes`) and through its associations (`q[project_code_eq]=WEB`, `q[assignee_role_eq]=designer`, `q[project_active_eq]=false`): `_eq`, `_not_eq`, `_lt`, `_lteq`, `_gt`, `_gteq`, `_in[]`, `_not_in[]`, `_cont`, `_not_cont`, `_start`, `_end` (SQLite's LIKE: any case), `_null`, `_not_null`; `q[s]=priority desc` (or `q[s][]=` repeated); id order without `q[s]`; an unknown attribute or predicate is ignored (ransack's default `ignore_unknown_conditions`), a value of the wrong type is cast (`abc` as a number is 0) |
| nested routes | `GET /projects/{id}/tasks` (the project's tasks, with `q` and pages like `/tasks`) and `POST /projects/{id}/tasks` (the project set from the path); 404 for a project that does not exist |
| generated ids | `POST` answers 201 with the whole object (the next SQLite id, `AUTOINCREMENT`: a deleted last id is not drawn again) and `Location: http://127.0.0.1:18887/tasks/17` |
| updates | scaffold `update`: `PATCH` and `PUT` both merge the permitted fields sent and answer 200 with the object (its changed attributes first: Rails' attribute order after an assignment); `DELETE` answers 204 without a body; a project's delete destroys its tasks (`dependent: :destroy`), a person's clears their tasks' `assignee_id` (`dependent: :nullify`); `updated_at` is stamped on every write (the frozen clock) |
| validation errors and conflicts | 422 `{field: [messages]}` (`can't be blank`, `must exist` for a missing project, `is not included in the list`, `has already been taken`, `is invalid`, `must be less than or equal to 3`); 404 `{"status": 404, "error": "Not Found"}` for an unknown id or route (Rails' `PublicExceptions` in JSON); 400 `{"status": 400, "error": "Bad Request"}` for a write whose body names no permitted field |
| fused ids, keyset cursors, upserts, documents, soft delete | no; `created_at`/`updated_at` are clocks (the app's clock is frozen); `ETag` (weak) and `Cache-Control` on every 200 |"""


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    lock = locked()
    pins = ", ".join(f"`{g} {lock[g]}`" for g in PINNED)
    return f"""# rails-ransack captures

Real HTTP traffic of a small project tracker served by **Ruby on Rails** (API-only, `rails`
{lock['rails']}) with **ransack** {ver} filters and sorts and **kaminari** pages through
**api-pagination** headers: the app is `app.rb` in this folder (what `rails new --api` and
`rails generate scaffold` make, in one file: three ActiveRecord models, three scaffold controllers
rendering `render json:`, `resources` routes with a nested `/projects/:project_id/tasks`), its seed
`seed.json` (projects, people, tasks naming a project and an optional assignee). The database is a
SQLite file in `run/` deleted and created again at every start with the seed's explicit ids and
clocks, and the clock every write stamps is frozen at {R.APP_CLOCK}, so every capture starts from
the same rows and writes the same clocks.

Recorded by `record.sh` in this folder. It installs Ruby 3.1 and Rails with the rest of the gems
from Debian bookworm's packages (`apt-get install ruby-full ruby-rails ruby-sqlite3 ruby-kaminari
ruby-api-pagination ruby-webrick bundler …`); ransack is not packaged by Debian, so `record.sh`
installs it with `gem install ransack -v 4.2.1` into `/tmp/rea-rails-ransack-gems` (or from a local
`.gem` file named by `REA_RANSACK_GEM`: this recording's machine reached no gem server, and
installed a `ransack-4.2.1.gem` built with `gem build` from the `v4.2.1` tag of the ransack
repository). `Gemfile` pins {pins}, and `Gemfile.lock` the whole resolution (`bundle check` must
pass). For each capture it starts `ruby app.rb {R.APP_PORT}` (WEBrick, 127.0.0.1 only,
`RAILS_ENV=production`; no mailer, job, cable or storage framework is loaded), records through
mitmdump on port {R.PROXY_PORT}, and stops both by PID with SIGINT.

{CAPTURE_FILES}

{render_summary_table(summaries)}

## The app (`app.rb`): three scaffold controllers

| route | answers | fields |
| --- | --- | --- |
| `/projects`, `/projects/{{id}}` | an array; an object | `id`, `code` (required, unique), `name` (required), `budget` (default 0), `active` (default true), `created_at`, `updated_at` |
| `/people`, `/people/{{id}}` | an array; an object | `id`, `name` (required), `email` (an email or null), `role` (engineer, designer, manager; default engineer), `created_at`, `updated_at` |
| `/tasks`, `/tasks/{{id}}`, `/projects/{{id}}/tasks` | an array; an object | `id`, `title` (required), `status` (todo, doing, done; default todo), `priority` (1 to 3, default 2), `estimate` (hours or null), `due` (a date or null), `project_id` (required: `must exist`), `assignee_id` (a person's id or null), `created_at`, `updated_at` |

Every index takes `q[…]` (ransack), `page` and `per_page` (api-pagination with kaminari). A write's
body is flat JSON (`{{"title": …}}`), wrapped by Rails' `wrap_parameters` under the model's name and
filtered by the scaffold's `permit`. The request id and runtime headers (`X-Request-Id`,
`X-Runtime`) are removed from the middleware: they change at every call.

## Seed (the same before every capture; not recorded)

{seed_tables()}

Every recorded request sends `Accept: application/json`; writes with a body send `Content-Type:
application/json`. Parameter names are sent as written (`q[status_in][]`), values percent-encoded;
the pages walked by `Link: rel="next"` are requested with the URL the app wrote.

{render_steps(steps)}
## What each capture tests

- **build.har** — the three collections (tasks walked by `Link` `next`); `_eq` on a string, a
  foreign key, two conditions; `_not_eq`, `_gteq`, `_lt`, `_gt`, `_cont`, `_start`, `_in[]`,
  `_null` on a date and a foreign key, a date `_gteq`; `project_code_eq` and `assignee_role_eq`
  through the associations; people by role; projects by a boolean, `code_in[]`, a budget `_gteq`;
  sorts by one key both ways, by two (`q[s][]`), on a nullable date, on people and projects; pages of
  6 and of 3 (filtered) walked by `Link`, a page asked directly, a page past the end, a filtered and
  sorted page; items, the nested route (with `q` too), 404s. Then the writes, each followed by
  reads: a task created, patched, put (moved to another project, assignee and due cleared), a seeded
  task patched, the new task deleted, a task created through the nested route; a person created,
  patched, put, deleted, a seeded person deleted (her tasks lose the assignee); a project created
  with a task, patched, put, deleted (its task with it); refusals (422 missing fields, a status not
  in the list, a taken code, a priority out of range; 404s).
- **probe-reads.har** — other values; `_gt` and `_lteq` on the priority, `_gteq`/`_lt` on the
  estimate, `_end`, `_not_cont`, `_not_in[]` (never in the build), `_in[]` with one value and on a
  number, `_not_null`, `_null` of another column, a date `_lteq`; other codes through the
  association, a boolean and another role through it; people without an email, by a prefix;
  projects by `_lt`, `_cont`; other sorts (a descending date, two keys with a string first, the
  estimate ascending, people by email, projects by code), other pages, a `per_page` above the
  limit, a page past the end; other items and nested lists (with a filter and a sort), 404s, an
  unknown attribute ignored.
- **probe-crud.har** — a task created in project 2, listed, patched (a due date), put into project
  4 for another person; a seeded task patched and another deleted; the last page of 4 after the
  writes; a task created through another project's nested route; a person created, put, patched
  (email to null), deleted; a seeded person deleted (her tasks lose the assignee); a project
  created, put, given a task, deleted (the task with it); refusals (422 missing fields, a missing
  project, an invalid email, a taken code on PATCH; 404s); a task the build read patched
  (reassigned) and another deleted; all tasks walked by `Link`.

## API styles this app shows (corpus checklist)

{STYLES}

## What a faithful environment should do

**Answers.** An index answers a plain JSON array with the headers `Total`, `Per-Page` and (beyond
one page) `Link`; an item, a create, a PATCH and a PUT answer the object (a create with 201 and
`Location`); a DELETE 204 without a body. A 422 names each field's errors; a 404 is
`{{"status": 404, "error": "Not Found"}}`.

**Not deterministic across captures.** The `Date` headers only (the clock is frozen; the ETags
follow the bodies).

## What the captures cannot show

- The clock a write sets is frozen; a live app's would move.
- ransack's other predicates (`_matches`, `_present`, `_blank`, `_cont_any`, `_or_` combinations,
  `q[m]=or`) and the attributes a model does not allow are never used.

## HAR producer notes

{producer_notes(summaries)}
- WEBrick answers HTTP/1.1 with `Connection: Keep-Alive` (`Server: WEBrick/1.8.1 (Ruby/3.1.2/2022-04-12)`);
  answers are `application/json; charset=utf-8` (a 404 from Rails' `PublicExceptions`:
  `application/json; charset=UTF-8`, without `ETag`); a 204 has no `Content-Type`.
"""
