"""Record HAR captures of a project tracker served by flask-rest-jsonapi-next (Flask, SQLAlchemy, SQLite).

Run through record.sh (it makes the venvs). For each capture `run/tracker.db` is removed, `seed.py`
(the app's own Python) creates the tables and the seed rows, and `app.py` serves the tracker with
the stdlib's wsgiref on 127.0.0.1. Query strings are written as a JSON:API client writes them,
brackets unencoded (`filter[status]=todo`); a value with a space or a JSON filter is
percent-encoded. Pages are followed through the server's own `links.next`, an absolute URL it
spells percent-encoded (`page%5Bsize%5D=5`). Writes send `application/vnd.api+json`.
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

from appdriver import AppSpec, record_app  # noqa: E402
from harlib import Recorder  # noqa: E402
from jsonapi_client import JSONAPI, create, follow, read, rel, rels, resource, send, sqlite_app  # noqa: E402

APP_PORT = 18855
PROXY_PORT = 18955
DB = "tracker.db"
prepare, command = sqlite_app(HERE, DB, APP_PORT)
P, H, T = "/projects", "/people", "/tasks"


# ---------------------------------------------------------------- helpers
def q(path: str, *pairs: tuple) -> str:
    """`path?k=v&…` with the names' brackets as written and the values percent-encoded
    (`,` kept: it separates the values of one filter and of a sort)."""
    if not pairs:
        return path
    return path + "?" + "&".join(f"{k}={quote(str(v), safe=',-')}" for k, v in pairs)


def jf(*conditions: dict) -> tuple:
    """The package's JSON filter parameter (`filter=[{"name", "op", "val"}]`)."""
    return ("filter", json.dumps(list(conditions), separators=(",", ":")))


def update(rec: Recorder, coll: str, typ: str, id_: str, attrs: dict, why: str, relationships: dict | None = None,
           expect: int = 200) -> httpx.Response:
    return send(rec, "PATCH", f"{coll}/{id_}", why, resource(typ, attrs, relationships, id_), expect)


def delete(rec: Recorder, path: str, why: str, expect: int = 200) -> httpx.Response:
    return rec.call("DELETE", path, why, expect=expect)


def task_in(project, assignee=None) -> dict:
    out = {"project": rel("project", project)}
    if assignee is not None:
        out["assignee"] = rel("person", assignee)
    return out


# ---------------------------------------------------------------- build
def build_lists(rec: Recorder) -> None:
    rec.section("Collections")
    read(rec, P, "all projects")
    read(rec, H, "all people")
    read(rec, T, "all tasks (the default page of 30)")

    rec.section("Filters, sorts, sparse fields")
    read(rec, q(T, ("filter[status]", "todo")), "tasks whose status is todo")
    read(rec, q(T, ("filter[status]", "done,doing")), "status done or doing (a comma list is `in`)")
    read(rec, q(T, ("filter[assignee.id]", "3")), "Chen's tasks (the assignee's id, through the relationship)")
    read(rec, q(T, ("filter[project.id]", "1")), "the tasks of project 1")
    read(rec, q(T, ("filter[assignee.id]", "1"), ("filter[status]", "todo")), "Amara's todo tasks (two filters)")
    read(rec, q(T, ("filter[project.code]", "ORC")), "by the project's code (a related attribute)")
    read(rec, q(T, ("filter[assignee.name]", "Dana Ruiz")), "by the assignee's name (a related attribute)")
    read(rec, q(T, ("filter[priority]", "1")), "priority 1")
    read(rec, q(T, jf({"name": "estimate", "op": "ge", "val": 5})), "estimate 5 or more (the JSON filter, `ge`)")
    read(rec, q(T, jf({"name": "title", "op": "ilike", "val": "%the%"})), "titles holding `the`, any case (`ilike`)")
    read(rec, q(H, ("filter[role]", "engineer")), "the engineers")
    read(rec, q(P, ("filter[code]", "LHT")), "a project by code")
    read(rec, q(T, ("sort", "-priority,title")), "tasks by priority descending, then title")
    read(rec, q(T, ("sort", "estimate,id")), "tasks by estimate, then id")
    read(rec, q(H, ("sort", "-name")), "people by name descending")
    read(rec, q(T, ("sort", "project.name,title")), "tasks by their project's name, then title")
    read(rec, q(T, ("filter[project.id]", "2"), ("sort", "-assignee.name")), "project 2's tasks by assignee name, descending")
    read(rec, q(T, ("fields[task]", "title,status")), "only title and status (`fields[task]`)")

    rec.section("Pages (`page[size]`, `page[number]`, `links`)")
    r = read(rec, q(T, ("sort", "title"), ("page[size]", "5")), "tasks by title, 5 a page: page 1")
    follow(rec, r, "tasks by title, 5 a page")
    r = read(rec, q(T, ("filter[status]", "todo"), ("page[size]", "2")), "todo tasks, 2 a page: page 1")
    follow(rec, r, "todo tasks, 2 a page")


def build_items(rec: Recorder) -> None:
    rec.section("Included resources, related routes and relationships")
    read(rec, q(T, ("include", "assignee"), ("filter[status]", "doing")), "doing tasks with their assignees")
    read(rec, q(T, ("include", "project,assignee"), ("page[size]", "3")), "3 tasks with projects and assignees")
    read(rec, q(f"{P}/1", ("include", "tasks")), "project 1 with its tasks")
    read(rec, f"{T}/1", "task 1")
    read(rec, f"{T}/5", "task 5")
    read(rec, f"{T}/3", "task 3 (nobody assigned: `data: null`)")
    read(rec, f"{P}/2", "project 2 (its tasks' identifiers)")
    read(rec, f"{H}/3", "person 3 (Chen)")
    read(rec, f"{P}/2/tasks", "project 2's tasks (the related route)")
    read(rec, f"{H}/1/tasks", "Amara's tasks (the related route)")
    read(rec, f"{T}/5/relationships/assignee", "task 5's assignee relationship (identifiers only)")
    read(rec, f"{P}/2/relationships/tasks", "project 2's tasks relationship")
    read(rec, f"{T}/99", "a task that does not exist: 404", expect=404)
    read(rec, f"{H}/42", "a person who does not exist: 404", expect=404)
    read(rec, q(T, ("filter[colour]", "red")), "a filter on a field the tasks lack: 400", expect=400)
    read(rec, q(T, ("sort", "colour")), "a sort on a field the tasks lack: 400", expect=400)


def build_task_writes(rec: Recorder) -> None:
    rec.section("Create a task, change it, move it, read it back")
    r = create(rec, T, "task", {"title": "Inspect the cables", "status": "todo", "priority": 2, "estimate": 3},
               "create a task in project 1 for Bruno; answers 201 with the generated id", task_in(1, 2))
    tid = r.json()["data"]["id"]
    read(rec, f"{T}/{tid}", "read it")
    read(rec, q(T, ("filter[project.id]", "1")), "project 1's tasks: the new one is listed")
    read(rec, f"{P}/1", "project 1's `tasks` identifiers list it")
    read(rec, f"{P}/1/tasks", "project 1's related route lists it too")
    update(rec, T, "task", tid, {"priority": 1, "estimate": 5}, "PATCH priority and estimate")
    read(rec, f"{T}/{tid}", "read it: priority 1, estimate 5")
    read(rec, q(T, ("filter[priority]", "1")), "priority 1: the new one is listed")
    send(rec, "PATCH", f"{T}/{tid}/relationships/project", "PATCH the to-one relationship: move it to project 3",
         rel("project", 3), 200)
    read(rec, f"{T}/{tid}", "read it: project 3")
    read(rec, f"{P}/3", "project 3's `tasks` identifiers list it")
    read(rec, f"{P}/1", "project 1's no longer do")
    read(rec, q(T, ("filter[project.code]", "LHT")), "tasks of the project coded LHT: listed")
    send(rec, "PATCH", f"{T}/2/relationships/assignee", "PATCH a set to-one relationship: task 2 passes to Chen",
         rel("person", 3), 200)
    read(rec, f"{H}/3/tasks", "Chen's tasks list task 2")
    read(rec, q(T, ("filter[assignee.name]", "Chen Wei")), "tasks by the assignee's name: task 2 listed")


def build_person_writes(rec: Recorder) -> None:
    rec.section("A person: create, assign a task, delete (the task's assignee is cleared)")
    r = create(rec, H, "person", {"name": "Eli Novak", "role": "engineer", "email": "eli@example.test"},
               "create person Eli")
    pid = r.json()["data"]["id"]
    read(rec, f"{H}/{pid}", "read Eli")
    update(rec, H, "person", pid, {"role": "designer"}, "change the role")
    read(rec, q(H, ("filter[role]", "designer")), "the designers: Eli listed")
    update(rec, T, "task", "10", {"status": "doing"}, "give task 10 to Eli (a relationship in the PATCH body)",
           {"assignee": rel("person", pid)})
    read(rec, q(T, ("filter[assignee.id]", pid)), "Eli's tasks: task 10")
    read(rec, f"{H}/{pid}", "Eli's `tasks` identifiers list task 10")
    delete(rec, f"{H}/{pid}", "delete Eli")
    read(rec, f"{T}/10", "task 10: the assignee is null again")
    read(rec, f"{H}/{pid}", "Eli is gone: 404", expect=404)
    read(rec, q(H, ("sort", "-name")), "people: Eli is gone")


def build_project_writes(rec: Recorder) -> None:
    rec.section("A project: create, tasks in it, delete one, delete the project (its task's project is cleared)")
    r = create(rec, P, "project", {"name": "Dockyard", "code": "DCK", "budget": 30}, "create project Dockyard")
    pid = r.json()["data"]["id"]
    r = create(rec, T, "task", {"title": "Measure the berths"}, "a task in it (status, priority, estimate default)",
               task_in(pid))
    t1 = r.json()["data"]["id"]
    r = create(rec, T, "task", {"title": "Hire a crane", "priority": 1}, "a second task in it, for Dana",
               task_in(pid, 4))
    t2 = r.json()["data"]["id"]
    read(rec, f"{P}/{pid}", "the project lists both tasks")
    delete(rec, f"{T}/{t1}", "delete the first task")
    read(rec, f"{T}/{t1}", "it is gone: 404", expect=404)
    read(rec, f"{P}/{pid}", "the project lists one task")
    delete(rec, f"{P}/{pid}", "delete the project while a task names it")
    read(rec, f"{T}/{t2}", "the task remains, its project null")
    read(rec, q(P, ("sort", "name")), "projects by name: four again")

    rec.section("A to-many relationship written from the parent")
    send(rec, "POST", f"{P}/4/relationships/tasks", "add task 11 to project 4's tasks", rels("task", 11), 200)
    read(rec, f"{T}/11", "task 11: project 4")
    read(rec, q(T, ("filter[project.id]", "4")), "project 4's tasks: 9, 10, 11")
    send(rec, "DELETE", f"{P}/4/relationships/tasks", "remove task 11 from them again", rels("task", 11), 200)
    read(rec, f"{T}/11", "task 11: no project")


def build_refusals(rec: Recorder) -> None:
    rec.section("Refusals")
    create(rec, H, "person", {"name": "Amara Again", "role": "engineer", "email": "amara@example.test"},
           "an email that exists (unique): 422", expect=422)
    create(rec, T, "project", {"title": "Wrong type"}, "a type that is not the collection's: 409", expect=409)
    create(rec, T, "task", {"priority": 3}, "a task without a title: 422", task_in(1), expect=422)
    create(rec, T, "task", {"title": "Burnt", "status": "burned"}, "a status that is not a choice: 422", expect=422)
    send(rec, "PATCH", f"{T}/3", "a PATCH without the id in the body: 400",
         {"data": {"type": "task", "attributes": {"status": "done"}}}, 400)
    update(rec, T, "task", "99", {"status": "done"}, "PATCH a task that does not exist: 404", expect=404)
    delete(rec, f"{T}/99", "DELETE a task that does not exist: 404", expect=404)
    r = read(rec, q(T, ("sort", "-id"), ("page[size]", "5")), "the newest tasks, 5 a page")
    follow(rec, r, "the newest tasks, 5 a page")


def scenario_build(rec: Recorder) -> None:
    build_lists(rec)
    build_items(rec)
    build_task_writes(rec)
    build_person_writes(rec)
    build_project_writes(rec)
    build_refusals(rec)


# ---------------------------------------------------------------- probe-reads
def probe_lists(rec: Recorder) -> None:
    rec.section("Other filter values")
    read(rec, q(T, ("filter[status]", "doing")), "status doing")
    read(rec, q(T, ("filter[status]", "todo,done")), "status todo or done")
    read(rec, q(T, ("filter[assignee.id]", "4")), "Dana's tasks")
    read(rec, q(T, ("filter[project.id]", "3")), "project 3's tasks")
    read(rec, q(T, ("filter[assignee.id]", "2"), ("filter[status]", "done")), "Bruno's done tasks")
    read(rec, q(T, ("filter[project.code]", "QRY")), "tasks of the project coded QRY")
    read(rec, q(T, ("filter[assignee.name]", "Amara Osei")), "by another assignee's name")
    read(rec, q(T, ("filter[project.name]", "Lighthouse")), "by the project's name (another related attribute)")
    read(rec, q(T, ("filter[assignee.role]", "engineer")), "tasks of engineers (the assignee's role)")
    read(rec, q(T, ("filter[priority]", "3"), ("filter[status]", "todo")), "priority 3 and todo")
    read(rec, q(T, ("filter[title]", "Drill test cores")), "a title (exact)")
    read(rec, q(T, ("filter[estimate]", "8")), "estimate 8")
    read(rec, q(T, jf({"name": "priority", "op": "le", "val": 2})), "priority 2 or less (JSON filter, `le`)")
    read(rec, q(T, jf({"name": "title", "op": "ilike", "val": "%LOG%"})), "titles holding `LOG`, any case")
    read(rec, q(H, ("filter[role]", "designer")), "the designers")
    read(rec, q(H, ("filter[role]", "intern")), "a role nobody has: empty")
    read(rec, q(P, ("filter[code]", "HRB")), "a project by code")
    read(rec, q(H, ("filter[email]", "chen@example.test")), "a person by email")

    rec.section("Other sorts and fields")
    read(rec, q(T, ("sort", "-estimate,title")), "by estimate descending, then title")
    read(rec, q(T, ("sort", "status,-priority,id")), "by status, then priority descending, then id")
    read(rec, q(T, ("sort", "title")), "by title")
    read(rec, q(H, ("sort", "email")), "people by email")
    read(rec, q(P, ("sort", "-budget")), "projects by budget descending")
    read(rec, q(T, ("sort", "-project.name,title")), "by project name descending, then title")
    read(rec, q(T, ("sort", "assignee.name,title")), "by assignee name (nobody assigned first), then title")
    read(rec, q(T, ("sort", "project.code,-priority,id")), "by project code, then priority descending, then id")
    read(rec, q(T, ("fields[task]", "title,priority")), "only title and priority")
    read(rec, q(H, ("fields[person]", "name")), "people: only the name")
    read(rec, q(T, ("filter[status]", "todo"), ("sort", "-priority,title"), ("fields[task]", "title")),
         "todo tasks by priority, titles only")

    rec.section("Other pages")
    read(rec, q(T, ("page[number]", "2"), ("page[size]", "4")), "page 2 of 4 a page (asked directly)")
    r = read(rec, q(T, ("page[size]", "3")), "3 a page: page 1")
    follow(rec, r, "3 a page")
    r = read(rec, q(T, ("filter[status]", "todo"), ("sort", "-priority,title"), ("page[size]", "2")),
             "todo tasks by priority, 2 a page: page 1")
    follow(rec, r, "todo tasks by priority, 2 a page")
    read(rec, q(H, ("sort", "name"), ("page[size]", "2")), "people by name, 2 a page")
    read(rec, q(T, ("page[number]", "9"), ("page[size]", "4")), "a page past the end")


def probe_items(rec: Recorder) -> None:
    rec.section("Other includes, items, related routes and relationships")
    read(rec, q(T, ("include", "assignee"), ("filter[assignee.id]", "3")), "Chen's tasks with the assignee")
    read(rec, q(T, ("include", "project"), ("sort", "title"), ("page[size]", "3")), "3 tasks by title with projects")
    read(rec, q(f"{P}/3", ("include", "tasks")), "project 3 with its tasks")
    read(rec, q(f"{T}/7", ("include", "assignee")), "task 7 with its assignee")
    for tid in ("2", "8", "12"):
        read(rec, f"{T}/{tid}", f"task {tid}")
    read(rec, f"{P}/4", "project 4")
    read(rec, f"{H}/2", "person 2 (Bruno)")
    read(rec, f"{P}/3/tasks", "project 3's tasks")
    read(rec, f"{H}/4/tasks", "Dana's tasks")
    read(rec, f"{T}/10/relationships/assignee", "task 10's assignee relationship: nobody, `data: null`")
    read(rec, f"{T}/7/relationships/project", "task 7's project relationship")
    read(rec, f"{H}/2/relationships/tasks", "Bruno's tasks relationship")

    rec.section("Errors")
    read(rec, f"{T}/42", "a task that does not exist: 404", expect=404)
    read(rec, f"{P}/7", "a project that does not exist: 404", expect=404)
    read(rec, f"{H}/99", "a person who does not exist: 404", expect=404)
    read(rec, q(T, ("filter[weight]", "1")), "a filter on another field the tasks lack: 400", expect=400)
    read(rec, q(T, ("sort", "-weight")), "a sort on another field the tasks lack: 400", expect=400)

    rec.section("Items the build read, asked otherwise")
    read(rec, q(f"{T}/1", ("fields[task]", "title,status")), "task 1, only title and status")
    read(rec, q(f"{T}/5", ("include", "assignee")), "task 5 with its assignee")
    read(rec, q(f"{P}/2", ("include", "tasks")), "project 2 with its tasks")


def scenario_probe_reads(rec: Recorder) -> None:
    probe_lists(rec)
    probe_items(rec)


# ---------------------------------------------------------------- probe-crud
def probe_crud_tasks(rec: Recorder) -> None:
    rec.section("A task created, changed, moved")
    r = create(rec, T, "task", {"title": "Test offline mode", "status": "todo", "priority": 1, "estimate": 5},
               "create a task in project 2 for Amara", task_in(2, 1))
    tid = r.json()["data"]["id"]
    read(rec, f"{T}/{tid}", "read it")
    read(rec, q(T, ("filter[project.id]", "2")), "project 2's tasks: four")
    read(rec, q(T, ("filter[assignee.id]", "1")), "Amara's tasks: listed")
    read(rec, f"{P}/2", "project 2's `tasks` identifiers list it")
    read(rec, f"{H}/1", "Amara's `tasks` identifiers list it")
    read(rec, f"{P}/2/tasks", "project 2's related route")
    update(rec, T, "task", tid, {"title": "Test offline sync", "priority": 2}, "PATCH title and priority")
    read(rec, f"{T}/{tid}", "read it")
    read(rec, q(T, ("filter[priority]", "2"), ("sort", "title")), "priority 2 by title: listed")
    send(rec, "PATCH", f"{T}/{tid}/relationships/project", "PATCH the to-one relationship: move it to project 4",
         rel("project", 4), 200)
    read(rec, f"{T}/{tid}", "read it: project 4")
    read(rec, f"{P}/4", "project 4's identifiers list it")
    read(rec, f"{P}/2", "project 2's no longer do")
    read(rec, q(T, ("filter[project.code]", "QRY")), "tasks of the project coded QRY: listed")

    rec.section("Seeded tasks changed and deleted")
    update(rec, T, "task", "6", {"status": "done"}, "task 6 done")
    read(rec, f"{T}/6", "read it")
    read(rec, q(T, ("filter[status]", "done")), "done tasks: 1, 4, 6, 11")
    delete(rec, f"{T}/4", "delete task 4")
    read(rec, f"{T}/4", "it is gone: 404", expect=404)
    read(rec, f"{P}/2", "project 2's identifiers: task 4 is gone")
    read(rec, q(T, ("filter[assignee.id]", "2")), "Bruno's tasks: 12 only")
    r = read(rec, q(T, ("sort", "title"), ("page[size]", "4")), "tasks by title, 4 a page, after the writes")
    follow(rec, r, "tasks by title, 4 a page")


def probe_crud_people(rec: Recorder) -> None:
    rec.section("A person created, given a task, deleted")
    r = create(rec, H, "person", {"name": "Farah Said", "role": "manager", "email": "farah@example.test"},
               "create a person")
    pid = r.json()["data"]["id"]
    read(rec, f"{H}/{pid}", "read them")
    send(rec, "PATCH", f"{T}/9/relationships/assignee", "task 9 passes from Amara to them (the relationship route)",
         rel("person", pid), 200)
    read(rec, f"{H}/{pid}/tasks", "their tasks: task 9")
    read(rec, q(T, ("filter[assignee.id]", pid)), "tasks assigned to them: task 9")
    read(rec, q(T, ("filter[assignee.name]", "Farah Said")), "tasks by their name: task 9")
    read(rec, f"{H}/1", "Amara's identifiers: task 9 is gone")
    delete(rec, f"{H}/{pid}", "delete them")
    read(rec, f"{T}/9", "task 9: nobody assigned")
    read(rec, f"{H}/{pid}", "they are gone: 404", expect=404)
    read(rec, q(H), "people: four")


def probe_crud_projects(rec: Recorder) -> None:
    rec.section("A project created, a task in it, the project deleted")
    r = create(rec, P, "project", {"name": "Canal Locks", "code": "CNL", "budget": 75}, "create a project")
    pid = r.json()["data"]["id"]
    r = create(rec, T, "task", {"title": "Seal the gates", "estimate": 8}, "a task in it, for Chen", task_in(pid, 3))
    t1 = r.json()["data"]["id"]
    read(rec, f"{P}/{pid}", "the project lists the task")
    read(rec, q(T, ("filter[project.code]", "CNL")), "tasks of the project coded CNL: the task")
    delete(rec, f"{P}/{pid}", "delete the project")
    read(rec, f"{T}/{t1}", "the task remains, its project null")
    read(rec, q(T, ("filter[project.code]", "CNL")), "tasks of the project coded CNL: none")
    read(rec, q(P), "projects: four")

    rec.section("To-many relationships written from the parent")
    send(rec, "POST", f"{P}/1/relationships/tasks", "add task 12 to project 1's tasks", rels("task", 12), 200)
    read(rec, f"{T}/12", "task 12: project 1")
    read(rec, f"{P}/1", "project 1 lists task 12")
    send(rec, "DELETE", f"{P}/1/relationships/tasks", "remove task 1 from project 1's tasks", rels("task", 1), 200)
    read(rec, f"{T}/1", "task 1: no project")
    read(rec, q(T, ("filter[project.id]", "1")), "project 1's tasks: 2, 3, 12")

    rec.section("Refusals")
    create(rec, H, "person", {"name": "Chen Again", "role": "engineer", "email": "chen@example.test"},
           "an email that exists: 422", expect=422)
    create(rec, P, "project", {"name": "Harbour Again", "code": "HRB"}, "a code that exists: 422", expect=422)
    create(rec, H, "task", {"name": "Rae"}, "a type that is not the collection's: 409", expect=409)
    update(rec, T, "task", "42", {"status": "done"}, "PATCH a task that does not exist: 404", expect=404)
    delete(rec, f"{H}/42", "DELETE a person who does not exist: 404", expect=404)

    rec.section("Tasks the build read by id, changed and deleted")
    update(rec, T, "task", "5", {"status": "done"}, "task 5 done, nobody assigned", {"assignee": rel("person", None)})
    read(rec, f"{T}/5", "read it")
    read(rec, f"{H}/3", "Chen's identifiers: task 5 is gone")
    delete(rec, f"{T}/3", "delete task 3")
    read(rec, f"{T}/3", "it is gone: 404", expect=404)
    read(rec, f"{P}/1", "project 1's identifiers: 2 and 12")


def scenario_probe_crud(rec: Recorder) -> None:
    probe_crud_tasks(rec)
    probe_crud_people(rec)
    probe_crud_projects(rec)


SCENARIOS = [("build", scenario_build), ("probe-reads", scenario_probe_reads), ("probe-crud", scenario_probe_crud)]


def main() -> None:
    import readme

    spec = AppSpec(
        name="flask-rest-jsonapi-next", here=HERE, dist="flask-rest-jsonapi-next", app_port=APP_PORT,
        proxy_port=PROXY_PORT, command=command, scenarios=SCENARIOS, render_readme=readme.render,
        prepare=prepare, headers={"Accept": JSONAPI}, ready_path=P, stop_signal=signal.SIGINT, settle=0.3,
        env={"PATH": "/usr/bin:/bin", "PYTHONHASHSEED": "0"},
    )
    record_app(spec)


if __name__ == "__main__":
    main()
