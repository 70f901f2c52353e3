"""Record HAR captures of a project tracker served by NestJS 10 with @dataui/crud (the maintained
fork of @nestjsx/crud) on TypeORM 0.3 and SQLite (better-sqlite3); the app is `src/main.ts` in
this folder (compiled by `tsc` into `run/dist/`), its seed `seed.json`.

Run through record.sh (it installs the pinned npm packages, compiles the app and makes the
recorder's venv). For each capture `node run/dist/main.js PORT` starts fresh on 127.0.0.1 in run/
(a new SQLite file with the seed's explicit ids and clocks, a frozen clock for the writes), the
scenario runs through the kit's mitmdump proxy, and both are stopped by PID. Query strings are
written as a client writes @dataui/crud's query language by hand: `filter=status||$eq||todo`
(repeated: AND), `or=…`, `$in` with a comma list, `sort=priority,DESC` (repeated), `limit`,
`offset`, `page`, `per_page`, `fields=id,title`, `join=project`, `s={"status":"todo"}` (the JSON
percent-encoded); `|`, `$`, `,` and `:` are kept as written, other characters percent-encoded.
"""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from urllib.parse import quote

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "kit"))

import httpx  # noqa: E402

from appdriver import AppSpec, npm_version, record_app  # noqa: E402
from harlib import Recorder  # noqa: E402
from json_client import bare, read, send  # noqa: E402

APP_PORT = 18889
PROXY_PORT = 18989
APP_CLOCK = "2026-12-06T09:30:00.000Z"  # src/main.ts's CLOCK, the frozen clock
P, T, H = "/projects", "/tasks", "/people"


# ---------------------------------------------------------------- helpers
def q(path: str, *pairs: tuple) -> str:
    """`path?k=v&…` with the values percent-encoded but for `|`, `$`, `,`, `:` and `-`."""
    if not pairs:
        return path
    return path + "?" + "&".join(f"{k}={quote(str(v), safe='|$,:-')}" for k, v in pairs)


def f(field: str, op: str, value=None) -> tuple:
    """One condition `filter=<field>||<op>||<value>` (`$isnull`/`$notnull` without a value)."""
    return ("filter", f"{field}||{op}" + ("" if value is None else f"||{value}"))


def o(field: str, op: str, value=None) -> tuple:
    """One `or=<field>||<op>||<value>` condition."""
    return ("or", f"{field}||{op}" + ("" if value is None else f"||{value}"))


def srt(field: str, order: str) -> tuple:
    return ("sort", f"{field},{order}")


def search(obj) -> tuple:
    """`s=<JSON>`: the whole JSON percent-encoded."""
    return ("s", json.dumps(obj, separators=(",", ":")))


def sq(path: str, *pairs: tuple) -> str:
    """Like `q`, but every value fully percent-encoded (the `s=` JSON search)."""
    return path + "?" + "&".join(f"{k}={quote(str(v), safe='' if k == 's' else '|$,:-')}" for k, v in pairs)


def at(coll: str, id_) -> str:
    return f"{coll}/{id_}"


def nested(project: int) -> str:
    return f"{P}/{project}/tasks"


def new_id(r: httpx.Response) -> int:
    """A create answers 201 with the whole object."""
    return r.json()["id"]


# ---------------------------------------------------------------- build
def build_lists(rec: Recorder) -> None:
    rec.section("Collections (plain arrays: `alwaysPaginate` is off)")
    read(rec, T, "all 16 tasks (id order)")
    read(rec, P, "all projects")
    read(rec, H, "all people")

    rec.section("Conditions `filter=<field>||<operator>||<value>` (repeated: AND) and `or=`")
    read(rec, q(T, f("status", "$eq", "todo")), "todo tasks (`$eq`)")
    read(rec, q(T, f("status", "$ne", "done")), "every task not done (`$ne`)")
    read(rec, q(T, f("projectId", "$eq", 1)), "the tasks of project 1 (the foreign key)")
    read(rec, q(T, f("assigneeId", "$eq", 3)), "Chiara's tasks")
    read(rec, q(T, f("status", "$eq", "todo"), f("projectId", "$eq", 2)), "project 2's todo tasks (two filters: AND)")
    read(rec, q(T, f("priority", "$eq", 3)), "priority 3")
    read(rec, q(T, f("priority", "$gte", 2)), "priority 2 or more (`$gte`)")
    read(rec, q(T, f("priority", "$lt", 2)), "priority below 2 (`$lt`)")
    read(rec, q(T, f("estimate", "$gt", 5)), "estimates above 5 hours (`$gt`)")
    read(rec, q(T, f("estimate", "$lte", 3)), "estimates of 3 hours or less (`$lte`)")
    read(rec, q(T, f("title", "$cont", "API")), "titles containing `API` (`$cont`: SQLite's LIKE, any case)")
    read(rec, q(T, f("title", "$starts", "Fix")), "titles starting `Fix` (`$starts`)")
    read(rec, q(T, f("title", "$ends", "page")), "titles ending `page` (`$ends`)")
    read(rec, q(T, f("status", "$in", "doing,done")), "status doing or done (`$in` with a comma list)")
    read(rec, q(T, f("due", "$isnull")), "tasks without a due date (`$isnull`)")
    read(rec, q(T, f("assigneeId", "$isnull")), "tasks nobody is assigned")
    read(rec, q(T, f("estimate", "$notnull")), "tasks with an estimate (`$notnull`)")
    read(rec, q(T, f("due", "$gte", "2026-12-05")), "due on 5 December or later (dates compare as text)")
    read(rec, q(T, f("status", "$eq", "doing"), o("priority", "$eq", 1)), "doing OR priority 1 (`filter` and `or`)")
    read(rec, q(T, o("status", "$eq", "done"), o("projectId", "$eq", 3)), "done OR in project 3 (two `or`)")
    read(rec, q(H, f("role", "$eq", "engineer")), "the engineers")
    read(rec, q(H, f("email", "$isnull")), "people without an email")
    read(rec, q(P, f("active", "$eq", "false")), "inactive projects (a boolean)")
    read(rec, q(P, f("code", "$in", "OPS,DAT")), "projects coded OPS or DAT")
    read(rec, q(P, f("budget", "$gte", 80)), "projects with a budget of 80 or more")


def build_sorts(rec: Recorder) -> None:
    rec.section("Sorts (`sort=<field>,<ASC|DESC>`, repeated for several keys)")
    read(rec, q(T, srt("priority", "ASC")), "tasks by priority (ties in id order)")
    read(rec, q(T, srt("title", "DESC")), "tasks by title descending")
    read(rec, q(T, srt("priority", "DESC"), srt("title", "ASC")), "by priority descending, then title")
    read(rec, q(T, srt("due", "ASC")), "by due date (no date first: SQLite's NULLs first)")
    read(rec, q(H, srt("name", "DESC")), "people by name descending")
    read(rec, q(P, srt("budget", "DESC")), "projects by budget descending")


def build_pages(rec: Recorder) -> None:
    rec.section("Pages (`limit`, `offset`, `page`, `per_page`: with a page or an offset, the envelope)")
    read(rec, q(T, ("limit", 5)), "the first 5 tasks: `limit` alone answers a plain array")
    read(rec, q(T, ("limit", 5), ("page", 1)), "page 1 of 5: `{data, count, total, page, pageCount}`")
    read(rec, q(T, ("limit", 5), ("page", 2)), "page 2 of 5")
    read(rec, q(T, ("per_page", 4), ("page", 2)), "`per_page` (an alias of `limit`): page 2 of 4")
    read(rec, q(T, ("offset", 10), ("limit", 3)), "`offset` 10, `limit` 3: the envelope, page 4")
    read(rec, q(T, f("status", "$eq", "todo"), ("limit", 3), ("page", 2)), "todo tasks, page 2 of 3")
    read(rec, q(T, srt("title", "ASC"), ("limit", 4), ("page", 3)), "by title, page 3 of 4")
    read(rec, q(T, ("limit", 5), ("page", 6)), "a page past the end: `data` empty")


def build_shapes(rec: Recorder) -> None:
    rec.section("`fields=`, `join=` and the `s=` JSON search")
    read(rec, q(T, ("fields", "id,title")), "only id and title")
    read(rec, q(T, ("fields", "title,status"), f("priority", "$eq", 1)), "title and status of priority 1 (id always)")
    read(rec, q(T, ("join", "project")), "every task with its project (`join`)")
    read(rec, q(T, ("join", "assignee"), f("status", "$eq", "doing")), "doing tasks with their assignee")
    read(rec, q(P, ("join", "tasks")), "projects with their tasks")
    read(rec, q(at(T, 1), ("join", "project")), "task 1 with its project")
    read(rec, q(T, ("join", "project"), f("project.code", "$eq", "WEB")), "tasks of the project coded WEB (a joined field)")
    read(rec, sq(T, search({"status": "todo"})), "`s={\"status\":\"todo\"}`")
    read(rec, sq(T, search({"priority": {"$gte": 2}, "status": "doing"})), "`s=` with an operator and two fields")
    read(rec, sq(T, search({"$or": [{"status": "done"}, {"priority": 1}]})), "`s=` with `$or`")


def build_items(rec: Recorder) -> None:
    rec.section("Items, the nested route and errors")
    read(rec, at(T, 1), "task 1 (every column)")
    read(rec, at(T, 3), "task 3 (nobody assigned, no due date, no estimate: `null`)")
    read(rec, at(P, 2), "project 2")
    read(rec, at(H, 3), "person 3 (Chiara)")
    read(rec, nested(1), "project 1's tasks (the nested route)")
    read(rec, nested(3), "project 3's tasks")
    read(rec, q(nested(2), f("status", "$eq", "todo")), "project 2's todo tasks (a filter on the nested route)")
    read(rec, at(nested(1), 2), "task 2 through project 1")
    read(rec, at(T, 99), "a task that does not exist: 404", expect=404)
    read(rec, at(P, 9), "a project that does not exist: 404", expect=404)
    read(rec, "/invoices", "a route the app does not have: 404", expect=404)
    read(rec, at(H, 0), "person 0: 404", expect=404)


def build_task_writes(rec: Recorder) -> None:
    rec.section("Create a task, PATCH it, PUT it, delete it")
    r = send(rec, "POST", T, "create a task in project 1 for Bruno: 201 with the object",
             {"title": "Tune the alert thresholds", "status": "todo", "priority": 1, "estimate": 4,
              "projectId": 1, "assigneeId": 2, "due": "2026-12-12"}, 201)
    tid = new_id(r)
    read(rec, at(T, tid), "read it")
    read(rec, q(T, f("projectId", "$eq", 1)), "project 1's tasks: the new one listed")
    read(rec, q(T, f("assigneeId", "$eq", 2)), "Bruno's tasks: one more")
    send(rec, "PATCH", at(T, tid), "PATCH the priority and the status", {"priority": 3, "status": "doing"})
    read(rec, at(T, tid), "read it: priority 3, doing")
    read(rec, q(T, f("priority", "$eq", 3)), "priority 3: listed")
    send(rec, "PUT", at(T, tid), "PUT: project 3, nobody assigned, no due date",
         {"title": "Tune the alert rules", "status": "doing", "priority": 3, "estimate": 6, "projectId": 3,
          "assigneeId": None, "due": None})
    read(rec, at(T, tid), "read it")
    read(rec, nested(3), "project 3's tasks: listed")
    read(rec, q(T, f("projectId", "$eq", 1)), "project 1's: no longer")
    send(rec, "PATCH", at(T, 2), "PATCH a seeded task: task 2 done", {"status": "done"})
    read(rec, at(T, 2), "read it")
    read(rec, q(T, f("status", "$eq", "done")), "done tasks: 1, 2, 7, 11, 13")
    bare(rec, "DELETE", at(T, tid), "DELETE the new task: 200 with the deleted object (`returnDeleted`)")
    read(rec, at(T, tid), "it is gone: 404", expect=404)
    r = send(rec, "POST", nested(1), "create a task through the nested route (status and priority default)",
             {"title": "Compress the console assets"}, 201)
    read(rec, at(T, new_id(r)), "read it: project 1")
    read(rec, nested(1), "project 1's tasks: listed")


def build_other_writes(rec: Recorder) -> None:
    rec.section("People: create, patch, put, delete")
    r = send(rec, "POST", H, "create person Femi", {"name": "Femi Adeyemi", "role": "engineer",
                                                    "email": "femi@example.test"}, 201)
    pid = new_id(r)
    read(rec, at(H, pid), "read Femi")
    send(rec, "PATCH", at(H, pid), "change the role", {"role": "designer"})
    read(rec, q(H, f("role", "$eq", "designer")), "the designers: Femi listed")
    send(rec, "PUT", at(H, pid), "PUT a new name and email", {"name": "Femi A. Adeyemi", "email": "fa@example.test",
                                                              "role": "designer"})
    read(rec, at(H, pid), "read it")
    bare(rec, "DELETE", at(H, pid), "delete Femi")
    read(rec, H, "all people: Femi gone")
    bare(rec, "DELETE", at(H, 3), "delete a seeded person, Chiara (her tasks lose the assignee)")
    read(rec, q(T, f("assigneeId", "$isnull")), "tasks nobody is assigned: 4 and 9 now too")
    read(rec, at(T, 4), "task 4: `assigneeId` null")

    rec.section("Projects: create, patch, put, delete")
    r = send(rec, "POST", P, "create project QA", {"code": "QA", "name": "Quality Gate", "budget": 20}, 201)
    prj = new_id(r)
    read(rec, at(P, prj), "read it (active by default)")
    send(rec, "PATCH", at(P, prj), "raise the budget", {"budget": 35})
    read(rec, q(P, f("budget", "$lt", 50)), "projects under 50: MOB and QA")
    send(rec, "POST", nested(prj), "a task for it through the nested route", {"title": "Write the test plan",
                                                                              "priority": 1}, 201)
    read(rec, nested(prj), "its tasks")
    send(rec, "PUT", at(P, prj), "PUT: another name, inactive", {"code": "QA", "name": "Quality Assurance",
                                                                 "budget": 35, "active": False})
    read(rec, at(P, prj), "read it")
    bare(rec, "DELETE", at(P, prj), "delete project QA (its task with it)")
    read(rec, P, "all projects: QA gone")
    read(rec, q(T, f("title", "$cont", "test plan")), "its task is gone too")

    rec.section("Refusals")
    send(rec, "POST", T, "a task without a title or a project: 400 with messages", {"status": "todo"}, 400)
    send(rec, "POST", T, "a status not in the list: 400", {"title": "Plan the sprint", "projectId": 1,
                                                            "status": "later"}, 400)
    send(rec, "PATCH", at(T, 1), "a priority out of range: 400", {"priority": 7}, 400)
    send(rec, "POST", P, "a taken code: 409", {"code": "OPS", "name": "Ops again"}, 409)
    send(rec, "PATCH", at(T, 99), "PATCH a task that does not exist: 404", {"status": "done"}, 404)


def scenario_build(rec: Recorder) -> None:
    build_lists(rec)
    build_sorts(rec)
    build_pages(rec)
    build_shapes(rec)
    build_items(rec)
    build_task_writes(rec)
    build_other_writes(rec)


# ---------------------------------------------------------------- probe-reads
def scenario_probe_reads(rec: Recorder) -> None:
    rec.section("Other conditions")
    read(rec, q(T, f("status", "$eq", "doing")), "doing tasks")
    read(rec, q(T, f("status", "$ne", "todo")), "every task not todo")
    read(rec, q(T, f("projectId", "$eq", 4)), "project 4's tasks")
    read(rec, q(T, f("assigneeId", "$eq", 1)), "Ada's tasks")
    read(rec, q(T, f("priority", "$lte", 1)), "priority 1 or less (`$lte` on the priority)")
    read(rec, q(T, f("priority", "$gt", 2)), "priority above 2")
    read(rec, q(T, f("estimate", "$gte", 8)), "estimates of 8 or more")
    read(rec, q(T, f("estimate", "$lt", 3)), "estimates below 3")
    read(rec, q(T, f("title", "$cont", "wallet")), "titles containing `wallet` (any case)")
    read(rec, q(T, f("title", "$starts", "Re")), "titles starting `Re`")
    read(rec, q(T, f("title", "$ends", "keys")), "titles ending `keys`")
    read(rec, q(T, f("status", "$in", "todo,done")), "status todo or done")
    read(rec, q(T, f("projectId", "$in", "2,3")), "projects 2 or 3 (`$in` on a number)")
    read(rec, q(T, f("due", "$notnull")), "tasks with a due date")
    read(rec, q(T, f("estimate", "$isnull")), "tasks without an estimate")
    read(rec, q(T, f("due", "$lt", "2026-12-01")), "due before December")
    read(rec, q(T, f("status", "$eq", "doing"), f("assigneeId", "$eq", 2)), "Bruno's doing tasks")
    read(rec, q(T, f("priority", "$gte", 2), f("projectId", "$eq", 4)), "project 4, priority 2 or more")
    read(rec, q(T, f("status", "$eq", "todo"), o("assigneeId", "$eq", 5)), "todo OR Esme's")
    read(rec, q(H, f("role", "$eq", "designer")), "the designers")
    read(rec, q(H, f("email", "$notnull")), "people with an email")
    read(rec, q(H, f("name", "$starts", "B")), "people whose name starts with B")
    read(rec, q(P, f("active", "$eq", "true")), "active projects")
    read(rec, q(P, f("budget", "$lt", 80)), "projects under 80")
    read(rec, q(P, f("name", "$cont", "wallet")), "projects whose name contains `wallet`")

    rec.section("Other sorts, pages and shapes")
    read(rec, q(T, srt("due", "DESC")), "by due date descending")
    read(rec, q(T, srt("estimate", "ASC")), "by estimate")
    read(rec, q(T, srt("status", "ASC"), srt("priority", "DESC")), "by status, then priority descending")
    read(rec, q(H, srt("email", "ASC")), "people by email")
    read(rec, q(P, srt("code", "ASC")), "projects by code")
    read(rec, q(T, ("limit", 4), ("page", 3)), "page 3 of 4")
    read(rec, q(T, ("limit", 6), ("page", 2)), "page 2 of 6")
    read(rec, q(T, ("offset", 5), ("limit", 5)), "offset 5, limit 5")
    read(rec, q(T, ("per_page", 3), ("page", 5)), "page 5 of 3")
    read(rec, q(T, ("limit", 3)), "the first 3 (a plain array)")
    read(rec, q(T, f("projectId", "$eq", 2), ("limit", 2), ("page", 2)), "project 2's tasks, page 2 of 2")
    read(rec, q(T, ("fields", "id,status,priority")), "id, status and priority")
    read(rec, q(P, ("fields", "code,budget")), "projects: code and budget")
    read(rec, q(T, ("join", "assignee"), f("projectId", "$eq", 3)), "project 3's tasks with their assignee")
    read(rec, q(P, ("join", "tasks"), f("code", "$eq", "MOB")), "project MOB with its tasks")
    read(rec, sq(T, search({"projectId": 2})), "`s=` on the project")
    read(rec, sq(T, search({"estimate": {"$lt": 5}})), "`s=` estimates below 5")

    rec.section("Other items and errors")
    read(rec, at(T, 5), "task 5")
    read(rec, at(T, 16), "task 16")
    read(rec, at(P, 4), "project 4")
    read(rec, at(H, 5), "person 5 (no email)")
    read(rec, nested(2), "project 2's tasks")
    read(rec, q(nested(4), f("status", "$eq", "doing")), "project 4's doing tasks")
    read(rec, at(nested(3), 7), "task 7 through project 3")
    read(rec, at(T, 50), "a task that does not exist: 404", expect=404)
    read(rec, at(H, 12), "a person that does not exist: 404", expect=404)
    read(rec, at(nested(2), 1), "task 1 through project 2 (it is project 1's): 404", expect=404)


# ---------------------------------------------------------------- probe-crud
def scenario_probe_crud(rec: Recorder) -> None:
    rec.section("A task in project 2: create, patch, put")
    r = send(rec, "POST", T, "create a task in project 2 for Ada", {"title": "Compress the product images",
                                                                    "priority": 2, "estimate": 2, "projectId": 2,
                                                                    "assigneeId": 1}, 201)
    tid = new_id(r)
    read(rec, at(T, tid), "read it (todo by default)")
    read(rec, q(T, f("projectId", "$eq", 2)), "project 2's tasks: listed")
    send(rec, "PATCH", at(T, tid), "give it a due date", {"due": "2026-12-22"})
    read(rec, at(T, tid), "read it")
    read(rec, q(T, f("due", "$gte", "2026-12-20")), "due on 20 December or later: listed")
    send(rec, "PUT", at(T, tid), "PUT it into project 4 for Esme",
         {"title": "Compress the lake exports", "status": "doing", "priority": 1, "estimate": 5, "projectId": 4,
          "assigneeId": 5, "due": "2026-12-22"})
    read(rec, at(T, tid), "read it")
    read(rec, nested(4), "project 4's tasks: listed")
    read(rec, q(T, f("assigneeId", "$eq", 5)), "Esme's tasks")

    rec.section("Seeded tasks")
    send(rec, "PATCH", at(T, 9), "task 9 done", {"status": "done"})
    read(rec, at(T, 9), "read it")
    read(rec, q(T, f("status", "$eq", "doing")), "doing tasks")
    bare(rec, "DELETE", at(T, 6), "delete task 6")
    read(rec, at(T, 6), "it is gone: 404", expect=404)
    read(rec, nested(2), "project 2's tasks without it")
    r = send(rec, "POST", nested(4), "a task through project 4's nested route", {"title": "Vacuum the warehouse",
                                                                                 "status": "doing"}, 201)
    read(rec, at(T, new_id(r)), "read it")
    read(rec, q(T, ("limit", 5), ("page", 4)), "page 4 of 5 after the writes")

    rec.section("People")
    r = send(rec, "POST", H, "create person Gus", {"name": "Gus Moreau", "role": "manager",
                                                   "email": "gus@example.test"}, 201)
    pid = new_id(r)
    read(rec, at(H, pid), "read Gus")
    send(rec, "PUT", at(H, pid), "PUT another name", {"name": "Gustave Moreau", "role": "manager",
                                                      "email": "gus@example.test"})
    send(rec, "PATCH", at(H, pid), "clear the email", {"email": None})
    read(rec, at(H, pid), "read it: no email")
    read(rec, q(H, f("email", "$isnull")), "people without an email: Esme and Gus")
    bare(rec, "DELETE", at(H, pid), "delete Gus")
    read(rec, at(H, pid), "gone: 404", expect=404)
    bare(rec, "DELETE", at(H, 2), "delete a seeded person, Bruno (his tasks lose the assignee)")
    read(rec, at(T, 5), "task 5: `assigneeId` null")
    read(rec, H, "all people")

    rec.section("Projects")
    r = send(rec, "POST", P, "create project SEC", {"code": "SEC", "name": "Security Review", "budget": 55,
                                                    "active": False}, 201)
    prj = new_id(r)
    read(rec, at(P, prj), "read it")
    send(rec, "PUT", at(P, prj), "PUT it active", {"code": "SEC", "name": "Security Review", "budget": 60,
                                                   "active": True})
    read(rec, q(P, f("active", "$eq", "true")), "active projects: listed")
    send(rec, "POST", nested(prj), "a task in it", {"title": "Scan the dependencies", "assigneeId": 4}, 201)
    read(rec, nested(prj), "its tasks")
    bare(rec, "DELETE", at(P, prj), "delete it (its task with it)")
    read(rec, q(T, f("assigneeId", "$eq", 4)), "Dmitri's tasks: the deleted project's is gone")

    rec.section("Refusals and more writes")
    send(rec, "POST", T, "a task without a title: 400", {"projectId": 2}, 400)
    send(rec, "POST", T, "a task in a project that does not exist: 400", {"title": "Ghost", "projectId": 42}, 400)
    send(rec, "POST", H, "an invalid email: 400", {"name": "Hana", "email": "not-an-email"}, 400)
    send(rec, "PATCH", at(P, 2), "a taken code on PATCH: 409", {"code": "DAT"}, 409)
    send(rec, "PATCH", at(H, 40), "PATCH a person that does not exist: 404", {"role": "designer"}, 404)
    send(rec, "PATCH", at(T, 12), "reassign task 12 to Dmitri", {"assigneeId": 4})
    read(rec, at(T, 12), "read it")
    bare(rec, "DELETE", at(T, 14), "delete task 14")
    read(rec, q(T, f("projectId", "$eq", 3)), "project 3's tasks without it")
    read(rec, T, "all tasks")


SCENARIOS = [("build", scenario_build), ("probe-reads", scenario_probe_reads), ("probe-crud", scenario_probe_crud)]


def main() -> None:
    import readme

    record_app(AppSpec(
        name="nestjs-crud", here=HERE, dist="", app_port=APP_PORT, proxy_port=PROXY_PORT,
        command=lambda run: ["node", HERE / "run" / "dist" / "main.js", str(APP_PORT)],
        scenarios=SCENARIOS, render_readme=readme.render, headers={"Accept": "application/json"},
        ready_path=P, env={"PATH": "/usr/local/bin:/usr/bin:/bin", "NODE_ENV": "production",
                           "TZ": "UTC", "HOME": str(HERE / "run")},
        stop_signal=signal.SIGINT, settle=0.3,
        version=lambda: npm_version(HERE, "@dataui/crud"),
    ))


if __name__ == "__main__":
    main()
