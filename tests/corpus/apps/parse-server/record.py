"""Record HAR captures of a real Parse Server (REST API, PostgreSQL storage).

Run through record.sh (it installs the app and the recorder venv). This script
runs a private PostgreSQL cluster under run/pg (initdb once, `postgres` on a
loopback port, as the `postgres` user when run as root, which initdb refuses),
then for each scenario: drops and re-creates the database, seeds it through a
short-lived seeding Parse Server started with `allowCustomObjectId` (so every
capture has the same object ids; not recorded), pins every seeded object's
createdAt/updatedAt by SQL (so every capture has the same timestamps), starts
the recorded Parse Server (generated ids, no custom ids), records the scenario
through the kit's mitmdump proxy and stops the server, all by PID. Then it
validates the HARs, writes README.md and stops PostgreSQL by its PID.

The application id and master key are fixed throwaway values named as such;
recorded requests send only the application id (the master key is used by the
seed, which is not recorded).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "kit"))

import httpx  # noqa: E402

from appdriver import AppSpec, npm_version, record_app  # noqa: E402
from harlib import Recorder, start_process, stop_pid, wait_for_port  # noqa: E402

APP_PORT = 18831
PG_PORT = 18832
SEED_PORT = 18833
PROXY_PORT = 18931
APP_ID = "corpus-throwaway-app-id"
MASTER_KEY = "corpus-throwaway-master-key"
DB_URI = f"postgres://parse@127.0.0.1:{PG_PORT}/parse"
PG_BIN = Path("/usr/lib/postgresql/15/bin")
MOUNT = "/parse"
C = f"{MOUNT}/classes"
JSON_HEADERS = {"X-Parse-Application-Id": APP_ID, "Accept": "application/json"}
SEED_STAMP = "2026-01-05 09:00:00+00"

# ---------------------------------------------------------------- the seed


def ptr(cls: str, oid: str) -> dict:
    return {"__type": "Pointer", "className": cls, "objectId": oid}


def date(iso: str) -> dict:
    return {"__type": "Date", "iso": iso}


SCHEMAS = {
    "Member": {"name": "String", "email": "String", "role": "String", "active": "Boolean"},
    "Project": {"name": "String", "code": "String", "budget": "Number", "archived": "Boolean",
                "members": ("Relation", "Member")},
    "Task": {"title": "String", "project": ("Pointer", "Project"), "priority": "Number", "status": "String",
             "tags": "Array", "estimate": "Number", "done": "Boolean", "due": "Date"},
}
MEMBERS = [
    ("mbrAna0001", {"name": "Ana Lima", "email": "ana@example.test", "role": "lead", "active": True}),
    ("mbrBo00002", {"name": "Bo Berg", "email": "bo@example.test", "role": "dev", "active": True}),
    ("mbrChen003", {"name": "Chen Wu", "email": "chen@example.test", "role": "dev", "active": False}),
    ("mbrDara004", {"name": "Dara Kim", "email": "dara@example.test", "role": "design", "active": True}),
]
PROJECTS = [
    ("prjAtlas01", {"name": "Atlas", "code": "ATL", "budget": 12000, "archived": False},
     ["mbrAna0001", "mbrBo00002"]),
    ("prjBeacon2", {"name": "Beacon", "code": "BCN", "budget": 8000, "archived": False},
     ["mbrChen003", "mbrDara004"]),
    ("prjCobalt3", {"name": "Cobalt", "code": "CBT", "budget": 3000, "archived": True}, ["mbrAna0001"]),
]
TASKS = [
    ("tskAtl0001", {"title": "Draft the roadmap", "project": "prjAtlas01", "priority": 1, "status": "open",
                    "tags": ["planning"], "estimate": 3, "done": False, "due": "2026-02-01T00:00:00.000Z"}),
    ("tskAtl0002", {"title": "Set up the build", "project": "prjAtlas01", "priority": 2, "status": "doing",
                    "tags": ["infra", "ci"], "estimate": 5, "done": False, "due": "2026-02-10T00:00:00.000Z"}),
    ("tskAtl0003", {"title": "Write the API docs", "project": "prjAtlas01", "priority": 3, "status": "open",
                    "tags": ["docs"], "estimate": 2, "done": False, "due": "2026-03-01T00:00:00.000Z"}),
    ("tskBcn0004", {"title": "Design the logo", "project": "prjBeacon2", "priority": 2, "status": "done",
                    "tags": ["design"], "estimate": 4, "done": True, "due": "2026-01-20T00:00:00.000Z"}),
    ("tskBcn0005", {"title": "User interviews", "project": "prjBeacon2", "priority": 1, "status": "doing",
                    "tags": ["research", "planning"], "estimate": 8, "done": False,
                    "due": "2026-02-15T00:00:00.000Z"}),
    ("tskBcn0006", {"title": "Pick a colour palette", "project": "prjBeacon2", "priority": 3, "status": "open",
                    "tags": ["design"], "estimate": 1, "done": False, "due": "2026-02-20T00:00:00.000Z"}),
    ("tskCbt0007", {"title": "Archive the wiki", "project": "prjCobalt3", "priority": 2, "status": "done",
                    "tags": ["docs", "cleanup"], "estimate": 2, "done": True, "due": "2025-12-15T00:00:00.000Z"}),
    ("tskCbt0008", {"title": "Close the budget", "project": "prjCobalt3", "priority": 1, "status": "open",
                    "tags": ["finance"], "estimate": 1, "done": False, "due": "2026-01-31T00:00:00.000Z"}),
]


def schema_fields(fields: dict) -> dict:
    out = {}
    for name, kind in fields.items():
        if isinstance(kind, tuple):
            out[name] = {"type": kind[0], "targetClass": kind[1]}
        else:
            out[name] = {"type": kind}
    return out


def task_body(oid: str, t: dict) -> dict:
    return {"objectId": oid, **t, "project": ptr("Project", t["project"]), "due": date(t["due"])}


def seed(base: str) -> None:
    """Seed through the seeding server (master key, custom object ids): schemas, then objects."""
    headers = {**JSON_HEADERS, "X-Parse-Master-Key": MASTER_KEY}
    with httpx.Client(base_url=base, timeout=30, trust_env=False, headers=headers) as c:
        for cls, fields in SCHEMAS.items():
            c.post(f"{MOUNT}/schemas/{cls}", json={"className": cls, "fields": schema_fields(fields)}
                   ).raise_for_status()
        for oid, m in MEMBERS:
            c.post(f"{C}/Member", json={"objectId": oid, **m}).raise_for_status()
        for oid, p, members in PROJECTS:
            c.post(f"{C}/Project", json={"objectId": oid, **p, "members": {
                "__op": "AddRelation", "objects": [ptr("Member", m) for m in members]}}).raise_for_status()
        for oid, t in TASKS:
            c.post(f"{C}/Task", json=task_body(oid, t)).raise_for_status()


# ---------------------------------------------------------------- PostgreSQL and the servers
def as_pg_user(argv: list) -> list:
    """initdb and postgres refuse root: run them as the `postgres` user when we are root."""
    if os.geteuid() != 0:
        return argv
    return ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", *argv]


def pg_dir() -> Path:
    return HERE / "run" / "pg"


def start_postgres() -> subprocess.Popen:
    pg = pg_dir()
    pg.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        subprocess.run(["chown", "postgres:postgres", str(pg)], check=True)
    pg.chmod(0o700)
    if not (pg / "data" / "PG_VERSION").exists():
        subprocess.run(as_pg_user([PG_BIN / "initdb", "-D", pg / "data", "-A", "trust", "-U", "parse",
                                   "--no-locale", "-E", "UTF8"]), check=True, stdout=subprocess.DEVNULL)
    proc = start_process(as_pg_user([PG_BIN / "postgres", "-D", pg / "data", "-p", str(PG_PORT), "-k", pg,
                                     "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"]),
                         HERE / "run" / "postgres.log")
    wait_for_port(PG_PORT, 60, proc)
    return proc


def psql(sql: str, db: str = "parse") -> None:
    subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", str(PG_PORT), "-U", "parse",
                    "-d", db, "-c", sql], check=True, stdout=subprocess.DEVNULL)


def server_config(run: Path, port: int, custom_ids: bool) -> Path:
    path = run / f"parse-config-{port}.json"
    path.write_text(json.dumps({
        "appId": APP_ID, "masterKey": MASTER_KEY, "databaseURI": DB_URI, "port": port, "host": "127.0.0.1",
        "mountPath": MOUNT, "serverURL": f"http://127.0.0.1:{port}{MOUNT}", "allowCustomObjectId": custom_ids,
        "logLevel": "error", "verbose": False,
    }, indent=2) + "\n")
    return path


def command(run: Path) -> list:
    return [HERE / "node_modules" / ".bin" / "parse-server", server_config(run, APP_PORT, False)]


def prepare(run: Path) -> None:
    """Fresh database, seeded by a seeding server with custom ids, timestamps pinned by SQL."""
    psql("DROP DATABASE IF EXISTS parse", db="postgres")
    psql("CREATE DATABASE parse", db="postgres")
    log = run / "parse-seed.log"
    proc = start_process([HERE / "node_modules" / ".bin" / "parse-server", server_config(run, SEED_PORT, True)],
                         log, cwd=run)
    try:
        wait_for_port(SEED_PORT, 120, proc)
        seed(f"http://127.0.0.1:{SEED_PORT}")
    finally:
        stop_pid(proc, signal.SIGINT, 30)
    for cls in SCHEMAS:
        psql(f'UPDATE "{cls}" SET "createdAt" = \'{SEED_STAMP}\', "updatedAt" = \'{SEED_STAMP}\'')


# ---------------------------------------------------------------- helpers
def q(value) -> str:
    """A Parse `where` (or `keys`) query parameter is JSON."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def members_of(project: str) -> dict:
    """The query of the members in a project's `members` relation (`$relatedTo`)."""
    return {"where": q({"$relatedTo": {"object": ptr("Project", project), "key": "members"}})}


# ---------------------------------------------------------------- scenarios
def scenario_build(rec: Recorder) -> None:
    rec.section("Discover: health and the three classes")
    rec.call("GET", f"{MOUNT}/health", "server health", expect=200)
    rec.call("GET", f"{C}/Project", "every project", expect=200)
    rec.call("GET", f"{C}/Member", "every member", expect=200)
    rec.call("GET", f"{C}/Task", "every task (no order: storage order)", expect=200)

    rec.section("List reads: where (JSON), order, limit/skip pages, count, keys, include")
    rec.call("GET", f"{C}/Task", "open tasks (equality)", params={"where": q({"status": "open"})}, expect=200)
    rec.call("GET", f"{C}/Task", "tasks with priority >= 2 ($gte), order=-priority,title",
             params={"where": q({"priority": {"$gte": 2}}), "order": "-priority,title"}, expect=200)
    rec.call("GET", f"{C}/Task", "tasks ordered by title, page 1 (limit 3)",
             params={"order": "title", "limit": "3"}, expect=200)
    rec.call("GET", f"{C}/Task", "tasks ordered by title, page 2 (limit 3, skip 3)",
             params={"order": "title", "limit": "3", "skip": "3"}, expect=200)
    rec.call("GET", f"{C}/Task", "count of open tasks only (count=1, limit=0)",
             params={"where": q({"status": "open"}), "count": "1", "limit": "0"}, expect=200)
    rec.call("GET", f"{C}/Task", "doing or done ($in), keys=title,status",
             params={"where": q({"status": {"$in": ["doing", "done"]}}), "keys": "title,status"}, expect=200)
    rec.call("GET", f"{C}/Task", "titles containing 'the' ($regex)",
             params={"where": q({"title": {"$regex": "the"}}), "order": "title"}, expect=200)
    rec.call("GET", f"{C}/Task", "priority 1 or done ($or)",
             params={"where": q({"$or": [{"priority": 1}, {"done": True}]}), "order": "title"}, expect=200)
    rec.call("GET", f"{C}/Task", "tagged planning ($all on an array)",
             params={"where": q({"tags": {"$all": ["planning"]}})}, expect=200)
    rec.call("GET", f"{C}/Task", "tasks of project Atlas (pointer equality), include=project",
             params={"where": q({"project": ptr("Project", "prjAtlas01")}), "include": "project",
                     "order": "priority"}, expect=200)
    rec.call("GET", f"{C}/Member", "members of project Atlas ($relatedTo the members relation)",
             params=members_of("prjAtlas01"), expect=200)
    rec.call("GET", f"{C}/Project", "projects not archived, order=-budget",
             params={"where": q({"archived": False}), "order": "-budget"}, expect=200)

    rec.section("Entity reads by objectId")
    rec.call("GET", f"{C}/Task/tskAtl0001", "task Draft the roadmap", expect=200)
    rec.call("GET", f"{C}/Task/tskBcn0005", "task User interviews", expect=200)
    rec.call("GET", f"{C}/Task/tskAtl0002", "task Set up the build, include=project",
             params={"include": "project"}, expect=200)
    rec.call("GET", f"{C}/Project/prjAtlas01", "project Atlas", expect=200)
    rec.call("GET", f"{C}/Member/mbrBo00002", "member Bo Berg", expect=200)

    rec.section("Create (POST answers only objectId and createdAt), then read it and a list")
    r = rec.call("POST", f"{C}/Task", "create task Plan the launch (generated objectId)",
                 json={"title": "Plan the launch", "project": ptr("Project", "prjAtlas01"), "priority": 2,
                       "status": "open", "tags": ["planning", "launch"], "estimate": 5, "done": False,
                       "due": date("2026-04-01T00:00:00.000Z")}, expect=201)
    new_task = r.json()["objectId"]
    rec.call("GET", f"{C}/Task/{new_task}", "read the new task by its generated id", expect=200)
    rec.call("GET", f"{C}/Task", "open tasks again: the new one listed",
             params={"where": q({"status": "open"}), "order": "title"}, expect=200)
    r = rec.call("POST", f"{C}/Member", "create member Eli Park",
                 json={"name": "Eli Park", "email": "eli@example.test", "role": "dev", "active": True}, expect=201)
    new_member = r.json()["objectId"]
    rec.call("GET", f"{C}/Member/{new_member}", "read the new member", expect=200)

    rec.section("Update (PUT answers only updatedAt), then read it and a list")
    rec.call("PUT", f"{C}/Task/tskAtl0001", "task Draft the roadmap: status doing, estimate 4",
             json={"status": "doing", "estimate": 4}, expect=200)
    rec.call("GET", f"{C}/Task/tskAtl0001", "read it back", expect=200)
    rec.call("GET", f"{C}/Task", "doing tasks: Draft the roadmap listed",
             params={"where": q({"status": "doing"}), "order": "title"}, expect=200)
    rec.call("PUT", f"{C}/Project/prjBeacon2", "project Beacon: budget 9500", json={"budget": 9500}, expect=200)
    rec.call("GET", f"{C}/Project/prjBeacon2", "read it back", expect=200)

    rec.section("Operators in updates: Increment, AddUnique, Remove, AddRelation")
    rec.call("PUT", f"{C}/Task/tskBcn0005", "estimate Increment by 3 (the answer carries the new value)",
             json={"estimate": {"__op": "Increment", "amount": 3}}, expect=200)
    rec.call("GET", f"{C}/Task/tskBcn0005", "read it: estimate 11", expect=200)
    rec.call("PUT", f"{C}/Task/tskAtl0002", "tags AddUnique [ci, release] (ci already there)",
             json={"tags": {"__op": "AddUnique", "objects": ["ci", "release"]}}, expect=200)
    rec.call("GET", f"{C}/Task/tskAtl0002", "read it: tags infra, release, ci (the order PostgreSQL gives)", expect=200)
    rec.call("PUT", f"{C}/Task/tskCbt0007", "tags Remove [cleanup]",
             json={"tags": {"__op": "Remove", "objects": ["cleanup"]}}, expect=200)
    rec.call("GET", f"{C}/Task/tskCbt0007", "read it: tags docs", expect=200)
    rec.call("PUT", f"{C}/Project/prjAtlas01", "members AddRelation the new member",
             json={"members": {"__op": "AddRelation", "objects": [ptr("Member", new_member)]}}, expect=200)
    rec.call("GET", f"{C}/Member", "members of Atlas: three now",
             params=members_of("prjAtlas01"), expect=200)

    rec.section("Batch: two creates and one update in one call")
    r = rec.call("POST", f"{MOUNT}/batch", "batch: create two tasks in Beacon, mark Design the logo priority 3",
                 json={"requests": [
                     {"method": "POST", "path": f"{C}/Task",
                      "body": {"title": "Print the posters", "project": ptr("Project", "prjBeacon2"), "priority": 3,
                               "status": "open", "tags": ["design", "print"], "estimate": 2, "done": False}},
                     {"method": "POST", "path": f"{C}/Task",
                      "body": {"title": "Book the venue", "project": ptr("Project", "prjBeacon2"), "priority": 1,
                               "status": "open", "tags": ["events"], "estimate": 1, "done": False}},
                     {"method": "PUT", "path": f"{C}/Task/tskBcn0004", "body": {"priority": 3}},
                 ]}, expect=200)
    for row in r.json():
        oid = (row.get("success") or {}).get("objectId")
        if oid:
            rec.call("GET", f"{C}/Task/{oid}", "read a batch-created task by its generated id", expect=200)
    rec.call("GET", f"{C}/Task/tskBcn0004", "read Design the logo: priority 3", expect=200)
    rec.call("GET", f"{C}/Task", "tasks of Beacon, order=title",
             params={"where": q({"project": ptr("Project", "prjBeacon2")}), "order": "title"}, expect=200)

    rec.section("Delete (answers {}), then 404 code 101, and lists")
    rec.call("DELETE", f"{C}/Task/tskCbt0008", "delete task Close the budget", expect=200)
    rec.call("GET", f"{C}/Task/tskCbt0008", "read it: 404 code 101", expect=404)
    rec.call("GET", f"{C}/Task", "tasks of Cobalt: one left",
             params={"where": q({"project": ptr("Project", "prjCobalt3")})}, expect=200)
    rec.call("GET", f"{C}/Task", "count of all tasks", params={"count": "1", "limit": "0"}, expect=200)

    rec.section("Errors")
    rec.call("GET", f"{C}/Task/tskNope0000", "a missing task: 404 code 101", expect=404)
    rec.call("PUT", f"{C}/Task/tskNope0000", "update a missing task: 404 code 101",
             json={"status": "done"}, expect=404)
    rec.call("POST", f"{C}/Task", "priority as a string: 400 code 111 (schema mismatch)",
             json={"title": "Bad", "priority": "high"}, expect=400)
    rec.call("GET", f"{C}/Task", "a where that is not JSON: 400 code 107", params={"where": "{status:"}, expect=400)
    rec.call("GET", f"{C}/Task", "tasks after all the writes, order=title", params={"order": "title"}, expect=200)


def scenario_probe_reads(rec: Recorder) -> None:
    rec.section("Other filters, operators and values")
    rec.call("GET", f"{C}/Task", "done tasks (equality on another value)", params={"where": q({"status": "done"})},
             expect=200)
    rec.call("GET", f"{C}/Task", "priority < 2 ($lt), order=title",
             params={"where": q({"priority": {"$lt": 2}}), "order": "title"}, expect=200)
    rec.call("GET", f"{C}/Task", "status not open ($ne), order=-estimate",
             params={"where": q({"status": {"$ne": "open"}}), "order": "-estimate"}, expect=200)
    rec.call("GET", f"{C}/Task", "status not in open, doing ($nin)",
             params={"where": q({"status": {"$nin": ["open", "doing"]}}), "order": "title"}, expect=200)
    rec.call("GET", f"{C}/Task", "estimate between 2 and 4 ($gte and $lte), order=estimate,title",
             params={"where": q({"estimate": {"$gte": 2, "$lte": 4}}), "order": "estimate,title"}, expect=200)
    rec.call("GET", f"{C}/Task", "titles starting with 'de', case-insensitive ($regex with $options i)",
             params={"where": q({"title": {"$regex": "^de", "$options": "i"}})}, expect=200)
    rec.call("GET", f"{C}/Task", "tagged design ($all)", params={"where": q({"tags": {"$all": ["design"]}}),
                                                                 "order": "title"}, expect=200)
    rec.call("GET", f"{C}/Task", "estimate above 4 ($gt), order=title",
             params={"where": q({"estimate": {"$gt": 4}}), "order": "title"}, expect=200)
    rec.call("GET", f"{C}/Task", "priority 3 or status doing ($or), keys=title",
             params={"where": q({"$or": [{"priority": 3}, {"status": "doing"}]}), "keys": "title",
                     "order": "title"}, expect=200)
    rec.call("GET", f"{C}/Task", "due before Feb 2026 ($lt on a Date)",
             params={"where": q({"due": {"$lt": date("2026-02-01T00:00:00.000Z")}}), "order": "due"}, expect=200)
    rec.call("GET", f"{C}/Task", "tasks of Cobalt (another pointer)",
             params={"where": q({"project": ptr("Project", "prjCobalt3")}), "order": "title"}, expect=200)
    rec.call("GET", f"{C}/Member", "members of Beacon ($relatedTo another project)",
             params=members_of("prjBeacon2"), expect=200)
    rec.call("GET", f"{C}/Member", "active developers (two equalities)",
             params={"where": q({"role": "dev", "active": True})}, expect=200)
    rec.call("GET", f"{C}/Project", "archived projects", params={"where": q({"archived": True})}, expect=200)

    rec.section("Other pages, orders and counts")
    rec.call("GET", f"{C}/Task", "ordered by title, limit 2, skip 6", params={"order": "title", "limit": "2",
                                                                           "skip": "6"}, expect=200)
    rec.call("GET", f"{C}/Task", "order=-due, limit 4", params={"order": "-due", "limit": "4"}, expect=200)
    rec.call("GET", f"{C}/Task", "count of priority-1 tasks", params={"where": q({"priority": 1}), "count": "1",
                                                                     "limit": "0"}, expect=200)
    rec.call("GET", f"{C}/Task", "count with results: doing tasks, count=1",
             params={"where": q({"status": "doing"}), "count": "1"}, expect=200)
    rec.call("GET", f"{C}/Member", "members ordered by name, keys=name,role", params={"order": "name",
                                                                                      "keys": "name,role"},
             expect=200)
    rec.call("GET", f"{C}/Project", "projects ordered by code", params={"order": "code"}, expect=200)

    rec.section("Entities the build never read")
    rec.call("GET", f"{C}/Task/tskAtl0003", "task Write the API docs", expect=200)
    rec.call("GET", f"{C}/Task/tskBcn0006", "task Pick a colour palette", expect=200)
    rec.call("GET", f"{C}/Task/tskCbt0007", "task Archive the wiki, include=project",
             params={"include": "project"}, expect=200)
    rec.call("GET", f"{C}/Project/prjCobalt3", "project Cobalt", expect=200)
    rec.call("GET", f"{C}/Member/mbrDara004", "member Dara Kim", expect=200)
    rec.call("GET", f"{C}/Member/mbrChen003", "member Chen Wu", expect=200)

    rec.section("Errors")
    rec.call("GET", f"{C}/Project/prjNope000", "a missing project: 404 code 101", expect=404)
    rec.call("GET", f"{C}/Member/tskAtl0001", "a task id asked for as a member: 404 code 101", expect=404)
    rec.call("GET", f"{C}/Task", "an unknown operator $like: 400 code 119 (the PostgreSQL adapter)",
             params={"where": q({"title": {"$like": "Draft"}})}, expect=400)


def scenario_probe_crud(rec: Recorder) -> None:
    rec.section("Create a member and a task, read them and the lists")
    r = rec.call("POST", f"{C}/Member", "create member Fay Ito",
                 json={"name": "Fay Ito", "email": "fay@example.test", "role": "design", "active": True}, expect=201)
    fay = r.json()["objectId"]
    rec.call("GET", f"{C}/Member/{fay}", "read her by the generated id", expect=200)
    rec.call("GET", f"{C}/Member", "designers: Dara and Fay", params={"where": q({"role": "design"})}, expect=200)
    r = rec.call("POST", f"{C}/Task", "create task Review the contract in Cobalt",
                 json={"title": "Review the contract", "project": ptr("Project", "prjCobalt3"), "priority": 1,
                       "status": "open", "tags": ["legal"], "estimate": 3, "done": False,
                       "due": date("2026-05-01T00:00:00.000Z")}, expect=201)
    task = r.json()["objectId"]
    rec.call("GET", f"{C}/Task/{task}", "read it", expect=200)
    rec.call("GET", f"{C}/Task", "tasks of Cobalt: the new one listed",
             params={"where": q({"project": ptr("Project", "prjCobalt3")}), "order": "title"}, expect=200)

    rec.section("Updates: fields, Increment by a negative amount, Add, Delete a field")
    rec.call("PUT", f"{C}/Task/tskAtl0003", "Write the API docs: status done, done true",
             json={"status": "done", "done": True}, expect=200)
    rec.call("GET", f"{C}/Task/tskAtl0003", "read it back", expect=200)
    rec.call("GET", f"{C}/Task", "done tasks: Write the API docs listed",
             params={"where": q({"status": "done"}), "order": "title"}, expect=200)
    rec.call("PUT", f"{C}/Task/tskBcn0006", "estimate Increment by -1", json={"estimate": {"__op": "Increment",
                                                                                          "amount": -1}},
             expect=200)
    rec.call("GET", f"{C}/Task/tskBcn0006", "read it: estimate 0", expect=200)
    rec.call("PUT", f"{C}/Task/tskAtl0001", "tags Add [review] (Add keeps duplicates)",
             json={"tags": {"__op": "Add", "objects": ["review"]}}, expect=200)
    rec.call("GET", f"{C}/Task/tskAtl0001", "read it: tags planning, review", expect=200)
    rec.call("PUT", f"{C}/Task/tskBcn0005", "due Delete (unset the field)", json={"due": {"__op": "Delete"}},
             expect=200)
    rec.call("GET", f"{C}/Task/tskBcn0005", "read it: no due", expect=200)
    rec.call("PUT", f"{C}/Member/mbrChen003", "member Chen Wu: active again, role lead",
             json={"active": True, "role": "lead"}, expect=200)
    rec.call("GET", f"{C}/Member/mbrChen003", "read him back", expect=200)
    rec.call("GET", f"{C}/Member", "active members ordered by name", params={"where": q({"active": True}),
                                                                            "order": "name"}, expect=200)

    rec.section("Relations: RemoveRelation, AddRelation, then $relatedTo")
    rec.call("PUT", f"{C}/Project/prjBeacon2", "members RemoveRelation Chen Wu",
             json={"members": {"__op": "RemoveRelation", "objects": [ptr("Member", "mbrChen003")]}}, expect=200)
    rec.call("PUT", f"{C}/Project/prjCobalt3", "members AddRelation Fay Ito",
             json={"members": {"__op": "AddRelation", "objects": [ptr("Member", fay)]}}, expect=200)
    rec.call("GET", f"{C}/Member", "members of Beacon: Dara only",
             params=members_of("prjBeacon2"), expect=200)
    rec.call("GET", f"{C}/Member", "members of Cobalt: Ana and Fay",
             params=members_of("prjCobalt3"), expect=200)

    rec.section("Batch: one create, one update, one delete")
    r = rec.call("POST", f"{MOUNT}/batch", "batch: create a member, update project Cobalt, delete a task",
                 json={"requests": [
                     {"method": "POST", "path": f"{C}/Member",
                      "body": {"name": "Gus Roy", "email": "gus@example.test", "role": "dev", "active": False}},
                     {"method": "PUT", "path": f"{C}/Project/prjCobalt3", "body": {"archived": False}},
                     {"method": "DELETE", "path": f"{C}/Task/tskCbt0007"},
                 ]}, expect=200)
    gus = r.json()[0]["success"]["objectId"]
    rec.call("GET", f"{C}/Member/{gus}", "read the batch-created member", expect=200)
    rec.call("GET", f"{C}/Project/prjCobalt3", "read Cobalt: not archived", expect=200)
    rec.call("GET", f"{C}/Task/tskCbt0007", "the batch-deleted task: 404 code 101", expect=404)
    rec.call("GET", f"{C}/Project", "projects not archived: three now", params={"where": q({"archived": False}),
                                                                              "order": "code"}, expect=200)

    rec.section("Delete, 404, lists and counts")
    rec.call("DELETE", f"{C}/Task/tskAtl0002", "delete Set up the build", expect=200)
    rec.call("GET", f"{C}/Task/tskAtl0002", "read it: 404 code 101", expect=404)
    rec.call("DELETE", f"{C}/Task/tskAtl0002", "delete it again: 404 code 101", expect=404)
    rec.call("GET", f"{C}/Task", "tasks of Atlas, order=title",
             params={"where": q({"project": ptr("Project", "prjAtlas01")}), "order": "title"}, expect=200)
    rec.call("GET", f"{C}/Task", "count of all tasks", params={"count": "1", "limit": "0"}, expect=200)

    rec.section("Refusals change nothing")
    rec.call("POST", f"{C}/Task", "estimate as a string: 400 code 111",
             json={"title": "Bad estimate", "estimate": "lots"}, expect=400)
    rec.call("PUT", f"{C}/Task/tskAtl0001", "done as a number: 400 code 111", json={"done": 1}, expect=400)
    rec.call("PUT", f"{C}/Task/tskAtl0001", "Increment on a string field: 400",
             json={"title": {"__op": "Increment", "amount": 1}}, expect=400)
    rec.call("GET", f"{C}/Task/tskAtl0001", "Draft the roadmap unchanged by the refusals", expect=200)
    rec.call("GET", f"{C}/Task", "tasks after all the writes, order=title", params={"order": "title"}, expect=200)


SCENARIOS = [
    ("build", scenario_build),
    ("probe-reads", scenario_probe_reads),
    ("probe-crud", scenario_probe_crud),
]


def main() -> None:
    import readme  # the prose of README.md, next to this file

    (HERE / "run").mkdir(exist_ok=True)
    pg = start_postgres()
    try:
        record_app(AppSpec(name="parse-server", here=HERE, dist="", app_port=APP_PORT, proxy_port=PROXY_PORT,
                           command=command, scenarios=SCENARIOS, render_readme=readme.render, prepare=prepare,
                           headers=JSON_HEADERS, ready_path=f"{MOUNT}/health", settle=0.5,
                           version=lambda: npm_version(HERE, "parse-server")))
    finally:
        stop_pid(pg, signal.SIGINT, 60)


if __name__ == "__main__":
    main()
