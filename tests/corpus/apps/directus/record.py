"""Record HAR captures of a real Directus 11 (SQLite) project tracker.

Run through record.sh (it installs the app and the recorder venv). Once per
run this script bootstraps an empty SQLite database (admin user with a fixed
id and static token), starts Directus on it and seeds the schema and items through
the API (not recorded), then stops it; that seeded file is the template. For
each scenario it copies the template to run/capture.db, starts Directus on
the copy, starts mitmdump as a loopback proxy writing the HAR, runs the
scenario through the proxy, stops the proxy (the HAR is written) and
Directus, both by PID. Then it validates the HARs and writes README.md.

Directus is started through `@directus/api/cli/run.js`, not the `directus`
wrapper, whose update check asks the npm registry for newer versions.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "kit"))

import httpx  # noqa: E402

from appdriver import AppSpec, npm_version, record_app  # noqa: E402
from harlib import Recorder, start_process, stop_pid, wait_for_port  # noqa: E402

RUN = HERE / "run"
APP_PORT = 18825
PROXY_PORT = 18925
BASE = f"http://127.0.0.1:{APP_PORT}"
CLI = HERE / "node_modules" / "@directus" / "api" / "dist" / "cli" / "run.js"
ADMIN_EMAIL = "admin@example.com"
ADMIN_PASSWORD = "s3cret"
ADMIN_ID = "00000000-0000-4000-8000-000000018825"
TOKEN = "corpus-admin-token-s3cret"
AUTH = {"Authorization": f"Bearer {TOKEN}"}

# ---------------------------------------------------------------- the seed
PK = {"field": "id", "type": "integer", "meta": {"hidden": True, "readonly": True, "interface": "input"},
      "schema": {"is_primary_key": True, "has_auto_increment": True}}


def choices(*values):
    return {"interface": "select-dropdown", "options": {"choices": [{"text": v, "value": v} for v in values]}}


PROJECTS_COLLECTION = {
    "collection": "projects",
    "meta": {"archive_field": "status", "archive_value": "archived", "unarchive_value": "active",
             "note": "status=archived is Directus's soft delete (archive) for this collection"},
    "schema": {},
    "fields": [
        PK,
        {"field": "name", "type": "string", "meta": {"required": True}, "schema": {"is_nullable": False}},
        {"field": "code", "type": "string", "meta": {"required": True},
         "schema": {"is_nullable": False, "is_unique": True}},
        {"field": "status", "type": "string", "meta": choices("active", "paused", "archived"),
         "schema": {"default_value": "active", "is_nullable": False}},
        {"field": "budget", "type": "integer", "schema": {}},
        {"field": "start_date", "type": "date", "schema": {}},
    ],
}
TASKS_COLLECTION = {
    "collection": "tasks",
    "meta": {"sort_field": "sort"},
    "schema": {},
    "fields": [
        PK,
        {"field": "sort", "type": "integer", "meta": {"hidden": True}, "schema": {}},
        {"field": "title", "type": "string", "meta": {"required": True}, "schema": {"is_nullable": False}},
        {"field": "state", "type": "string", "meta": choices("todo", "doing", "done"),
         "schema": {"default_value": "todo"}},
        {"field": "priority", "type": "integer",
         "meta": {"validation": {"_and": [{"priority": {"_between": [1, 5]}}]},
                  "validation_message": "priority must be between 1 and 5"},
         "schema": {"default_value": 3}},
        {"field": "assignee", "type": "string", "schema": {}},
        {"field": "due", "type": "date", "schema": {}},
        {"field": "estimate_h", "type": "float", "schema": {}},
        {"field": "tags", "type": "json", "meta": {"special": ["cast-json"], "interface": "tags"}, "schema": {}},
        {"field": "project", "type": "integer", "meta": {"interface": "select-dropdown-m2o"}, "schema": {}},
    ],
}
SITE_COLLECTION = {
    "collection": "site_settings",
    "meta": {"singleton": True},
    "schema": {},
    "fields": [
        PK,
        {"field": "team_name", "type": "string", "schema": {}},
        {"field": "week_starts_on", "type": "string", "schema": {}},
        {"field": "default_priority", "type": "integer", "schema": {}},
    ],
}
TASKS_ALIAS = {"field": "tasks", "type": "alias", "meta": {"special": ["o2m"], "interface": "list-o2m"}}
RELATION = {"collection": "tasks", "field": "project", "related_collection": "projects",
            "meta": {"one_field": "tasks", "sort_field": "sort"}, "schema": {"on_delete": "SET NULL"}}

PROJECTS = [
    {"name": "Website relaunch", "code": "WEB", "status": "active", "budget": 40000, "start_date": "2026-09-01"},
    {"name": "Mobile app", "code": "MOB", "status": "active", "budget": 65000, "start_date": "2026-10-15"},
    {"name": "Legacy CRM export", "code": "CRM", "status": "paused", "budget": 8000, "start_date": "2026-06-01"},
    {"name": "Office move", "code": "OFF", "status": "archived", "budget": 12000, "start_date": "2025-11-01"},
]
TASKS = [
    {"title": "Draft homepage copy", "state": "todo", "priority": 2, "assignee": "ana", "due": "2026-12-05",
     "estimate_h": 6, "tags": ["content"], "project": 1},
    {"title": "Set up CI pipeline", "state": "doing", "priority": 1, "assignee": "bo", "due": "2026-11-30",
     "estimate_h": 10, "tags": ["infra"], "project": 2},
    {"title": "Fix login redirect", "state": "done", "priority": 1, "assignee": "ana", "due": "2026-11-20",
     "estimate_h": 3, "tags": ["bug"], "project": 1},
    {"title": "Export customer list", "state": "todo", "priority": 3, "assignee": "chen", "due": "2026-12-20",
     "estimate_h": 4.5, "tags": [], "project": 3},
    {"title": "Write release notes", "state": "done", "priority": 4, "assignee": "bo", "due": None,
     "estimate_h": 2, "tags": ["content", "release"], "project": 2},
    {"title": "Design app icons", "state": "doing", "priority": 3, "assignee": "dana", "due": "2026-12-12",
     "estimate_h": 8, "tags": ["design"], "project": 2},
    {"title": "Accessibility audit", "state": "todo", "priority": 2, "assignee": None, "due": "2027-01-10",
     "estimate_h": 12, "tags": ["a11y", "content"], "project": 1},
    {"title": "Book movers", "state": "done", "priority": 5, "assignee": "chen", "due": "2025-12-01",
     "estimate_h": 1, "tags": [], "project": 4},
    {"title": "Clean up old tickets", "state": "todo", "priority": 5, "assignee": None, "due": None,
     "estimate_h": None, "tags": [], "project": None},
]
SITE = {"team_name": "Platform team", "week_starts_on": "monday", "default_priority": 3}


def directus_env(db: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DB_", "HTTP_PROXY", "HTTPS_PROXY"))}
    env.update({
        "DB_CLIENT": "sqlite3", "DB_FILENAME": str(db), "KEY": "corpus-key-0001", "SECRET": "corpus-secret-0001",
        "ADMIN_EMAIL": ADMIN_EMAIL, "ADMIN_PASSWORD": ADMIN_PASSWORD, "ADMIN_TOKEN": TOKEN,
        "HOST": "127.0.0.1", "PORT": str(APP_PORT), "PUBLIC_URL": BASE, "TELEMETRY": "false",
        "LOG_LEVEL": "warn", "STORAGE_LOCATIONS": "local", "STORAGE_LOCAL_ROOT": str(RUN / "uploads"),
        "EXTENSIONS_PATH": str(RUN / "extensions"), "CACHE_ENABLED": "false", "RATE_LIMITER_ENABLED": "false",
        "WEBSOCKETS_ENABLED": "false", "MARKETPLACE_TRUST": "sandbox",
    })
    return env


def start_directus(db: Path, log: Path) -> subprocess.Popen:
    log.write_bytes(b"")
    app = start_process(["node", CLI, "start"], log, cwd=RUN, env=directus_env(db))
    wait_for_port(APP_PORT, 180, app)
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            if httpx.get(f"{BASE}/server/ping", trust_env=False).text == "pong":
                return app
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise RuntimeError("directus did not answer /server/ping")


def seed_template() -> None:
    """Bootstrap an empty database and seed it through the API; the file is every scenario's seed."""
    for d in ("uploads", "extensions"):
        (RUN / d).mkdir(parents=True, exist_ok=True)
    (RUN / "package.json").write_text('{"name": "directus-run", "private": true}\n')
    db = RUN / "template.db"
    db.unlink(missing_ok=True)
    log = RUN / "directus-seed.log"
    with open(log, "wb") as f:
        subprocess.run(["node", CLI, "bootstrap"], cwd=RUN, env=directus_env(db), stdout=f,
                       stderr=subprocess.STDOUT, check=True)
    with sqlite3.connect(db) as con:  # bootstrap draws a random admin id; nothing refers to it yet
        con.execute("UPDATE directus_users SET id = ? WHERE email = ?", (ADMIN_ID, ADMIN_EMAIL))
    app = start_directus(db, log)
    try:
        with httpx.Client(base_url=BASE, timeout=60, trust_env=False, headers=AUTH) as c:
            def ok(r):
                if r.status_code >= 300:
                    raise RuntimeError(f"seed {r.request.method} {r.request.url}: {r.status_code} {r.text[:400]}")
                return r
            for coll in (PROJECTS_COLLECTION, TASKS_COLLECTION, SITE_COLLECTION):
                ok(c.post("/collections", json=coll))
            ok(c.post("/fields/projects", json=TASKS_ALIAS))
            ok(c.post("/relations", json=RELATION))
            for p in PROJECTS:
                ok(c.post("/items/projects", json=p))
            for i, t in enumerate(TASKS, 1):
                ok(c.post("/items/tasks", json={**t, "sort": i}))
            ok(c.patch("/items/site_settings", json=SITE))
    finally:
        stop_pid(app, signal.SIGTERM, 30)


# ---------------------------------------------------------------- scenarios
def scenario_build(rec: Recorder) -> None:
    rec.section("Discover: server, the current user, the schema")
    rec.call("GET", "/server/ping", "liveness", expect=200)
    rec.call("GET", "/server/info", "project info", expect=200)
    rec.call("GET", "/users/me", "the current user (static token)", params={"fields": "id,email,first_name"},
             expect=200)
    rec.call("GET", "/collections/tasks", "the tasks collection's meta (sort field)", expect=200)
    rec.call("GET", "/fields/tasks", "the fields of tasks (types, validation)", expect=200)
    rec.call("GET", "/relations/tasks", "relations of tasks (project -> projects)", expect=200)

    rec.section("List reads: filters (bracket and JSON forms), sort, pages, fields, meta, search")
    rec.call("GET", "/items/projects", "list projects", expect=200)
    rec.call("GET", "/items/tasks", "list tasks", expect=200)
    rec.call("GET", "/items/tasks", "filter[state][_eq]=todo", params={"filter[state][_eq]": "todo"}, expect=200)
    rec.call("GET", "/items/tasks", "filter[priority][_lte]=2, sort by priority then title",
             params={"filter[priority][_lte]": "2", "sort": "priority,title"}, expect=200)
    rec.call("GET", "/items/tasks", "filter[title][_contains]=page", params={"filter[title][_contains]": "page"},
             expect=200)
    rec.call("GET", "/items/tasks", "filter[assignee][_in]=ana,bo", params={"filter[assignee][_in]": "ana,bo"},
             expect=200)
    rec.call("GET", "/items/tasks", "JSON filter form: filter={\"estimate_h\":{\"_gt\":5}}",
             params={"filter": json.dumps({"estimate_h": {"_gt": 5}})}, expect=200)
    rec.call("GET", "/items/tasks", "relational filter: filter[project][code][_eq]=MOB, fields with project.name",
             params={"filter[project][code][_eq]": "MOB", "fields": "id,title,project.name"}, expect=200)
    rec.call("GET", "/items/tasks", "page 1: limit 3, sort -priority, meta total_count and filter_count",
             params={"limit": "3", "page": "1", "sort": "-priority,id", "meta": "total_count,filter_count"},
             expect=200)
    rec.call("GET", "/items/tasks", "page 2", params={"limit": "3", "page": "2", "sort": "-priority,id",
                                                      "meta": "total_count,filter_count"}, expect=200)
    rec.call("GET", "/items/tasks", "offset 6, limit 3", params={"limit": "3", "offset": "6", "sort": "id"},
             expect=200)
    rec.call("GET", "/items/tasks", "search=release", params={"search": "release"}, expect=200)
    rec.call("GET", "/items/tasks", "aggregate: count per state",
             params={"aggregate[count]": "id", "groupBy[]": "state"}, expect=200)
    rec.call("GET", "/items/projects", "projects not archived, with their open tasks (deep filter)",
             params={"filter[status][_neq]": "archived", "fields": "id,code,name,tasks.id,tasks.title,tasks.state",
                     "deep[tasks][_filter][state][_neq]": "done"}, expect=200)

    rec.section("Entity reads")
    rec.call("GET", "/items/tasks/1", "task 1", expect=200)
    rec.call("GET", "/items/tasks/2", "task 2 with its project expanded", params={"fields": "*,project.*"},
             expect=200)
    rec.call("GET", "/items/projects/1", "project 1 with task ids", params={"fields": "*,tasks"}, expect=200)
    rec.call("GET", "/items/projects/3", "project 3", expect=200)
    rec.call("GET", "/items/site_settings", "the singleton site_settings", expect=200)

    rec.section("Create one task; read it and the filtered list")
    r = rec.call("POST", "/items/tasks", "create task (every field); answers {data: {id, ...}}",
                 json={"title": "Plan launch party", "state": "todo", "priority": 3, "assignee": "dana",
                       "due": "2027-01-15", "estimate_h": 5, "tags": ["event"], "project": 1}, expect=200)
    t_new = r.json()["data"]["id"]
    rec.call("GET", f"/items/tasks/{t_new}", "read it by its generated id", expect=200)
    rec.call("GET", "/items/tasks", "tasks of project 1", params={"filter[project][_eq]": "1", "sort": "id"},
             expect=200)
    r = rec.call("POST", "/items/tasks", "create task with only the required title (defaults filled)",
                 json={"title": "Call the venue"}, expect=200)
    t_min = r.json()["data"]["id"]
    rec.call("GET", f"/items/tasks/{t_min}", "read it: state todo, priority 3 by default", expect=200)

    rec.section("Create a project with nested tasks (generated ids nested in the created object)")
    r = rec.call("POST", "/items/projects", "create project DWH with two nested tasks",
                 params={"fields": "*,tasks.*"},
                 json={"name": "Data warehouse", "code": "DWH", "budget": 30000, "start_date": "2027-01-02",
                       "tasks": [{"title": "Pick a warehouse engine", "priority": 2, "assignee": "chen"},
                                 {"title": "Model the sales facts", "priority": 3, "tags": ["modelling"]}]},
                 expect=200)
    p_new = r.json()["data"]["id"]
    rec.call("GET", f"/items/projects/{p_new}", "read the project with its tasks",
             params={"fields": "*,tasks.id,tasks.title"}, expect=200)
    rec.call("GET", "/items/tasks", "tasks of the new project", params={"filter[project][_eq]": str(p_new)},
             expect=200)
    rec.call("GET", "/items/projects", "projects: DWH listed", params={"fields": "id,code,status"}, expect=200)

    rec.section("Batch create")
    r = rec.call("POST", "/items/tasks", "create two tasks in one call (array body, array answer)",
                 json=[{"title": "Order badges", "project": p_new, "priority": 4},
                       {"title": "Invite speakers", "project": p_new, "priority": 2, "assignee": "ana"}],
                 expect=200)
    batch = [t["id"] for t in r.json()["data"]]
    rec.call("GET", "/items/tasks", "read both by id (_in)", params={"filter[id][_in]": ",".join(map(str, batch))},
             expect=200)

    rec.section("Update one, update many")
    rec.call("PATCH", "/items/tasks/1", "PATCH task 1: state doing, priority 1",
             json={"state": "doing", "priority": 1}, expect=200)
    rec.call("GET", "/items/tasks/1", "read task 1", expect=200)
    rec.call("GET", "/items/tasks", "state doing: task 1 included", params={"filter[state][_eq]": "doing"},
             expect=200)
    rec.call("PATCH", "/items/tasks", "batch PATCH {keys, data}: assign the two batch tasks to bo",
             json={"keys": batch, "data": {"assignee": "bo"}}, expect=200)
    rec.call("GET", f"/items/tasks/{batch[0]}", "read the first batch task", expect=200)
    rec.call("GET", "/items/tasks", "assignee bo", params={"filter[assignee][_eq]": "bo"}, expect=200)

    rec.section("Archive a project (soft delete by status)")
    rec.call("PATCH", "/items/projects/3", "archive project CRM: status archived", json={"status": "archived"},
             expect=200)
    rec.call("GET", "/items/projects/3", "still readable, status archived", expect=200)
    rec.call("GET", "/items/projects", "projects not archived: CRM gone",
             params={"filter[status][_neq]": "archived"}, expect=200)

    rec.section("Singleton and the manual sort action route")
    rec.call("PATCH", "/items/site_settings", "PATCH the singleton: week starts on sunday",
             json={"week_starts_on": "sunday"}, expect=200)
    rec.call("GET", "/items/site_settings", "read it", expect=200)
    rec.call("POST", "/utils/sort/tasks", "action route: move task 7 to the place of task 1",
             json={"item": 7, "to": 1}, expect=200)
    rec.call("GET", "/items/tasks", "tasks in manual order (sort=sort)", params={"sort": "sort",
                                                                            "fields": "id,title,sort"}, expect=200)

    rec.section("Delete one, delete many")
    rec.call("DELETE", f"/items/tasks/{t_min}", "delete the minimal task (204)", expect=204)
    rec.call("GET", f"/items/tasks/{t_min}", "read it: 403 FORBIDDEN (Directus hides missing items)", expect=403)
    rec.call("GET", "/items/tasks", "tasks: it is gone", params={"fields": "id,title", "sort": "id"}, expect=200)
    rec.call("DELETE", "/items/tasks", "batch DELETE by a JSON array of ids", json=batch, expect=204)
    rec.call("GET", "/items/tasks", "the batch ids: none left", params={"filter[id][_in]": ",".join(map(str, batch))},
             expect=200)

    rec.section("History")
    rec.call("GET", "/revisions", "revisions of task 1 (the seed's create and the PATCH)",
             params={"filter[collection][_eq]": "tasks", "filter[item][_eq]": "1", "fields": "id,data,delta",
                     "sort": "id"}, expect=200)


def scenario_probe_reads(rec: Recorder) -> None:
    rec.section("Other filters: operators, fields, values, logical groups")
    rec.call("GET", "/items/tasks", "state done", params={"filter[state][_eq]": "done"}, expect=200)
    rec.call("GET", "/items/tasks", "priority _gte 4", params={"filter[priority][_gte]": "4"}, expect=200)
    rec.call("GET", "/items/tasks", "priority _between 2,3", params={"filter[priority][_between]": "2,3"},
             expect=200)
    rec.call("GET", "/items/tasks", "assignee _null", params={"filter[assignee][_null]": "true"}, expect=200)
    rec.call("GET", "/items/tasks", "due _nnull and due _lt 2026-12-10",
             params={"filter[due][_nnull]": "true", "filter[due][_lt]": "2026-12-10"}, expect=200)
    rec.call("GET", "/items/tasks", "title _icontains LOGIN", params={"filter[title][_icontains]": "LOGIN"},
             expect=200)
    rec.call("GET", "/items/tasks", "title _starts_with Write", params={"filter[title][_starts_with]": "Write"},
             expect=200)
    rec.call("GET", "/items/tasks", "assignee _nin ana,bo", params={"filter[assignee][_nin]": "ana,bo"},
             expect=200)
    rec.call("GET", "/items/tasks", "_or: state doing or priority 5",
             params={"filter[_or][0][state][_eq]": "doing", "filter[_or][1][priority][_eq]": "5"}, expect=200)
    rec.call("GET", "/items/tasks", "JSON filter with _and",
             params={"filter": json.dumps({"_and": [{"state": {"_neq": "done"}}, {"estimate_h": {"_lte": 6}}]})},
             expect=200)
    rec.call("GET", "/items/tasks", "relational: project status paused",
             params={"filter[project][status][_eq]": "paused", "fields": "id,title,project.code"}, expect=200)
    rec.call("GET", "/items/tasks", "state blocked: nothing", params={"filter[state][_eq]": "blocked"}, expect=200)
    rec.call("GET", "/items/projects", "budget _gt 20000", params={"filter[budget][_gt]": "20000"}, expect=200)
    rec.call("GET", "/items/projects", "projects having a task assigned to chen (_some)",
             params={"filter[tasks][_some][assignee][_eq]": "chen", "fields": "id,code"}, expect=200)

    rec.section("Other sorts, pages, fields, meta, aggregates")
    rec.call("GET", "/items/tasks", "sort -due", params={"sort": "-due,id", "fields": "id,due"}, expect=200)
    rec.call("GET", "/items/tasks", "page 3 of 4 per page with meta",
             params={"limit": "4", "page": "3", "sort": "id", "meta": "total_count,filter_count"}, expect=200)
    rec.call("GET", "/items/tasks", "filtered page with meta: state todo, limit 2, page 2",
             params={"filter[state][_eq]": "todo", "limit": "2", "page": "2", "sort": "id",
                     "meta": "filter_count"}, expect=200)
    rec.call("GET", "/items/tasks", "limit -1 (all), fields title", params={"limit": "-1", "fields": "title"},
             expect=200)
    rec.call("GET", "/items/tasks", "search=export", params={"search": "export"}, expect=200)
    rec.call("GET", "/items/tasks", "aggregate: sum of estimate_h per project",
             params={"aggregate[sum]": "estimate_h", "groupBy[]": "project"}, expect=200)
    rec.call("GET", "/items/projects", "aggregate: count of every project", params={"aggregate[count]": "*"},
             expect=200)
    rec.call("GET", "/items/projects", "projects with all tasks, sorted by code",
             params={"fields": "code,tasks.title", "sort": "code"}, expect=200)

    rec.section("Entities the build never read")
    rec.call("GET", "/items/tasks/4", "task 4", expect=200)
    rec.call("GET", "/items/tasks/9", "task 9 (no project)", params={"fields": "*,project.*"}, expect=200)
    rec.call("GET", "/items/tasks/8", "task 8, fields title,state", params={"fields": "title,state"}, expect=200)
    rec.call("GET", "/items/projects/2", "project 2 with tasks", params={"fields": "*,tasks.*"}, expect=200)
    rec.call("GET", "/items/projects/4", "project 4 (archived)", expect=200)
    rec.call("GET", "/collections/projects", "the projects collection's meta (archive field)", expect=200)
    rec.call("GET", "/fields/projects/code", "one field: projects.code (unique)", expect=200)

    rec.section("Errors")
    rec.call("GET", "/items/tasks/999", "missing task: 403 FORBIDDEN", expect=403)
    rec.call("GET", "/items/projects/0", "missing project: 403", expect=403)
    rec.call("GET", "/items/milestones", "unknown collection: 403", expect=403)
    rec.call("GET", "/items/tasks", "unknown filter operator _like: 400 INVALID_QUERY",
             params={"filter[title][_like]": "Fix"}, expect=400)
    rec.call("GET", "/items/tasks", "filter on an unknown field: 403", params={"filter[colour][_eq]": "red"},
             expect=403)
    rec.call("GET", "/items/tasks", "filter JSON that does not parse: 400", params={"filter": "{state:"},
             expect=400)
    rec.call("GET", "/items/tasks", "limit=abc: 400", params={"limit": "abc"}, expect=400)


def scenario_probe_crud(rec: Recorder) -> None:
    rec.section("Create a project, read it, list")
    r = rec.call("POST", "/items/projects", "create project SEC",
                 json={"name": "Security review", "code": "SEC", "budget": 15000, "start_date": "2027-02-01"},
                 expect=200)
    p = r.json()["data"]["id"]
    rec.call("GET", f"/items/projects/{p}", "read it (status active by default)", expect=200)
    rec.call("GET", "/items/projects", "projects with status active", params={"filter[status][_eq]": "active"},
             expect=200)

    rec.section("Validation refusals change nothing")
    rec.call("POST", "/items/projects", "same code again: 400 RECORD_NOT_UNIQUE",
             json={"name": "Another SEC", "code": "SEC"}, expect=400)
    rec.call("POST", "/items/tasks", "task without title: 400 FAILED_VALIDATION", json={"priority": 2}, expect=400)
    rec.call("POST", "/items/tasks", "priority 9: 400 FAILED_VALIDATION (validation rule)",
             json={"title": "Too urgent", "priority": 9}, expect=400)
    rec.call("PATCH", "/items/tasks/2", "PATCH priority 0: 400", json={"priority": 0}, expect=400)
    rec.call("GET", "/items/tasks/2", "task 2 unchanged", expect=200)
    rec.call("GET", "/items/tasks", "tasks unchanged", params={"fields": "id,title", "sort": "id"}, expect=200)
    rec.call("POST", "/items/milestones", "create in an unknown collection: 403", json={"name": "M1"}, expect=403)

    rec.section("Create tasks in the new project (single and nested via PATCH of the project)")
    r = rec.call("POST", "/items/tasks", "task in SEC",
                 json={"title": "Threat model", "project": p, "priority": 2, "assignee": "eve",
                       "tags": ["security"], "estimate_h": 16}, expect=200)
    t = r.json()["data"]["id"]
    rec.call("GET", f"/items/tasks/{t}", "read it", expect=200)
    rec.call("PATCH", f"/items/projects/{p}", "PATCH the project with a nested new task (o2m create)",
             params={"fields": "*,tasks.*"},
             json={"tasks": {"create": [{"title": "Pen test booking", "priority": 3}], "update": [],
                             "delete": []}}, expect=200)
    rec.call("GET", f"/items/projects/{p}", "the project with both tasks", params={"fields": "*,tasks.id,tasks.title"},
             expect=200)
    rec.call("GET", "/items/tasks", "tasks of SEC", params={"filter[project][code][_eq]": "SEC"}, expect=200)

    rec.section("Updates")
    rec.call("PATCH", "/items/tasks/6", "task 6 done", json={"state": "done"}, expect=200)
    rec.call("GET", "/items/tasks/6", "read it", expect=200)
    rec.call("GET", "/items/tasks", "done tasks", params={"filter[state][_eq]": "done", "sort": "id"}, expect=200)
    rec.call("PATCH", "/items/tasks", "batch PATCH by query: every todo task of project 1 gets priority 4",
             json={"query": {"filter": {"project": {"_eq": 1}, "state": {"_eq": "todo"}}},
                   "data": {"priority": 4}}, expect=200)
    rec.call("GET", "/items/tasks", "tasks of project 1", params={"filter[project][_eq]": "1", "sort": "id"},
             expect=200)
    rec.call("PATCH", "/items/projects/4", "unarchive project OFF: status active", json={"status": "active"},
             expect=200)
    rec.call("GET", "/items/projects", "projects not archived: OFF back",
             params={"filter[status][_neq]": "archived"}, expect=200)
    rec.call("PATCH", "/items/site_settings", "singleton: default priority 2", json={"default_priority": 2},
             expect=200)
    rec.call("GET", "/items/site_settings", "read it", expect=200)

    rec.section("Deletes")
    rec.call("DELETE", f"/items/tasks/{t}", "delete the threat model task", expect=204)
    rec.call("GET", f"/items/tasks/{t}", "read it: 403", expect=403)
    rec.call("GET", "/items/tasks", "tasks of SEC: one left", params={"filter[project][_eq]": str(p)}, expect=200)
    rec.call("DELETE", f"/items/projects/{p}", "delete project SEC (its task's project becomes null)", expect=204)
    rec.call("GET", f"/items/projects/{p}", "read it: 403", expect=403)
    rec.call("GET", "/items/tasks", "tasks without a project", params={"filter[project][_null]": "true"},
             expect=200)
    rec.call("DELETE", "/items/tasks", "batch DELETE by query: every done task of project 4",
             json={"query": {"filter": {"project": {"_eq": 4}, "state": {"_eq": "done"}}}}, expect=204)
    rec.call("GET", "/items/tasks/8", "task 8: 403", expect=403)
    rec.call("DELETE", "/items/tasks/999", "delete a missing task: 204 as well (nothing to delete)", expect=204)
    rec.call("GET", "/items/tasks", "final task list", params={"fields": "id,title,state,project", "sort": "id"},
             expect=200)


SCENARIOS = [
    ("build", scenario_build),
    ("probe-reads", scenario_probe_reads),
    ("probe-crud", scenario_probe_crud),
]


def prepare(run: Path) -> None:
    """Every capture starts Directus on a fresh copy of the seeded template."""
    shutil.copyfile(run / "template.db", run / "capture.db")


def main() -> None:
    import readme  # the prose of README.md, next to this file

    RUN.mkdir(exist_ok=True)
    print("== directus: seed template", file=sys.stderr)
    seed_template()
    record_app(AppSpec(name="directus", here=HERE, dist="", app_port=APP_PORT, proxy_port=PROXY_PORT,
                       command=lambda run: ["node", CLI, "start"], scenarios=SCENARIOS,
                       render_readme=readme.render, prepare=prepare, env=directus_env(RUN / "capture.db"),
                       headers={"Accept": "application/json", **AUTH}, ready_path="/server/ping",
                       stop_signal=signal.SIGTERM, version=lambda: npm_version(HERE, "directus")))


if __name__ == "__main__":
    main()
