"""Record HAR captures of a real Datasette 1.0 alpha (JSON read and write API).

Run through record.sh (it makes the venvs). For each capture the seed database
`run/tracker.db` is rebuilt from the SQL below (not recorded), Datasette is
started on 127.0.0.1 with a fixed secret, and the scenario is sent through a
loopback mitmdump proxy with a fixed signed API token for the root actor.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "kit"))

import httpx  # noqa: E402

from appdriver import AppSpec, record_app  # noqa: E402
from harlib import Recorder  # noqa: E402

APP_PORT = 18811
PROXY_PORT = 18911
SECRET = "s3cret"
TOKEN_TIME = 1767225600  # 2026-01-01T00:00:00Z, so the signed token is the same on every run
DB = "tracker"

# ---------------------------------------------------------------- the seed
SCHEMA = """
CREATE TABLE people (
  username TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  email TEXT
);
CREATE TABLE projects (
  code TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  archived INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1))
);
CREATE TABLE tasks (
  id INTEGER PRIMARY KEY,
  title TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'todo' CHECK (status IN ('todo', 'doing', 'done', 'cancelled')),
  priority INTEGER NOT NULL DEFAULT 3 CHECK (priority BETWEEN 1 AND 5),
  project TEXT REFERENCES projects(code),
  assignee TEXT REFERENCES people(username),
  due TEXT
);
CREATE TABLE task_tags (
  task_id INTEGER NOT NULL REFERENCES tasks(id),
  tag TEXT NOT NULL,
  PRIMARY KEY (task_id, tag)
);
"""
PEOPLE = [
    ("ana", "Ana Lima", "ana@example.test"),
    ("bo", "Bo Chen", "bo@example.test"),
    ("chen", "Chen Wu", "chen@example.test"),
    ("dana", "Dana Kim", None),
]
PROJECTS = [("WEB", "Website relaunch", 0), ("MOB", "Mobile app", 0), ("CRM", "Legacy CRM", 1), ("OPS", "Operations", 0)]
TASKS = [  # id, title, status, priority, project, assignee, due
    (1, "Draft homepage copy", "todo", 2, "WEB", "ana", "2026-12-05"),
    (2, "Set up CI pipeline", "doing", 1, "MOB", "bo", None),
    (3, "Fix login redirect", "done", 1, "WEB", "ana", None),
    (4, "Export customer list", "todo", 3, "CRM", "chen", "2026-12-20"),
    (5, "Write release notes", "done", 4, "MOB", "bo", None),
    (6, "Renew TLS certificates", "todo", 1, "OPS", "dana", "2026-12-31"),
    (7, "Design app icon", "doing", 3, "MOB", "dana", "2027-01-10"),
    (8, "Archive old tickets", "cancelled", 5, "CRM", "chen", None),
    (9, "Add search to docs page", "todo", 4, "WEB", "bo", "2027-01-20"),
    (10, "Rotate backup keys", "doing", 2, "OPS", "chen", "2026-12-15"),
    (11, "Translate landing page", "todo", 5, "WEB", "dana", None),
    (12, "Load test the API", "todo", 2, "MOB", "ana", "2027-02-01"),
]
TAGS = [(1, "content"), (2, "infra"), (3, "bug"), (4, "data"), (5, "content"), (5, "release"), (6, "infra"),
        (6, "security"), (7, "design"), (9, "content"), (10, "security"), (12, "infra")]


def prepare(run: Path) -> None:
    """Rebuild run/tracker.db from the fixed schema and rows."""
    path = run / f"{DB}.db"
    for p in (path, run / f"{DB}.db-wal", run / f"{DB}.db-shm"):
        p.unlink(missing_ok=True)
    con = sqlite3.connect(path)
    con.executescript(SCHEMA)
    con.executemany("INSERT INTO people VALUES (?, ?, ?)", PEOPLE)
    con.executemany("INSERT INTO projects VALUES (?, ?, ?)", PROJECTS)
    con.executemany("INSERT INTO tasks VALUES (?, ?, ?, ?, ?, ?, ?)", TASKS)
    con.executemany("INSERT INTO task_tags VALUES (?, ?)", TAGS)
    con.commit()
    con.close()


def api_token() -> str:
    """Datasette's own signed token for actor `root`, with a fixed creation time."""
    code = ("from datasette.app import Datasette; "
            f"print('dstok_' + Datasette(secret={SECRET!r}).sign({{'a': 'root', 't': {TOKEN_TIME}}}, namespace='token'))")
    out = subprocess.run([HERE / ".venv" / "bin" / "python", "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def command(run: Path) -> list:
    return [HERE / ".venv" / "bin" / "datasette", "serve", run / f"{DB}.db", "--host", "127.0.0.1",
            "--port", str(APP_PORT), "--secret", SECRET, "--root"]


# ---------------------------------------------------------------- helpers
T = f"/{DB}/tasks"
P = f"/{DB}/projects"
TT = f"/{DB}/task_tags"
PE = f"/{DB}/people"


def follow_next(rec: Recorder, r: httpx.Response, what: str) -> None:
    """Follow `next_url` (also sent as a Link header) until the last page."""
    page = 2
    while r.json().get("next_url"):
        nxt = httpx.URL(r.json()["next_url"])
        r = rec.call("GET", nxt.raw_path.decode(), f"{what}: page {page} from `next_url` (keyset `_next={r.json()['next']}`)",
                     expect=200)
        page += 1


def write(rec: Recorder, path: str, body, why: str, expect=200) -> httpx.Response:
    return rec.call("POST", path, why, json=body, expect=expect)


# ---------------------------------------------------------------- scenarios
def scenario_build(rec: Recorder) -> None:
    rec.section("Discover the instance and the database")
    rec.call("GET", "/.json", "instance: the databases and their tables", expect=200)
    rec.call("GET", f"/{DB}.json", "database `tracker`: tables, columns, primary keys, foreign keys", expect=200)

    rec.section("List reads: every table, filters with operator suffixes, sorts, pages")
    rec.call("GET", f"{P}.json", "list projects", expect=200)
    rec.call("GET", f"{PE}.json", "list people", expect=200)
    rec.call("GET", f"{T}.json", "list tasks (default page size 100: all 12, ordered by id)", expect=200)
    rec.call("GET", f"{T}.json", "filter: exact status=todo", params={"status": "todo"}, expect=200)
    rec.call("GET", f"{T}.json", "filter: priority__lte=2", params={"priority__lte": "2"}, expect=200)
    rec.call("GET", f"{T}.json", "filter: assignee__in=ana,bo", params={"assignee__in": "ana,bo"}, expect=200)
    rec.call("GET", f"{T}.json", "filter: title__contains=page", params={"title__contains": "page"}, expect=200)
    rec.call("GET", f"{T}.json", "filter + sort: project=WEB, _sort=title",
             params={"project": "WEB", "_sort": "title"}, expect=200)
    rec.call("GET", f"{T}.json", "sort descending: _sort_desc=priority", params={"_sort_desc": "priority"}, expect=200)
    rec.call("GET", f"{T}.json", "due__notnull=1, _sort=due", params={"due__notnull": "1", "_sort": "due"}, expect=200)
    rec.call("GET", f"{T}.json", "status=doing with _extra=count (adds `count`)",
             params={"status": "doing", "_extra": "count"}, expect=200)
    r = rec.call("GET", f"{T}.json", "page 1 of tasks with _size=5 (next_url and Link: rel=next)",
                 params={"_size": "5"}, expect=200)
    follow_next(rec, r, "tasks by id")
    r = rec.call("GET", f"{T}.json", "page 1 with _size=4&_sort=title (keyset cursor is `title,id`)",
                 params={"_size": "4", "_sort": "title"}, expect=200)
    follow_next(rec, r, "tasks by title")
    rec.call("GET", f"{TT}.json", "list task_tags filtered tag=infra", params={"tag": "infra"}, expect=200)

    rec.section("Entity reads: the id fused with the `.json` suffix in one segment")
    rec.call("GET", f"{T}/1.json", "task 1", expect=200)
    rec.call("GET", f"{T}/4.json", "task 4", expect=200)
    rec.call("GET", f"{P}/WEB.json", "project WEB (text primary key)", expect=200)
    rec.call("GET", f"{PE}/ana.json", "person ana", expect=200)
    rec.call("GET", f"{TT}/5,release.json", "task_tags row by its compound key `task_id,tag` = `5,release`", expect=200)

    rec.section("Insert: one row (generated id comes back inside rows[0]), then read it back")
    write(rec, f"{T}/-/insert", {"row": {"priority": 2, "project": "WEB"}},
          "insert a task without the NOT NULL title: 400 (an agent's first try)", expect=400)
    r = write(rec, f"{T}/-/insert", {"row": {"title": "Plan launch party", "status": "todo", "priority": 3,
                                              "project": "WEB", "assignee": "dana", "due": "2027-01-15"}},
              "insert one task (`row`); the answer's rows[0].id is the generated id", expect=201)
    new1 = r.json()["rows"][0]["id"]
    rec.call("GET", f"{T}/{new1}.json", "read the new task by its generated id", expect=200)
    rec.call("GET", f"{T}.json", "list tasks of project WEB (new task included)", params={"project": "WEB"}, expect=200)

    rec.section("Insert several rows in one call (`rows`, `return: true`)")
    r = write(rec, f"{T}/-/insert", {"rows": [
        {"title": "Book the venue", "priority": 2, "project": "WEB", "assignee": "dana"},
        {"title": "Order launch swag", "status": "doing", "priority": 4, "project": "WEB", "assignee": "bo",
         "due": "2027-01-05"},
    ], "return": True}, "insert two tasks; the answer lists both rows with their ids and defaults", expect=201)
    ids = [row["id"] for row in r.json()["rows"]]
    for i in ids:
        rec.call("GET", f"{T}/{i}.json", f"read inserted task {i}", expect=200)
    rec.call("GET", f"{T}.json", "list tasks assigned to dana", params={"assignee": "dana"}, expect=200)
    write(rec, f"{TT}/-/insert", {"rows": [{"task_id": new1, "tag": "launch"}, {"task_id": new1, "tag": "event"}]},
          "tag the first new task twice (compound-key table; answer is only {ok: true})", expect=201)
    rec.call("GET", f"{TT}/{new1},launch.json", f"read task_tags row `{new1},launch`", expect=200)
    rec.call("GET", f"{TT}.json", f"list the tags of task {new1}", params={"task_id": str(new1)}, expect=200)

    rec.section("Update: the action route /<id>/-/update")
    write(rec, f"{T}/1/-/update", {"update": {"status": "doing", "priority": 1}, "return": True},
          "update task 1: status todo->doing, priority 2->1 (return: true gives the row)")
    rec.call("GET", f"{T}/1.json", "read task 1 back", expect=200)
    rec.call("GET", f"{T}.json", "list status=doing (task 1 now included)", params={"status": "doing"}, expect=200)
    write(rec, f"{P}/CRM/-/update", {"update": {"archived": 0}},
          "unarchive project CRM (text key in the action route; answer is only {ok: true})")
    rec.call("GET", f"{P}/CRM.json", "read project CRM back", expect=200)
    rec.call("GET", f"{P}.json", "list projects archived=0", params={"archived": "0"}, expect=200)
    write(rec, f"{T}/11/-/update", {"update": {"status": "cancelled"}},
          "cancel task 11 (status field; Datasette itself has no soft delete)")
    rec.call("GET", f"{T}/11.json", "read task 11: still there, status cancelled", expect=200)
    rec.call("GET", f"{T}.json", "open tasks: status__notin=done,cancelled",
             params={"status__notin": "done,cancelled"}, expect=200)

    rec.section("Upsert: insert-or-update by primary key")
    write(rec, f"{P}/-/upsert", {"rows": [{"code": "WEB", "name": "Website relaunch 2027"},
                                          {"code": "DOC", "name": "Documentation"}], "return": True},
          "upsert projects: WEB exists (renamed), DOC is new (archived takes its default 0)")
    rec.call("GET", f"{P}/WEB.json", "read project WEB: renamed", expect=200)
    rec.call("GET", f"{P}/DOC.json", "read project DOC: created", expect=200)
    rec.call("GET", f"{P}.json", "list projects (DOC added)", expect=200)
    write(rec, f"{T}/-/upsert", {"rows": [{"id": 2, "title": "Set up CI pipeline", "status": "done"},
                                          {"id": 40, "title": "Write onboarding guide", "status": "todo"}]},
          "upsert tasks: 2 exists (status -> done, columns not sent are kept), 40 is new at a client-chosen id")
    rec.call("GET", f"{T}/2.json", "read task 2: status done, priority and assignee kept", expect=200)
    rec.call("GET", f"{T}/40.json", "read task 40: created by the upsert (defaults filled)", expect=200)
    rec.call("GET", f"{T}.json", "newest tasks first: _sort_desc=id&_size=3", params={"_sort_desc": "id", "_size": "3"},
             expect=200)

    rec.section("Delete: the action route /<id>/-/delete")
    write(rec, f"{T}/3/-/delete", None, "delete task 3")
    rec.call("GET", f"{T}/3.json", "read task 3: 404", expect=404)
    rec.call("GET", f"{T}.json", "list tasks of project WEB (3 gone)", params={"project": "WEB"}, expect=200)
    write(rec, f"{TT}/6,infra/-/delete", None, "delete task_tags row `6,infra` (compound key in the route)")
    rec.call("GET", f"{TT}/6,infra.json", "read it: 404", expect=404)
    rec.call("GET", f"{TT}.json", "list the tags of task 6 (only security left)", params={"task_id": "6"}, expect=200)

    rec.section("Create a table with rows (a new sibling collection)")
    write(rec, f"/{DB}/-/create", {"table": "milestones", "pk": "id", "rows": [
        {"id": 1, "title": "Beta", "due": "2027-01-31", "project": "WEB"},
        {"id": 2, "title": "Public launch", "due": "2027-03-01", "project": "WEB"},
    ]}, "create table milestones from two rows (columns inferred, pk id)", expect=201)
    rec.wait(1.2)  # Datasette refreshes its table catalog at most once a second
    rec.call("GET", f"/{DB}.json", "database: milestones listed", expect=200)
    rec.call("GET", f"/{DB}/milestones.json", "list milestones", expect=200)
    rec.call("GET", f"/{DB}/milestones/2.json", "read milestone 2", expect=200)
    write(rec, f"/{DB}/milestones/-/insert", {"row": {"title": "Retrospective", "due": "2027-03-15", "project": "WEB"}},
          "insert a milestone (generated id 3)", expect=201)
    rec.call("GET", f"/{DB}/milestones.json", "list milestones (3 rows)", params={"_sort": "due"}, expect=200)


def scenario_probe_reads(rec: Recorder) -> None:
    rec.section("Other filter values, operators and fields")
    rec.call("GET", f"{T}.json", "status=done", params={"status": "done"}, expect=200)
    rec.call("GET", f"{T}.json", "status=cancelled", params={"status": "cancelled"}, expect=200)
    rec.call("GET", f"{T}.json", "priority__gt=3", params={"priority__gt": "3"}, expect=200)
    rec.call("GET", f"{T}.json", "priority__gte=2&priority__lt=4", params={"priority__gte": "2", "priority__lt": "4"},
             expect=200)
    rec.call("GET", f"{T}.json", "title__startswith=Write", params={"title__startswith": "Write"}, expect=200)
    rec.call("GET", f"{T}.json", "title__endswith=page", params={"title__endswith": "page"}, expect=200)
    rec.call("GET", f"{T}.json", "assignee__not=ana", params={"assignee__not": "ana"}, expect=200)
    rec.call("GET", f"{T}.json", "project__in=OPS,CRM", params={"project__in": "OPS,CRM"}, expect=200)
    rec.call("GET", f"{T}.json", "due__isnull=1", params={"due__isnull": "1"}, expect=200)
    rec.call("GET", f"{T}.json", "title__like=%key%", params={"title__like": "%key%"}, expect=200)
    rec.call("GET", f"{T}.json", "title__glob=*API*", params={"title__glob": "*API*"}, expect=200)
    rec.call("GET", f"{T}.json", "a filter matching nothing: assignee=zoe", params={"assignee": "zoe"}, expect=200)
    rec.call("GET", f"{T}.json", "_sort=assignee", params={"_sort": "assignee"}, expect=200)
    rec.call("GET", f"{T}.json", "_sort_desc=due", params={"_sort_desc": "due"}, expect=200)
    rec.call("GET", f"{T}.json", "project=MOB&_sort_desc=priority&_extra=count",
             params={"project": "MOB", "_sort_desc": "priority", "_extra": "count"}, expect=200)
    rec.call("GET", f"{T}.json", "column selection: _col=title&_col=status",
             params=[("_col", "title"), ("_col", "status")], expect=200)
    rec.call("GET", f"{T}.json", "_nocol=due", params={"_nocol": "due"}, expect=200)
    rec.call("GET", f"{T}.json", "_labels=on (foreign keys as {value, label})", params={"_labels": "on"}, expect=200)
    rec.call("GET", f"{T}.json", "_shape=array (a bare list of rows)", params={"_shape": "array"}, expect=200)
    rec.call("GET", f"{T}.json", "_facet=status", params={"_facet": "status"}, expect=200)

    rec.section("Other pages and cursors")
    r = rec.call("GET", f"{T}.json", "page 1 with _size=3", params={"_size": "3"}, expect=200)
    follow_next(rec, r, "tasks by id, 3 a page")
    r = rec.call("GET", f"{T}.json", "page 1 with _size=5&_sort_desc=priority",
                 params={"_size": "5", "_sort_desc": "priority"}, expect=200)
    follow_next(rec, r, "tasks by priority desc")
    rec.call("GET", f"{T}.json", "a cursor the build never saw: _size=2&_next=7", params={"_size": "2", "_next": "7"},
             expect=200)

    rec.section("Other ids and sibling tables")
    rec.call("GET", f"{T}/7.json", "task 7", expect=200)
    rec.call("GET", f"{T}/12.json", "task 12", expect=200)
    rec.call("GET", f"{T}/3.json", "task 3 (deleted in build.har, present again in the seed)", expect=200)
    rec.call("GET", f"{P}/OPS.json", "project OPS", expect=200)
    rec.call("GET", f"{PE}/dana.json", "person dana (email null)", expect=200)
    rec.call("GET", f"{TT}/6,security.json", "task_tags row `6,security`", expect=200)
    rec.call("GET", f"{TT}.json", "task_tags filtered tag=content", params={"tag": "content"}, expect=200)
    rec.call("GET", f"{PE}.json", "people filtered name__contains=Chen", params={"name__contains": "Chen"}, expect=200)
    rec.call("GET", f"{P}.json", "projects archived=1", params={"archived": "1"}, expect=200)

    rec.section("Errors")
    rec.call("GET", f"{T}/999.json", "a task id that does not exist: 404", expect=404)
    rec.call("GET", f"{P}/XYZ.json", "a project code that does not exist: 404", expect=404)
    rec.call("GET", f"{TT}/1,nope.json", "a compound key that does not exist: 404", expect=404)
    rec.call("GET", f"/{DB}/milestones.json", "a table that does not exist in the seed: 404", expect=404)
    rec.call("GET", "/nope.json", "a database that does not exist: 404", expect=404)
    rec.call("GET", f"{T}.json", "_sort on an unknown column: 400", params={"_sort": "nope"}, expect=400)
    rec.call("GET", f"{T}.json", "_size=abc: 400", params={"_size": "abc"}, expect=400)
    rec.call("GET", f"{T}.json", "_size=5000 (over the 1000 maximum): 400", params={"_size": "5000"}, expect=400)
    rec.call("GET", f"{T}.json", "_sort and _sort_desc together: 400", params={"_sort": "title", "_sort_desc": "id"},
             expect=400)
    rec.call("GET", f"{T}.json", "_extra=nope: 400", params={"_extra": "nope"}, expect=400)


def scenario_probe_crud(rec: Recorder) -> None:
    rec.section("Insert, read back, list")
    r = write(rec, f"{T}/-/insert", {"row": {"title": "Migrate reports", "status": "doing", "priority": 2,
                                              "project": "CRM", "assignee": "chen", "due": "2027-02-15"}},
              "insert a task (generated id)", expect=201)
    nid = r.json()["rows"][0]["id"]
    rec.call("GET", f"{T}/{nid}.json", "read it back", expect=200)
    rec.call("GET", f"{T}.json", "list tasks assigned to chen", params={"assignee": "chen"}, expect=200)
    write(rec, f"{T}/-/insert", {"row": {"id": 50, "title": "Audit access logs", "project": "OPS"}},
          "insert at a client-chosen id 50 (status and priority take their defaults)", expect=201)
    rec.call("GET", f"{T}/50.json", "read task 50", expect=200)
    rec.call("GET", f"{T}.json", "list tasks of project OPS", params={"project": "OPS"}, expect=200)
    write(rec, f"{PE}/-/insert", {"row": {"username": "eve", "name": "Eve Park", "email": "eve@example.test"},
                                  "return": True}, "insert a person (text primary key)", expect=201)
    rec.call("GET", f"{PE}/eve.json", "read person eve", expect=200)
    rec.call("GET", f"{PE}.json", "list people", expect=200)

    rec.section("Refused inserts change nothing")
    write(rec, f"{T}/-/insert", {"row": {"status": "todo"}}, "missing NOT NULL title: 400", expect=400)
    write(rec, f"{T}/-/insert", {"row": {"title": "X", "estimate": 3}}, "unknown column: 400", expect=400)
    write(rec, f"{T}/-/insert", {"row": {"id": 2, "title": "Duplicate"}}, "an id that exists: 400 UNIQUE", expect=400)
    write(rec, f"{T}/-/insert", {"row": {"title": "Bad status", "status": "blocked"}}, "CHECK on status: 400",
          expect=400)
    write(rec, f"{T}/-/insert", {"row": {"title": "A"}, "rows": [{"title": "B"}]}, "row and rows together: 400",
          expect=400)
    rec.call("POST", f"{T}/-/insert", "a body that is not JSON: 400", content=b"title=oops",
             headers={"Content-Type": "application/json"}, expect=400)
    rec.call("POST", f"{T}/-/insert", "no API token: 403", json={"row": {"title": "Anonymous"}},
             headers={"Authorization": ""}, expect=403)
    rec.call("GET", f"{T}.json", "list tasks: nothing added by the refused writes", params={"_extra": "count"},
             expect=200)

    rec.section("Replace and ignore on an existing id")
    write(rec, f"{T}/-/insert", {"row": {"id": 5, "title": "Write release notes v2", "priority": 2, "project": "MOB"},
                                 "replace": True}, "insert with replace: true over task 5 (columns not sent reset)",
          expect=201)
    rec.call("GET", f"{T}/5.json", "read task 5: replaced (status todo, assignee null)", expect=200)
    write(rec, f"{T}/-/insert", {"row": {"id": 6, "title": "Ignored"}, "ignore": True},
          "insert with ignore: true over task 6: nothing changes", expect=201)
    rec.call("GET", f"{T}/6.json", "read task 6: unchanged", expect=200)

    rec.section("Update, read back; refused updates")
    write(rec, f"{T}/7/-/update", {"update": {"status": "done", "assignee": "ana"}}, "update task 7")
    rec.call("GET", f"{T}/7.json", "read task 7", expect=200)
    rec.call("GET", f"{T}.json", "list status=done", params={"status": "done"}, expect=200)
    write(rec, f"{T}/999/-/update", {"update": {"status": "done"}}, "update a missing task: 404", expect=404)
    write(rec, f"{T}/7/-/update", {"update": {"estimate": 3}}, "update an unknown column: 400", expect=400)
    write(rec, f"{T}/7/-/update", {"update": {"priority": 9}}, "priority 9 breaks the CHECK: 400", expect=400)
    rec.call("GET", f"{T}/7.json", "task 7 unchanged by the refused updates", expect=200)

    rec.section("Upsert")
    write(rec, f"{P}/-/upsert", {"rows": [{"code": "OPS", "name": "Operations", "archived": 1},
                                          {"code": "QA", "name": "Quality", "archived": 0}], "return": True},
          "upsert projects: archive OPS, create QA")
    rec.call("GET", f"{P}/OPS.json", "read OPS: archived", expect=200)
    rec.call("GET", f"{P}/QA.json", "read QA: created", expect=200)
    rec.call("GET", f"{P}.json", "list projects archived=0", params={"archived": "0"}, expect=200)
    write(rec, f"{P}/-/upsert", {"rows": [{"code": "MOB", "archived": 1}]},
          "upsert without the NOT NULL name: 400", expect=400)
    write(rec, f"{T}/-/upsert", {"rows": [{"title": "No id"}]}, "upsert a row without its primary key: 400",
          expect=400)

    rec.section("Delete, read 404, list")
    write(rec, f"{T}/10/-/delete", None, "delete task 10")
    rec.call("GET", f"{T}/10.json", "read task 10: 404", expect=404)
    rec.call("GET", f"{T}.json", "list tasks assigned to chen (10 gone)", params={"assignee": "chen"}, expect=200)
    write(rec, f"{T}/10/-/delete", None, "delete task 10 again: 404", expect=404)
    write(rec, f"{TT}/5,content/-/delete", None, "delete task_tags `5,content`")
    rec.call("GET", f"{TT}/5,content.json", "read it: 404", expect=404)
    rec.call("GET", f"{TT}.json", "tags of task 5", params={"task_id": "5"}, expect=200)

    rec.section("Create a table, write to it, drop it (two-step confirm)")
    write(rec, f"/{DB}/-/create", {"table": "labels", "columns": [
        {"name": "id", "type": "integer"}, {"name": "name", "type": "text"}, {"name": "color", "type": "text"}],
        "pk": "id"}, "create an empty table labels from column definitions", expect=201)
    write(rec, f"/{DB}/-/create", {"table": "labels", "columns": [{"name": "id", "type": "integer"}], "pk": "id"},
          "create it again: 400 (table exists)", expect=400)
    write(rec, f"/{DB}/labels/-/insert", {"row": {"name": "urgent", "color": "red"}}, "insert a label", expect=201)
    rec.call("GET", f"/{DB}/labels/1.json", "read label 1", expect=200)
    rec.call("GET", f"/{DB}/labels.json", "list labels", expect=200)
    write(rec, f"/{DB}/labels/-/drop", None, "drop without confirm: answers the row count and asks to confirm")
    rec.call("GET", f"/{DB}/labels.json", "labels still there", expect=200)
    write(rec, f"/{DB}/labels/-/drop", {"confirm": True}, "drop with confirm: true")
    rec.call("GET", f"/{DB}/labels.json", "labels: 404", expect=404)
    rec.wait(1.2)
    rec.call("GET", f"/{DB}.json", "database: labels gone", expect=200)


SCENARIOS = [("build", scenario_build), ("probe-reads", scenario_probe_reads), ("probe-crud", scenario_probe_crud)]


def main() -> None:
    import readme

    spec = AppSpec(
        name="datasette", here=HERE, dist="datasette", app_port=APP_PORT, proxy_port=PROXY_PORT,
        command=command, scenarios=SCENARIOS, render_readme=readme.render, prepare=prepare,
        headers={"Authorization": f"Bearer {api_token()}"}, ready_path="/-/versions.json",
    )
    record_app(spec)


if __name__ == "__main__":
    main()
