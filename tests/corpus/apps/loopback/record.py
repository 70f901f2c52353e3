"""Record HAR captures of a project tracker served by LoopBack 4 in plain JavaScript (the stock CRUD
REST controllers over memory-connector repositories); the app is `app.js` in this folder.

Run through record.sh (it installs the pinned npm packages and the recorder venv). For each
capture `app.js` starts fresh on 127.0.0.1 and loads the seed of `seed.json` (explicit ids, so
every start holds the same records and later creates draw the same next ids), the scenario runs
through the kit's mitmdump proxy, and both are stopped by PID. Query strings are written as the
LoopBack documentation writes them, brackets unencoded (`filter[where][priority][gt]=2`,
`filter[where][status][inq][0]=doing`, `filter[order]=title%20DESC`, `filter[fields][title]=true`,
`where[status]=todo` on `/count` and on a PATCH by query); a value with a space is
percent-encoded, and the whole-filter JSON form (`filter={...}`) is percent-encoded whole.
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

APP_PORT = 18865
PROXY_PORT = 18965
SEED = json.loads((HERE / "seed.json").read_text())
P, H, T = "/projects", "/people", "/tasks"
W = "filter[where]"


# ---------------------------------------------------------------- helpers
def q(path: str, *pairs: tuple) -> str:
    """`path?k=v&…` with the names as written and the values percent-encoded."""
    if not pairs:
        return path
    return path + "?" + "&".join(f"{k}={quote(str(v), safe='-:.')}" for k, v in pairs)


def jf(path: str, flt: dict) -> str:
    """`path?filter=<JSON>`: the whole filter as JSON, percent-encoded."""
    return f"{path}?filter={quote(json.dumps(flt, separators=(',', ':')), safe='')}"


def read(rec: Recorder, path: str, why: str, expect: int = 200) -> httpx.Response:
    return rec.call("GET", path, why, expect=expect)


def send(rec: Recorder, method: str, path: str, why: str, body: dict, expect: int = 204) -> httpx.Response:
    return rec.call(method, path, why, expect=expect, content=json.dumps(body),
                    headers={"Content-Type": "application/json"}, display=f"{path} {json.dumps(body)}")


def delete(rec: Recorder, path: str, why: str, expect: int = 204) -> httpx.Response:
    return rec.call("DELETE", path, why, expect=expect)


def pages(rec: Recorder, path: str, pairs: tuple, limit: int, what: str) -> None:
    """Page through `path` `limit` at a time by `filter[skip]` until a page comes back short."""
    skip = 0
    while True:
        r = read(rec, q(path, *pairs, ("filter[limit]", limit), ("filter[skip]", skip)), f"{what}: skip {skip}")
        skip += limit
        if len(r.json()) < limit:
            return


# ---------------------------------------------------------------- build
def build_lists(rec: Recorder) -> None:
    rec.section("Collections (plain arrays in the store's order)")
    read(rec, P, "all projects")
    read(rec, H, "all people")
    read(rec, T, "all 14 tasks")

    rec.section("Equality, `inq`/`nin`, comparisons, `neq`, `between`, `like`, `or`")
    read(rec, q(T, (f"{W}[status]", "todo")), "tasks whose status is todo")
    read(rec, q(T, (f"{W}[projectId]", 1)), "the tasks of project 1")
    read(rec, q(T, (f"{W}[assigneeId]", 3)), "Lena's tasks")
    read(rec, q(T, (f"{W}[status]", "todo"), (f"{W}[projectId]", 2)), "project 2's todo tasks (two fields)")
    read(rec, q(T, (f"{W}[status][inq][0]", "doing"), (f"{W}[status][inq][1]", "done")),
         "status doing or done (`inq`, indexed)")
    read(rec, q(T, (f"{W}[assigneeId][inq][]", 1), (f"{W}[assigneeId][inq][]", 2)),
         "Ines's or Kofi's tasks (`inq`, `[]` list)")
    read(rec, q(T, (f"{W}[projectId][nin][0]", 1), (f"{W}[projectId][nin][1]", 2)),
         "tasks of neither project 1 nor 2 (`nin`)")
    read(rec, q(T, (f"{W}[priority][lt]", 2)), "priority below 2 (`lt`)")
    read(rec, q(T, (f"{W}[priority][lte]", 2)), "priority 2 or less (`lte`)")
    read(rec, q(T, (f"{W}[estimate][gt]", 3)), "estimate above 3 (`gt`)")
    read(rec, q(T, (f"{W}[estimate][gte]", 3), (f"{W}[status]", "todo")), "todo tasks estimated 3 or more")
    read(rec, q(T, (f"{W}[estimate][between][0]", 2), (f"{W}[estimate][between][1]", 3)), "estimate 2 to 3 (`between`)")
    read(rec, q(T, (f"{W}[dueDate][gte]", "2026-12-05")), "due on 5 December or later (strings compare)")
    read(rec, q(T, (f"{W}[status][neq]", "done")), "tasks not done (`neq`)")
    read(rec, q(T, (f"{W}[title][like]", "wall")), "titles containing `wall` (`like`, case kept)")
    read(rec, q(T, (f"{W}[or][0][status]", "doing"), (f"{W}[or][1][priority]", 1)), "doing or priority 1 (`or`)")
    read(rec, q(H, (f"{W}[role]", "engineer")), "the engineers")
    read(rec, q(P, (f"{W}[code]", "SGB")), "a project by code")
    read(rec, q(P, (f"{W}[active]", "false")), "inactive projects (a boolean)")
    read(rec, q(P, (f"{W}[budget][gt]", 50)), "projects with a budget above 50")


def build_shapes(rec: Recorder) -> None:
    rec.section("Orders, fields, the whole filter as JSON, counts")
    read(rec, q(T, ("filter[order]", "priority ASC")), "tasks by priority (ties in the store's order)")
    read(rec, q(T, ("filter[order][0]", "priority DESC"), ("filter[order][1]", "title ASC")),
         "by priority descending, then title")
    read(rec, q(T, ("filter[order]", "dueDate ASC")), "by due date (no date first)")
    read(rec, q(H, ("filter[order]", "name DESC")), "people by name descending")
    read(rec, q(P, ("filter[order]", "budget DESC")), "projects by budget descending")
    read(rec, q(T, ("filter[fields][title]", "true"), ("filter[fields][status]", "true")), "only title and status")
    read(rec, q(H, ("filter[fields][0]", "name")), "people: only the name (the array form)")
    read(rec, jf(T, {"where": {"status": "doing"}, "order": "title ASC"}), "the filter as JSON: doing tasks by title")
    read(rec, jf(T, {"where": {"priority": {"gte": 3}}, "fields": {"title": True}}),
         "the filter as JSON: priority 3 or more, titles only")
    read(rec, f"{T}/count", "how many tasks: `{count}`")
    read(rec, q(f"{T}/count", ("where[status]", "todo")), "how many todo tasks")
    read(rec, q(f"{T}/count", ("where[priority][gte]", 2)), "how many tasks of priority 2 or more")
    read(rec, f"{H}/count", "how many people")
    read(rec, q(f"{P}/count", ("where[active]", "true")), "how many active projects")


def build_pages(rec: Recorder) -> None:
    rec.section("Pages (`filter[limit]`, `filter[skip]`; no envelope, no links)")
    pages(rec, T, (), 5, "tasks 5 a page")
    pages(rec, T, ((f"{W}[status]", "todo"),), 3, "todo tasks 3 a page")
    read(rec, q(T, ("filter[order]", "title ASC"), ("filter[limit]", 4), ("filter[skip]", 4)),
         "by title, the second page of 4")
    read(rec, q(T, ("filter[limit]", 3), ("filter[offset]", 6)), "`offset` is `skip`'s other name")
    read(rec, q(P, ("filter[limit]", 2), ("filter[skip]", 1)), "projects: 2 from the second")
    read(rec, q(H, ("filter[limit]", 2)), "people 2 a page")


def build_items(rec: Recorder) -> None:
    rec.section("Items, relation routes and errors")
    read(rec, f"{T}/1", "task 1")
    read(rec, f"{T}/4", "task 4")
    read(rec, f"{T}/3", "task 3 (nobody assigned, no due date: the properties are absent)")
    read(rec, f"{P}/2", "project 2")
    read(rec, f"{H}/3", "person 3 (Lena)")
    read(rec, q(f"{T}/5", ("filter[fields][title]", "true")), "task 5, only its title")
    read(rec, f"{P}/1/tasks", "project 1's tasks (a relation route)")
    read(rec, f"{H}/3/tasks", "Lena's tasks (a relation route)")
    read(rec, f"{T}/99", "a task that does not exist: 404", expect=404)
    read(rec, f"{H}/42", "a person who does not exist: 404", expect=404)
    read(rec, f"{P}/9", "a project that does not exist: 404", expect=404)
    read(rec, "/invoices", "a route the app does not have: 404", expect=404)


def build_task_writes(rec: Recorder) -> None:
    rec.section("Create a task, PATCH it, PUT it, delete it (writes by id answer 204)")
    r = send(rec, "POST", T, "create a task in project 1 for Kofi: 200, the created record with the next id",
             {"title": "Check the tide tables", "status": "todo", "priority": 1, "estimate": 3, "projectId": 1,
              "assigneeId": 2, "dueDate": "2026-12-12"}, 200)
    tid = r.json()["id"]
    read(rec, f"{T}/{tid}", "read it")
    read(rec, q(T, (f"{W}[projectId]", 1)), "project 1's tasks: the new one is listed")
    read(rec, q(f"{T}/count", ("where[assigneeId]", 2)), "how many tasks Kofi has: one more")
    send(rec, "PATCH", f"{T}/{tid}", "PATCH priority and estimate: 204", {"priority": 3, "estimate": 5})
    read(rec, f"{T}/{tid}", "read it: priority 3, estimate 5")
    read(rec, q(T, (f"{W}[priority]", 3)), "priority 3: listed")
    send(rec, "PUT", f"{T}/{tid}", "PUT replaces it: project 3, nobody assigned, no due date: 204",
         {"title": "Check the tide charts", "status": "doing", "priority": 2, "estimate": 2, "projectId": 3})
    read(rec, f"{T}/{tid}", "read it: replaced (no assignee, no due date)")
    read(rec, f"{P}/3/tasks", "project 3's tasks: listed")
    read(rec, q(T, (f"{W}[projectId]", 1)), "project 1's: no longer")
    send(rec, "PATCH", f"{T}/2", "a seeded task done", {"status": "done"})
    read(rec, f"{T}/2", "read it")
    read(rec, q(T, (f"{W}[status]", "done")), "done tasks: 1, 2, 7, 11, 13")
    delete(rec, f"{T}/{tid}", "DELETE it: 204")
    read(rec, f"{T}/{tid}", "it is gone: 404", expect=404)
    read(rec, f"{P}/3/tasks", "project 3's tasks without it")


def build_where_writes(rec: Recorder) -> None:
    rec.section("PATCH by `where` (every match updated, `{count}` answered)")
    send(rec, "PATCH", q(T, ("where[projectId]", 4)), "PATCH every task of project 4: doing (`{count: 3}`)",
         {"status": "doing"}, 200)
    read(rec, q(T, (f"{W}[projectId]", 4)), "project 4's tasks: all doing")
    read(rec, q(T, (f"{W}[status]", "doing")), "doing tasks")
    send(rec, "PATCH", q(T, ("where[estimate][gte]", 8)), "PATCH the tasks estimated 8 or more: priority 1",
         {"priority": 1}, 200)
    read(rec, q(T, (f"{W}[priority]", 1)), "priority 1 tasks")
    read(rec, q(f"{T}/count", ("where[priority]", 1)), "how many of priority 1")


def build_other_writes(rec: Recorder) -> None:
    rec.section("A person and a project: create, patch, replace, delete")
    r = send(rec, "POST", H, "create person Noor", {"name": "Noor Haddad", "role": "engineer",
                                                    "email": "noor@example.test"}, 200)
    pid = r.json()["id"]
    read(rec, f"{H}/{pid}", "read Noor")
    send(rec, "PATCH", f"{H}/{pid}", "change the role", {"role": "designer"})
    read(rec, q(H, (f"{W}[role]", "designer")), "the designers: Noor listed")
    send(rec, "PUT", f"{H}/{pid}", "replace Noor (the email dropped)", {"name": "Noor Haddad", "role": "manager"})
    read(rec, f"{H}/{pid}", "read Noor: no email")
    delete(rec, f"{H}/{pid}", "delete Noor")
    read(rec, f"{H}/{pid}", "Noor is gone: 404", expect=404)
    read(rec, q(H, ("filter[order]", "name ASC")), "people: five again")
    r = send(rec, "POST", P, "create project Boathouse", {"name": "Boathouse", "code": "BTH", "budget": 25,
                                                         "active": True}, 200)
    prj = r.json()["id"]
    read(rec, P, "projects: five")
    send(rec, "POST", T, "a task in it (status, priority, estimate default)",
         {"title": "Measure the moorings", "projectId": prj}, 200)
    read(rec, f"{P}/{prj}/tasks", "the new project's tasks")
    send(rec, "PATCH", f"{P}/{prj}", "raise its budget", {"budget": 90})
    read(rec, q(P, (f"{W}[budget][gt]", 50)), "projects with a budget above 50: listed")
    delete(rec, f"{P}/{prj}", "delete the project (its task keeps the id)")
    read(rec, P, "projects: four again")
    read(rec, f"{T}/count", "how many tasks")


def build_refusals(rec: Recorder) -> None:
    rec.section("Refusals")
    send(rec, "POST", T, "a task without a title: 422", {"priority": 3}, 422)
    send(rec, "POST", T, "a property the model does not have: 422", {"title": "Burnt", "colour": "red"}, 422)
    send(rec, "PUT", f"{T}/3", "a replace without a title: 422", {"status": "done"}, 422)
    send(rec, "PATCH", f"{T}/99", "PATCH a task that does not exist: 404", {"status": "done"}, 404)
    send(rec, "PUT", f"{T}/99", "PUT a task that does not exist: 404", {"title": "Ghost"}, 404)
    delete(rec, f"{T}/99", "DELETE a task that does not exist: 404", expect=404)
    read(rec, q(T, ("filter[order][0]", "estimate DESC"), ("filter[order][1]", "title ASC"), ("filter[limit]", 5)),
         "tasks by estimate, 5 a page")


def scenario_build(rec: Recorder) -> None:
    build_lists(rec)
    build_shapes(rec)
    build_pages(rec)
    build_items(rec)
    build_task_writes(rec)
    build_where_writes(rec)
    build_other_writes(rec)
    build_refusals(rec)


# ---------------------------------------------------------------- probe-reads
def probe_filters(rec: Recorder) -> None:
    rec.section("Other values, fields, operators and combinations")
    read(rec, q(T, (f"{W}[status]", "doing")), "status doing")
    read(rec, q(T, (f"{W}[projectId]", 3)), "project 3's tasks")
    read(rec, q(T, (f"{W}[assigneeId]", 5)), "Aiko's tasks")
    read(rec, q(T, (f"{W}[assigneeId]", 1), (f"{W}[status]", "todo")), "Ines's todo tasks")
    read(rec, q(T, (f"{W}[status][inq][0]", "todo")), "`inq` with one value")
    read(rec, q(T, (f"{W}[projectId][inq][0]", 3), (f"{W}[projectId][inq][1]", 4)), "project 3 or 4 (`inq` on ids)")
    read(rec, q(T, (f"{W}[status][inq][]", "todo"), (f"{W}[status][inq][]", "done")), "todo or done (`[]` list)")
    read(rec, q(T, (f"{W}[status][nin][0]", "todo"), (f"{W}[status][nin][1]", "doing")),
         "status neither todo nor doing")
    read(rec, q(T, (f"{W}[priority][gt]", 1)), "priority above 1")
    read(rec, q(T, (f"{W}[priority][gte]", 3)), "priority 3 or more")
    read(rec, q(T, (f"{W}[estimate][lt]", 3)), "estimate below 3")
    read(rec, q(T, (f"{W}[estimate][lte]", 2), (f"{W}[status]", "todo")), "todo tasks estimated 2 or less")
    read(rec, q(T, (f"{W}[priority][between][0]", 1), (f"{W}[priority][between][1]", 2)), "priority 1 to 2")
    read(rec, q(T, (f"{W}[dueDate][lt]", "2026-12-01")), "due before 1 December")
    read(rec, q(T, (f"{W}[projectId][neq]", 1)), "tasks outside project 1")
    read(rec, q(T, (f"{W}[title][like]", "the")), "titles containing `the`")
    read(rec, q(T, (f"{W}[or][0][projectId]", 3), (f"{W}[or][1][assigneeId]", 2)), "project 3 or Kofi's")
    read(rec, q(T, (f"{W}[status]", "todo"), (f"{W}[or][0][priority]", 1), (f"{W}[or][1][estimate][gte]", 8)),
         "todo and (priority 1 or estimate 8 or more)")
    read(rec, q(T, (f"{W}[title]", "Grease the winch")), "a title (exact)")
    read(rec, q(T, (f"{W}[estimate]", 8)), "estimate 8")
    read(rec, q(H, (f"{W}[role]", "designer")), "the designers")
    read(rec, q(H, (f"{W}[role]", "intern")), "a role nobody has: empty")
    read(rec, q(H, (f"{W}[email]", "marco@example.test")), "a person by email")
    read(rec, q(P, (f"{W}[active]", "true")), "active projects")
    read(rec, q(P, (f"{W}[budget][lte]", 60)), "projects with a budget of 60 or less")
    read(rec, q(P, (f"{W}[name]", "Ferry Ramp")), "a project by name")


def probe_shapes(rec: Recorder) -> None:
    rec.section("Other orders, fields, JSON filters, counts and pages")
    read(rec, q(T, ("filter[order]", "estimate DESC")), "by estimate descending")
    read(rec, q(T, ("filter[order]", "title ASC")), "by title")
    read(rec, q(T, ("filter[order][0]", "status ASC"), ("filter[order][1]", "priority DESC")), "by status, then priority")
    read(rec, q(H, ("filter[order]", "email ASC")), "people by email")
    read(rec, q(P, ("filter[order]", "name ASC")), "projects by name")
    read(rec, q(T, ("filter[fields][title]", "true"), ("filter[fields][priority]", "true")), "only title and priority")
    read(rec, q(P, ("filter[fields][0]", "code")), "projects: only the code")
    read(rec, q(T, (f"{W}[status]", "todo"), ("filter[order]", "priority DESC"), ("filter[fields][title]", "true")),
         "todo tasks by priority, titles only")
    read(rec, jf(T, {"where": {"projectId": 2}, "order": "estimate DESC"}), "the filter as JSON: project 2 by estimate")
    read(rec, jf(T, {"where": {"status": {"inq": ["todo", "doing"]}}, "limit": 4}), "JSON: todo or doing, 4 of them")
    read(rec, q(f"{T}/count", ("where[status]", "done")), "how many done tasks")
    read(rec, q(f"{T}/count", ("where[projectId]", 3)), "how many tasks in project 3")
    read(rec, q(f"{T}/count", ("where[estimate][lt]", 3)), "how many estimated below 3")
    read(rec, f"{P}/count", "how many projects")
    read(rec, q(T, ("filter[limit]", 4), ("filter[skip]", 8)), "the third page of 4 (asked directly)")
    pages(rec, T, (("filter[order]", "title DESC"),), 6, "by title descending, 6 a page")
    pages(rec, T, ((f"{W}[projectId][inq][0]", 1), (f"{W}[projectId][inq][1]", 2), ("filter[order]", "priority ASC")),
          3, "projects 1 and 2 by priority, 3 a page")
    read(rec, q(T, ("filter[skip]", 40)), "a page past the end: empty")
    read(rec, q(H, ("filter[order]", "name ASC"), ("filter[limit]", 2), ("filter[skip]", 2)),
         "people by name, the second page of 2")
    read(rec, q(P, ("filter[limit]", 3)), "projects: the first 3")


def probe_items(rec: Recorder) -> None:
    rec.section("Other items, relation routes and errors")
    for tid in ("2", "8", "12", "14"):
        read(rec, f"{T}/{tid}", f"task {tid}")
    read(rec, f"{P}/4", "project 4")
    read(rec, f"{H}/2", "person 2 (Kofi)")
    read(rec, q(f"{T}/1", ("filter[fields][status]", "true")), "task 1, only its status")
    read(rec, f"{P}/2/tasks", "project 2's tasks")
    read(rec, f"{H}/5/tasks", "Aiko's tasks")
    read(rec, f"{T}/42", "a task that does not exist: 404", expect=404)
    read(rec, f"{P}/7", "a project that does not exist: 404", expect=404)
    read(rec, f"{H}/99", "a person who does not exist: 404", expect=404)
    read(rec, "/invoices", "a route the app does not have: 404", expect=404)


def scenario_probe_reads(rec: Recorder) -> None:
    probe_filters(rec)
    probe_shapes(rec)
    probe_items(rec)


# ---------------------------------------------------------------- probe-crud
def probe_crud_tasks(rec: Recorder) -> None:
    rec.section("A task created, patched, replaced; seeded tasks changed and deleted")
    r = send(rec, "POST", T, "create a task in project 2 for Ines",
             {"title": "Test the sprinklers", "status": "doing", "priority": 2, "estimate": 5, "projectId": 2,
              "assigneeId": 1}, 200)
    tid = r.json()["id"]
    read(rec, f"{T}/{tid}", "read it")
    read(rec, q(T, (f"{W}[projectId]", 2)), "project 2's tasks: listed")
    read(rec, q(T, (f"{W}[assigneeId]", 1), (f"{W}[status]", "doing")), "Ines's doing tasks: listed")
    read(rec, q(f"{T}/count", ("where[projectId]", 2)), "how many in project 2")
    send(rec, "PATCH", f"{T}/{tid}", "PATCH title and a due date", {"title": "Test the misters",
                                                                     "dueDate": "2026-12-30"})
    read(rec, f"{T}/{tid}", "read it")
    read(rec, q(T, (f"{W}[dueDate][gt]", "2026-12-20")), "due after 20 December: listed")
    send(rec, "PUT", f"{T}/{tid}", "PUT replaces it in project 4 for Aiko (no due date)",
         {"title": "Test the misters", "status": "todo", "priority": 1, "estimate": 2, "projectId": 4,
          "assigneeId": 5})
    read(rec, f"{T}/{tid}", "read it: replaced")
    read(rec, q(T, (f"{W}[projectId]", 4), ("filter[order]", "priority ASC")), "project 4's tasks by priority")
    read(rec, f"{H}/5/tasks", "Aiko's tasks: listed")
    send(rec, "PATCH", f"{T}/6", "task 6 done", {"status": "done"})
    read(rec, f"{T}/6", "read it")
    read(rec, q(T, (f"{W}[status]", "done")), "done tasks")
    delete(rec, f"{T}/5", "delete task 5")
    read(rec, f"{T}/5", "it is gone: 404", expect=404)
    read(rec, f"{P}/2/tasks", "project 2's tasks without it")
    pages(rec, T, (("filter[order]", "title ASC"),), 4, "tasks by title, 4 a page, after the writes")


def probe_crud_where(rec: Recorder) -> None:
    rec.section("PATCH by other `where` queries")
    send(rec, "PATCH", q(T, ("where[assigneeId]", 3)), "every task of Lena: priority 3", {"priority": 3}, 200)
    read(rec, q(T, (f"{W}[assigneeId]", 3)), "Lena's tasks")
    read(rec, q(T, (f"{W}[priority][gte]", 3)), "priority 3 or more")
    send(rec, "PATCH", q(T, ("where[status][inq][0]", "todo"), ("where[projectId]", 3)),
         "project 3's todo tasks: doing", {"status": "doing"}, 200)
    read(rec, q(T, (f"{W}[projectId]", 3)), "project 3's tasks")
    read(rec, q(f"{T}/count", ("where[status]", "doing")), "how many doing")
    read(rec, f"{T}/count", "the total")


def probe_crud_others(rec: Recorder) -> None:
    rec.section("A person and a project")
    r = send(rec, "POST", H, "create a person", {"name": "Oskar Lind", "role": "manager",
                                                 "email": "oskar@example.test"}, 200)
    pid = r.json()["id"]
    read(rec, f"{H}/{pid}", "read them")
    read(rec, q(H, (f"{W}[role]", "manager")), "the managers: listed")
    send(rec, "PATCH", f"{H}/{pid}", "a new email", {"email": "oskar.lind@example.test"})
    read(rec, f"{H}/{pid}", "read them")
    delete(rec, f"{H}/{pid}", "delete them")
    read(rec, f"{H}/{pid}", "they are gone: 404", expect=404)
    read(rec, H, "people: five")
    r = send(rec, "POST", P, "create a project", {"name": "Water Tower", "code": "WTR", "budget": 55,
                                                  "active": False}, 200)
    prj = r.json()["id"]
    read(rec, f"{P}/{prj}", "read it")
    read(rec, q(P, (f"{W}[active]", "false")), "inactive projects: listed")
    send(rec, "PUT", f"{P}/{prj}", "replace it", {"name": "Water Tower", "code": "WTR", "budget": 70, "active": True})
    read(rec, q(P, (f"{W}[budget][gte]", 70)), "projects with a budget of 70 or more")
    delete(rec, f"{P}/{prj}", "delete it")
    read(rec, P, "projects: four")

    rec.section("Refusals")
    send(rec, "POST", T, "a task without a title: 422", {"estimate": 2}, 422)
    send(rec, "POST", H, "a person without a name: 422", {"role": "engineer"}, 422)
    send(rec, "PATCH", f"{T}/42", "PATCH a task that does not exist: 404", {"status": "done"}, 404)
    delete(rec, f"{H}/42", "DELETE a person who does not exist: 404", expect=404)

    rec.section("Tasks the build read by id, changed and deleted")
    send(rec, "PATCH", f"{T}/4", "task 4 done, reassigned to Marco", {"status": "done", "assigneeId": 4})
    read(rec, f"{T}/4", "read it")
    read(rec, q(T, (f"{W}[assigneeId]", 4)), "Marco's tasks: listed")
    delete(rec, f"{T}/3", "delete task 3")
    read(rec, f"{T}/3", "it is gone: 404", expect=404)
    read(rec, f"{T}/count", "the total")


def scenario_probe_crud(rec: Recorder) -> None:
    probe_crud_tasks(rec)
    probe_crud_where(rec)
    probe_crud_others(rec)


SCENARIOS = [("build", scenario_build), ("probe-reads", scenario_probe_reads), ("probe-crud", scenario_probe_crud)]


def command(run: Path) -> list:
    return ["node", HERE / "app.js", str(APP_PORT)]


def main() -> None:
    import readme

    spec = AppSpec(
        name="loopback", here=HERE, dist="", app_port=APP_PORT, proxy_port=PROXY_PORT, command=command,
        scenarios=SCENARIOS, render_readme=readme.render, headers={"Accept": "application/json"}, ready_path=P,
        stop_signal=signal.SIGINT, settle=0.3, env={"PATH": "/usr/local/bin:/usr/bin:/bin"},
        version=lambda: npm_version(HERE, "@loopback/rest"),
    )
    record_app(spec)


if __name__ == "__main__":
    main()
