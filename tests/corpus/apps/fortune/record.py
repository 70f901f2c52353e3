"""Record HAR captures of a project tracker served as JSON:API by Fortune.js (the memory adapter),
fortune-http's listener and fortune-json-api's serializer; the app is `app.js` in this folder.

Run through record.sh (it installs the pinned npm packages and the recorder venv). For each
capture `app.js` starts fresh on 127.0.0.1 and creates the seed of `seed.json` (explicit ids, so
every start holds the same records), the scenario runs through the kit's mitmdump proxy, and both
are stopped by PID. Query strings are written as a JSON:API client writes them, brackets unencoded
(`filter[project]=1`); a value with a space is percent-encoded. Pages are followed through the
server's own `links.next` (a relative URL it spells percent-encoded, `page%5Boffset%5D=5`). Writes
send `application/vnd.api+json`.
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
from jsonapi_client import JSONAPI, create, follow, read, rel, rels, resource, send  # noqa: E402

APP_PORT = 18857
PROXY_PORT = 18957
SEED = json.loads((HERE / "seed.json").read_text())
P, H, T = "/projects", "/people", "/tasks"


# ---------------------------------------------------------------- helpers
def q(path: str, *pairs: tuple) -> str:
    """`path?k=v&…` with the names' brackets as written and the values percent-encoded
    (`,` kept: it separates the values of one filter and of a sort)."""
    if not pairs:
        return path
    return path + "?" + "&".join(f"{k}={quote(str(v), safe=',-')}" for k, v in pairs)


def update(rec: Recorder, coll: str, typ: str, id_: str, attrs: dict, why: str, relationships: dict | None = None,
           expect: int = 204) -> httpx.Response:
    return send(rec, "PATCH", f"{coll}/{id_}", why, resource(typ, attrs, relationships, id_), expect)


def delete(rec: Recorder, path: str, why: str, expect: int = 204) -> httpx.Response:
    return rec.call("DELETE", path, why, expect=expect)


def task_in(project, assignee=None) -> dict:
    out = {"project": rel("projects", project)}
    if assignee is not None:
        out["assignee"] = rel("people", assignee)
    return out


# ---------------------------------------------------------------- build
def build_lists(rec: Recorder) -> None:
    rec.section("Collections")
    read(rec, P, "all projects")
    read(rec, H, "all people")
    read(rec, T, "all tasks")

    rec.section("Filters: attributes, relationship identifiers, ranges, existence, fuzzy match")
    read(rec, q(T, ("filter[status]", "todo")), "tasks whose status is todo")
    read(rec, q(T, ("filter[status]", "done,doing")), "status done or doing (a comma list is `in`)")
    read(rec, q(T, ("filter[project]", "1")), "the tasks of project 1 (the bare relationship identifier)")
    read(rec, q(T, ("filter[assignee]", "3")), "Lena's tasks (the assignee's identifier)")
    read(rec, q(T, ("filter[assignee]", "2,4")), "Kofi's and Marco's tasks (a comma list of identifiers)")
    read(rec, q(T, ("filter[assignee]", "1"), ("filter[status]", "todo")), "Ines's todo tasks (two filters)")
    read(rec, q(T, ("filter[priority]", "1")), "priority 1")
    read(rec, q(T, ("filter[priority][min]", "2")), "priority 2 or more (`[min]`)")
    read(rec, q(T, ("filter[estimate][max]", "3")), "estimate 3 or less (`[max]`)")
    read(rec, q(T, ("filter[estimate][min]", "3"), ("filter[estimate][max]", "8")), "estimate from 3 to 8")
    read(rec, q(T, ("filter[due-date][min]", "2026-12-05")), "due on 5 December or later (a date range)")
    read(rec, q(T, ("filter[assignee][exists]", "false")), "tasks nobody is assigned (`[exists]=false`)")
    read(rec, q(T, ("filter[title][fuzzy-match]", "the")), "titles holding `the`, any case (`[fuzzy-match]`)")
    read(rec, q(H, ("filter[role]", "engineer")), "the engineers")
    read(rec, q(P, ("filter[code]", "SGB")), "a project by code")

    rec.section("Sorts and sparse fields")
    read(rec, q(T, ("sort", "-priority,title")), "tasks by priority descending, then title")
    read(rec, q(T, ("sort", "estimate")), "tasks by estimate (ties in the store's order)")
    read(rec, q(T, ("sort", "due-date")), "tasks by due date (no date last)")
    read(rec, q(H, ("sort", "-name")), "people by name descending")
    read(rec, q(T, ("fields[tasks]", "title,status")), "only title and status (`fields[tasks]`)")

    rec.section("Pages (`page[offset]`, `page[limit]`, `links`)")
    r = read(rec, q(T, ("sort", "title"), ("page[limit]", "5")), "tasks by title, 5 a page: page 1")
    follow(rec, r, "tasks by title, 5 a page")
    r = read(rec, q(T, ("filter[status]", "todo"), ("page[limit]", "2")), "todo tasks, 2 a page: page 1")
    follow(rec, r, "todo tasks, 2 a page")


def build_items(rec: Recorder) -> None:
    rec.section("Included resources, related routes and relationships")
    read(rec, q(T, ("include", "assignee"), ("filter[status]", "doing")), "doing tasks with their assignees")
    read(rec, q(T, ("include", "project,assignee"), ("page[limit]", "3")), "3 tasks with projects and assignees")
    read(rec, q(f"{P}/1", ("include", "tasks")), "project 1 with its tasks")
    read(rec, f"{T}/1", "task 1")
    read(rec, f"{T}/4", "task 4")
    read(rec, f"{T}/3", "task 3 (nobody assigned, no due date: `data: null`, `due-date` null)")
    read(rec, f"{P}/2", "project 2 (its tasks' identifiers)")
    read(rec, f"{H}/3", "person 3 (Lena)")
    read(rec, f"{P}/2/tasks", "project 2's tasks (the related route)")
    read(rec, f"{H}/1/tasks", "Ines's tasks (the related route)")
    read(rec, f"{T}/4/assignee", "task 4's assignee (a to-one related route)")
    read(rec, f"{T}/4/relationships/assignee", "task 4's assignee relationship (identifiers only)")
    read(rec, f"{P}/2/relationships/tasks", "project 2's tasks relationship")
    read(rec, f"{T}/99", "a task that does not exist: 404", expect=404)
    read(rec, f"{H}/42", "a person who does not exist: 404", expect=404)
    read(rec, q(T, ("filter[colour]", "red")), "a filter on a field the tasks lack: 400", expect=400)


def build_task_writes(rec: Recorder) -> None:
    rec.section("Create a task, change it, move it, read it back")
    r = create(rec, T, "tasks", {"title": "Check the tide tables", "status": "todo", "priority": 2, "estimate": 3,
                                 "due-date": "2026-12-12T00:00:00.000Z"},
               "create a task in project 1 for Kofi; answers 201 with the generated id", task_in(1, 2))
    tid = r.json()["data"]["id"]
    read(rec, f"{T}/{tid}", "read it")
    read(rec, q(T, ("filter[project]", "1")), "project 1's tasks: the new one is listed")
    read(rec, f"{P}/1", "project 1's `tasks` identifiers list it (Fortune keeps the inverse link)")
    read(rec, f"{H}/2", "Kofi's `tasks` identifiers list it")
    read(rec, f"{P}/1/tasks", "project 1's related route lists it too")
    update(rec, T, "tasks", tid, {"priority": 1, "estimate": 5}, "PATCH priority and estimate: 204, no body")
    read(rec, f"{T}/{tid}", "read it: priority 1, estimate 5")
    read(rec, q(T, ("filter[priority]", "1")), "priority 1: the new one is listed")
    send(rec, "PATCH", f"{T}/{tid}/relationships/project", "PATCH the to-one relationship: move it to project 3",
         rel("projects", 3), 204)
    read(rec, f"{T}/{tid}", "read it: project 3")
    read(rec, f"{P}/3", "project 3's `tasks` identifiers list it")
    read(rec, f"{P}/1", "project 1's no longer do")
    read(rec, q(T, ("filter[project]", "3")), "project 3's tasks: listed")
    send(rec, "PATCH", f"{T}/2/relationships/assignee", "PATCH a set to-one relationship: task 2 passes to Lena",
         rel("people", 3), 204)
    read(rec, f"{H}/3/tasks", "Lena's tasks list task 2")
    read(rec, q(T, ("filter[assignee]", "3")), "Lena's tasks by the filter: task 2 listed")
    read(rec, f"{H}/4", "Marco's identifiers: task 2 is gone")


def build_person_writes(rec: Recorder) -> None:
    rec.section("A person: create, assign a task, delete (the task's assignee is cleared)")
    r = create(rec, H, "people", {"name": "Noor Haddad", "role": "engineer", "email": "noor@example.test"},
               "create person Noor")
    pid = r.json()["data"]["id"]
    read(rec, f"{H}/{pid}", "read Noor")
    update(rec, H, "people", pid, {"role": "designer"}, "change the role")
    read(rec, q(H, ("filter[role]", "designer")), "the designers: Noor listed")
    update(rec, T, "tasks", "10", {"status": "doing"}, "give task 10 to Noor (a relationship in the PATCH body)",
           {"assignee": rel("people", pid)})
    read(rec, q(T, ("filter[assignee]", pid)), "Noor's tasks: task 10")
    read(rec, f"{H}/{pid}", "Noor's `tasks` identifiers list task 10")
    read(rec, f"{H}/4", "Marco's no longer list task 10")
    delete(rec, f"{H}/{pid}", "delete Noor")
    read(rec, f"{T}/10", "task 10: the assignee is null")
    read(rec, f"{H}/{pid}", "Noor is gone: 404", expect=404)
    read(rec, q(H, ("sort", "-name")), "people: Noor is gone")


def build_project_writes(rec: Recorder) -> None:
    rec.section("A project: create, tasks in it, delete one, delete the project (its task's project is cleared)")
    r = create(rec, P, "projects", {"name": "Boathouse", "code": "BTH", "budget": 25}, "create project Boathouse")
    pid = r.json()["data"]["id"]
    r = create(rec, T, "tasks", {"title": "Measure the moorings"}, "a task in it (status, priority, estimate default)",
               task_in(pid))
    t1 = r.json()["data"]["id"]
    r = create(rec, T, "tasks", {"title": "Hire a winch", "priority": 1}, "a second task in it, for Marco",
               task_in(pid, 4))
    t2 = r.json()["data"]["id"]
    read(rec, f"{P}/{pid}", "the project lists both tasks")
    read(rec, q(T, ("filter[project]", pid)), "the tasks of the new project (its generated identifier)")
    delete(rec, f"{T}/{t1}", "delete the first task")
    read(rec, f"{T}/{t1}", "it is gone: 404", expect=404)
    read(rec, f"{P}/{pid}", "the project lists one task")
    delete(rec, f"{P}/{pid}", "delete the project while a task names it")
    read(rec, f"{T}/{t2}", "the task remains, its project null")
    read(rec, q(P, ("sort", "name")), "projects by name: four again")

    rec.section("A to-many relationship written from the parent")
    send(rec, "POST", f"{P}/4/relationships/tasks", "add task 11 to project 4's tasks", rels("tasks", 11), 204)
    read(rec, f"{T}/11", "task 11: project 4")
    read(rec, q(T, ("filter[project]", "4")), "project 4's tasks: 9, 10, 11")
    send(rec, "DELETE", f"{P}/4/relationships/tasks", "remove task 11 from them again", rels("tasks", 11), 204)
    read(rec, f"{T}/11", "task 11: no project")


def build_refusals(rec: Recorder) -> None:
    rec.section("Refusals")
    create(rec, H, "people", {"name": "Ines Again", "role": "engineer", "email": "ines@example.test"},
           "an email that exists (the app's unique check): 409", expect=409)
    create(rec, T, "projects", {"name": "Wrong type"}, "a type that is not the collection's: 409", expect=409)
    create(rec, T, "tasks", {"priority": 3}, "a task without a title (the app's check): 400", task_in(1), expect=400)
    create(rec, T, "tasks", {"title": "Burnt", "status": "burned"}, "a status that is not a choice: 400", expect=400)
    create(rec, T, "tasks", {"title": "Orphan"}, "a project that does not exist: 400", task_in(9), expect=400)
    send(rec, "PATCH", f"{T}/3", "a PATCH whose body names another id: 409",
         {"data": {"type": "tasks", "id": "4", "attributes": {"status": "done"}}}, 409)
    update(rec, T, "tasks", "99", {"status": "done"}, "PATCH a task that does not exist: 404", expect=404)
    delete(rec, f"{T}/99", "DELETE a task that does not exist: 404", expect=404)
    read(rec, q(T, ("sort", "colour")), "a sort on a field the tasks lack: 500 (Fortune reads no definition)",
         expect=500)
    r = read(rec, q(T, ("sort", "-estimate,title"), ("page[limit]", "5")), "tasks by estimate, 5 a page")
    follow(rec, r, "tasks by estimate, 5 a page")


def scenario_build(rec: Recorder) -> None:
    build_lists(rec)
    build_items(rec)
    build_task_writes(rec)
    build_person_writes(rec)
    build_project_writes(rec)
    build_refusals(rec)


# ---------------------------------------------------------------- probe-reads
def probe_filters(rec: Recorder) -> None:
    rec.section("Other filter values and fields")
    read(rec, q(T, ("filter[status]", "doing")), "status doing")
    read(rec, q(T, ("filter[status]", "todo,done")), "status todo or done")
    read(rec, q(T, ("filter[assignee]", "4")), "Marco's tasks (another identifier)")
    read(rec, q(T, ("filter[project]", "3")), "project 3's tasks")
    read(rec, q(T, ("filter[project]", "2"), ("filter[status]", "todo")), "project 2's todo tasks")
    read(rec, q(T, ("filter[assignee]", "1,3")), "Ines's and Lena's tasks")
    read(rec, q(T, ("filter[project]", "4"), ("filter[assignee]", "1")), "project 4's tasks for Ines")
    read(rec, q(T, ("filter[priority][max]", "1")), "priority 1 or less (`[max]`)")
    read(rec, q(T, ("filter[estimate][min]", "5")), "estimate 5 or more (`[min]`)")
    read(rec, q(T, ("filter[priority][min]", "2"), ("filter[priority][max]", "2")), "priority from 2 to 2")
    read(rec, q(T, ("filter[due-date][max]", "2026-12-01")), "due on 1 December or earlier")
    read(rec, q(T, ("filter[project][exists]", "false")), "tasks in no project")
    read(rec, q(T, ("filter[assignee][exists]", "true")), "tasks somebody is assigned")
    read(rec, q(T, ("filter[title][fuzzy-match]", "WALL")), "titles holding `WALL`, any case")
    read(rec, q(T, ("filter[title]", "Survey the slipway")), "a title (exact)")
    read(rec, q(T, ("filter[estimate]", "8")), "estimate 8")
    read(rec, q(H, ("filter[role]", "designer")), "the designers")
    read(rec, q(H, ("filter[role]", "intern")), "a role nobody has: empty")
    read(rec, q(H, ("filter[email]", "lena@example.test")), "a person by email")
    read(rec, q(P, ("filter[code]", "FRR")), "a project by code")
    read(rec, q(P, ("filter[budget][min]", "70")), "projects with a budget of 70 or more")
    read(rec, q(P, ("filter[tasks]", "7")), "the project holding task 7 (a to-many identifier)")


def probe_sorts_pages(rec: Recorder) -> None:
    rec.section("Other sorts and fields")
    read(rec, q(T, ("sort", "-estimate,title")), "by estimate descending, then title")
    read(rec, q(T, ("sort", "status,-priority,title")), "by status, then priority descending, then title")
    read(rec, q(T, ("sort", "title")), "by title")
    read(rec, q(T, ("sort", "-due-date")), "by due date descending (no date still last)")
    read(rec, q(H, ("sort", "email")), "people by email")
    read(rec, q(P, ("sort", "-budget")), "projects by budget descending")
    read(rec, q(T, ("fields[tasks]", "title,priority")), "only title and priority")
    read(rec, q(H, ("fields[people]", "name")), "people: only the name")
    read(rec, q(T, ("filter[status]", "todo"), ("sort", "-priority,title"), ("fields[tasks]", "title")),
         "todo tasks by priority, titles only")

    rec.section("Other pages")
    read(rec, q(T, ("page[offset]", "4"), ("page[limit]", "4")), "the second page of 4 (asked directly)")
    r = read(rec, q(T, ("page[limit]", "3")), "3 a page: page 1")
    follow(rec, r, "3 a page")
    r = read(rec, q(T, ("filter[status]", "todo"), ("sort", "-priority,title"), ("page[limit]", "2")),
             "todo tasks by priority, 2 a page: page 1")
    follow(rec, r, "todo tasks by priority, 2 a page")
    read(rec, q(H, ("sort", "name"), ("page[limit]", "2")), "people by name, 2 a page")
    read(rec, q(T, ("page[offset]", "40"), ("page[limit]", "4")), "a page past the end")


def probe_items(rec: Recorder) -> None:
    rec.section("Other includes, items, related routes and relationships")
    read(rec, q(T, ("include", "assignee"), ("filter[assignee]", "3")), "Lena's tasks with the assignee")
    read(rec, q(T, ("include", "project"), ("sort", "title"), ("page[limit]", "3")), "3 tasks by title with projects")
    read(rec, q(f"{P}/3", ("include", "tasks")), "project 3 with its tasks")
    read(rec, q(f"{T}/7", ("include", "assignee")), "task 7 with its assignee")
    for tid in ("2", "8", "12"):
        read(rec, f"{T}/{tid}", f"task {tid}")
    read(rec, f"{P}/4", "project 4")
    read(rec, f"{H}/2", "person 2 (Kofi)")
    read(rec, f"{P}/3/tasks", "project 3's tasks")
    read(rec, f"{H}/4/tasks", "Marco's tasks")
    read(rec, f"{T}/9/project", "task 9's project (a to-one related route)")
    read(rec, f"{T}/6/relationships/assignee", "task 6's assignee relationship: nobody, `data: null`")
    read(rec, f"{T}/7/relationships/project", "task 7's project relationship")
    read(rec, f"{H}/2/relationships/tasks", "Kofi's tasks relationship")

    rec.section("Errors")
    read(rec, f"{T}/42", "a task that does not exist: 404", expect=404)
    read(rec, f"{P}/7", "a project that does not exist: 404", expect=404)
    read(rec, f"{H}/99", "a person who does not exist: 404", expect=404)
    read(rec, q(T, ("filter[weight]", "1")), "a filter on another field the tasks lack: 400", expect=400)
    read(rec, "/invoices", "a type the app does not have: 404", expect=404)

    rec.section("Items the build read, asked otherwise")
    read(rec, q(f"{T}/1", ("fields[tasks]", "title,status")), "task 1, only title and status")
    read(rec, q(f"{T}/4", ("include", "assignee")), "task 4 with its assignee")
    read(rec, q(f"{P}/2", ("include", "tasks")), "project 2 with its tasks")


def scenario_probe_reads(rec: Recorder) -> None:
    probe_filters(rec)
    probe_sorts_pages(rec)
    probe_items(rec)


# ---------------------------------------------------------------- probe-crud
def probe_crud_tasks(rec: Recorder) -> None:
    rec.section("A task created, changed, moved")
    r = create(rec, T, "tasks", {"title": "Test the sprinklers", "status": "todo", "priority": 1, "estimate": 5},
               "create a task in project 2 for Ines", task_in(2, 1))
    tid = r.json()["data"]["id"]
    read(rec, f"{T}/{tid}", "read it")
    read(rec, q(T, ("filter[project]", "2")), "project 2's tasks: four")
    read(rec, q(T, ("filter[assignee]", "1")), "Ines's tasks: listed")
    read(rec, f"{P}/2", "project 2's `tasks` identifiers list it")
    read(rec, f"{H}/1", "Ines's `tasks` identifiers list it")
    read(rec, f"{P}/2/tasks", "project 2's related route")
    update(rec, T, "tasks", tid, {"title": "Test the misters", "priority": 2, "due-date": "2026-12-30"},
           "PATCH title, priority and a due date written short (answered as a full timestamp)")
    read(rec, f"{T}/{tid}", "read it")
    read(rec, q(T, ("filter[priority]", "2"), ("sort", "title")), "priority 2 by title: listed")
    send(rec, "PATCH", f"{T}/{tid}/relationships/project", "PATCH the to-one relationship: move it to project 4",
         rel("projects", 4), 204)
    read(rec, f"{T}/{tid}", "read it: project 4")
    read(rec, f"{P}/4", "project 4's identifiers list it")
    read(rec, f"{P}/2", "project 2's no longer do")
    read(rec, q(T, ("filter[project]", "4")), "project 4's tasks: listed")

    rec.section("Seeded tasks changed and deleted")
    update(rec, T, "tasks", "6", {"status": "done"}, "task 6 done")
    read(rec, f"{T}/6", "read it")
    read(rec, q(T, ("filter[status]", "done")), "done tasks: 1, 5, 6, 11")
    delete(rec, f"{T}/5", "delete task 5")
    read(rec, f"{T}/5", "it is gone: 404", expect=404)
    read(rec, f"{P}/2", "project 2's identifiers: task 5 is gone")
    read(rec, q(T, ("filter[assignee]", "2")), "Kofi's tasks: 11 only")
    r = read(rec, q(T, ("sort", "title"), ("page[limit]", "4")), "tasks by title, 4 a page, after the writes")
    follow(rec, r, "tasks by title, 4 a page")


def probe_crud_people(rec: Recorder) -> None:
    rec.section("A person created, given a task, deleted")
    r = create(rec, H, "people", {"name": "Oskar Lind", "role": "manager", "email": "oskar@example.test"},
               "create a person")
    pid = r.json()["data"]["id"]
    read(rec, f"{H}/{pid}", "read them")
    send(rec, "PATCH", f"{T}/9/relationships/assignee", "task 9 passes from Ines to them (the relationship route)",
         rel("people", pid), 204)
    read(rec, f"{H}/{pid}/tasks", "their tasks: task 9")
    read(rec, q(T, ("filter[assignee]", pid)), "tasks assigned to them: task 9")
    read(rec, f"{H}/1", "Ines's identifiers: task 9 is gone")
    delete(rec, f"{H}/{pid}", "delete them")
    read(rec, f"{T}/9", "task 9: nobody assigned")
    read(rec, f"{H}/{pid}", "they are gone: 404", expect=404)
    read(rec, q(H), "people: four")


def probe_crud_projects(rec: Recorder) -> None:
    rec.section("A project created, a task in it, the project deleted")
    r = create(rec, P, "projects", {"name": "Water Tower", "code": "WTR", "budget": 55}, "create a project")
    pid = r.json()["data"]["id"]
    r = create(rec, T, "tasks", {"title": "Seal the tank", "estimate": 8}, "a task in it, for Lena", task_in(pid, 3))
    t1 = r.json()["data"]["id"]
    read(rec, f"{P}/{pid}", "the project lists the task")
    read(rec, q(T, ("filter[project]", pid)), "the new project's tasks: the task")
    read(rec, f"{H}/3", "Lena's identifiers list it")
    delete(rec, f"{P}/{pid}", "delete the project")
    read(rec, f"{T}/{t1}", "the task remains, its project null")
    read(rec, q(T, ("filter[project][exists]", "false")), "tasks in no project: 11, 12 and the task")
    read(rec, q(P), "projects: four")

    rec.section("To-many relationships written from the parent")
    send(rec, "POST", f"{P}/1/relationships/tasks", "add task 12 to project 1's tasks", rels("tasks", 12), 204)
    read(rec, f"{T}/12", "task 12: project 1")
    read(rec, f"{P}/1", "project 1 lists task 12")
    send(rec, "DELETE", f"{P}/1/relationships/tasks", "remove task 1 from project 1's tasks", rels("tasks", 1), 204)
    read(rec, f"{T}/1", "task 1: no project")
    read(rec, q(T, ("filter[project]", "1")), "project 1's tasks: 2, 3, 12")

    rec.section("Refusals")
    create(rec, H, "people", {"name": "Lena Again", "role": "engineer", "email": "lena@example.test"},
           "an email that exists: 409", expect=409)
    create(rec, P, "projects", {"name": "Glasshouse Again", "code": "GLS"}, "a code that exists: 409", expect=409)
    create(rec, H, "tasks", {"name": "Rae"}, "a type that is not the collection's: 409", expect=409)
    create(rec, T, "tasks", {"estimate": 2}, "a task without a title: 400", expect=400)
    update(rec, T, "tasks", "2", {"status": "paused"}, "a status that is not a choice: 400", expect=400)
    update(rec, T, "tasks", "42", {"status": "done"}, "PATCH a task that does not exist: 404", expect=404)
    delete(rec, f"{H}/42", "DELETE a person who does not exist: 404", expect=404)

    rec.section("Tasks the build read by id, changed and deleted")
    update(rec, T, "tasks", "4", {"status": "done"}, "task 4 done, nobody assigned", {"assignee": rel("people", None)})
    read(rec, f"{T}/4", "read it")
    read(rec, f"{H}/3", "Lena's identifiers: task 4 is gone")
    delete(rec, f"{T}/3", "delete task 3")
    read(rec, f"{T}/3", "it is gone: 404", expect=404)
    read(rec, f"{P}/1", "project 1's identifiers: 2 and 12")


def scenario_probe_crud(rec: Recorder) -> None:
    probe_crud_tasks(rec)
    probe_crud_people(rec)
    probe_crud_projects(rec)


SCENARIOS = [("build", scenario_build), ("probe-reads", scenario_probe_reads), ("probe-crud", scenario_probe_crud)]


def command(run: Path) -> list:
    return ["node", HERE / "app.js", str(APP_PORT)]


def main() -> None:
    import readme

    spec = AppSpec(
        name="fortune", here=HERE, dist="", app_port=APP_PORT, proxy_port=PROXY_PORT, command=command,
        scenarios=SCENARIOS, render_readme=readme.render, headers={"Accept": JSONAPI}, ready_path=P,
        stop_signal=signal.SIGINT, settle=0.3, env={"PATH": "/usr/local/bin:/usr/bin:/bin"},
        version=lambda: npm_version(HERE, "fortune"),
    )
    record_app(spec)


if __name__ == "__main__":
    main()
