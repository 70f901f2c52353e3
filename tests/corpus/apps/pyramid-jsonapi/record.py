"""Record HAR captures of a project tracker served as JSON:API by pyramid-jsonapi; the app is
`app.py` in this folder, its seed `seed.py`.

Run through record.sh (it makes the app's venv from requirements.txt and the recorder's venv). For
each capture `app.py` starts fresh on 127.0.0.1 with a new SQLite file holding the seed, the
scenario runs through the kit's mitmdump proxy, and both are stopped by PID. Every call sends
`Accept: application/vnd.api+json`, writes `Content-Type: application/vnd.api+json`. Query strings
are written as a JSON:API client writes them, brackets unencoded (`page[limit]=5`,
`filter[status:eq]=todo`); values are percent-encoded. Pages are followed through the server's own
`links.next`, an absolute URL it spells with the brackets percent-encoded.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from urllib.parse import quote

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "kit"))

import httpx  # noqa: E402

from harlib import Recorder  # noqa: E402
from json_client import record_venv_app  # noqa: E402
from jsonapi_client import JSONAPI, create, follow, read, rel, rels, resource, send  # noqa: E402

APP_PORT = 18898
PROXY_PORT = 18998
VENV = Path(os.environ.get("REA_PYRAMID_JSONAPI_VENV", "/tmp/rea-pyramid-jsonapi-venv"))
P, H, T = "/api/projects", "/api/people", "/api/tasks"


# ---------------------------------------------------------------- helpers
def q(path: str, *pairs: tuple) -> str:
    """`path?k=v&…` with the names' brackets as written and the values percent-encoded
    (`,` kept: it separates the keys of a sort and the members of a field set)."""
    if not pairs:
        return path
    return path + "?" + "&".join(f"{k}={quote(str(v), safe=',-*')}" for k, v in pairs)


def f(field: str, op: str, val) -> tuple:
    """One filter: `filter[<field>:<op>]=<value>` (a dotted field crosses a relationship)."""
    return (f"filter[{field}:{op}]", val)


def rql(expr: str) -> tuple:
    """An RQL filter expression: `filter[*rql]=and(eq(status,todo),gt(priority,1))`."""
    return ("filter[*rql]", expr)


def update(rec: Recorder, coll: str, typ: str, id_, attrs: dict, why: str, relationships: dict | None = None,
           expect: int = 200) -> httpx.Response:
    """PATCH a resource (pyramid-jsonapi answers 200 with the resource)."""
    return send(rec, "PATCH", f"{coll}/{id_}", why, resource(typ, attrs, relationships, str(id_)), expect)


def delete(rec: Recorder, path: str, why: str, expect: int = 200) -> httpx.Response:
    return rec.call("DELETE", path, why, expect=expect)


def new_id(r: httpx.Response) -> str:
    """A create answers 201 with the resource, its generated id in `data.id`."""
    return r.json()["data"]["id"]


def task_in(project, assignee=None) -> dict:
    out = {"project": rel("projects", project)}
    if assignee is not None:
        out["assignee"] = rel("people", assignee)
    return out


# ---------------------------------------------------------------- build
def build_lists(rec: Recorder) -> None:
    rec.section("Collections and pages (`page[limit]`, 10 by default, `page[offset]`)")
    r = read(rec, T, "all tasks: the first page of 10")
    follow(rec, r, "all tasks")
    read(rec, P, "all projects")
    read(rec, H, "all people")
    r = read(rec, q(T, ("page[limit]", "5")), "tasks 5 a page: page 1")
    read(rec, q(T, ("page[limit]", "5"), ("page[offset]", "5")), "the next 5")
    r = read(rec, q(T, ("page[limit]", "5"), ("page[offset]", "10")), "from the 11th: the last 2")
    read(rec, q(P, ("page[limit]", "2"), ("page[offset]", "2")), "projects 3 and 4")
    r = read(rec, q(T, ("page[limit]", "4"), ("pj_include_count", "true")),
             "4 tasks with the total count (`pj_include_count`)")
    follow(rec, r, "4 tasks a page, counted")


def build_filters(rec: Recorder) -> None:
    rec.section("Filters (`filter[field:op]=value`, every one must hold; `filter[*rql]`)")
    read(rec, q(T, f("status", "eq", "todo")), "todo tasks (`eq`)")
    read(rec, q(T, f("status", "ne", "done")), "tasks not done (`ne`)")
    read(rec, q(T, f("priority", "lt", 2)), "priority below 2 (`lt`)")
    read(rec, q(T, f("priority", "ge", 2)), "priority 2 or more (`ge`)")
    read(rec, q(T, f("estimate", "le", 3)), "estimate 3 or less (`le`)")
    read(rec, q(T, f("title", "like", "*page*")), "titles holding `page` (`like`, `*` the wildcard)")
    read(rec, q(T, f("title", "ilike", "*THE*")), "titles holding `the`, any case (`ilike`)")
    read(rec, q(T, f("title", "startswith", "Write")), "titles starting `Write` (`startswith`)")
    read(rec, q(T, f("title", "contains", "the")), "titles holding `the` (`contains`)")
    read(rec, q(T, f("project_id", "eq", 2)), "project 2's tasks (the foreign key column)")
    read(rec, q(T, f("assignee_id", "eq", 3)), "Carol's tasks (the foreign key column)")
    read(rec, q(T, f("status", "eq", "doing"), f("priority", "eq", 1)), "doing tasks of priority 1 (two filters)")
    read(rec, q(T, f("project.code", "eq", "OPS")), "tasks of the project coded OPS (a related field)")
    read(rec, q(T, f("assignee.role", "eq", "engineer")), "tasks of engineers")
    read(rec, q(T, rql("or(eq(status,done),eq(priority,3))")), "done or priority 3 (RQL `or`)")
    read(rec, q(T, rql("in(status,(todo,doing))")), "todo or doing (RQL `in`)")
    read(rec, q(T, f("status", "eq", "blocked")), "a status no task has: no rows")
    read(rec, q(H, f("role", "eq", "engineer")), "the engineers")
    read(rec, q(P, f("status", "eq", "active")), "active projects")


def build_sorts_fields(rec: Recorder) -> None:
    rec.section("Sorts (`sort=-a,b`), sparse fieldsets (`fields[type]`), includes")
    read(rec, q(T, ("sort", "-title")), "tasks by title descending")
    read(rec, q(T, ("sort", "title")), "tasks by title")
    read(rec, q(T, ("sort", "-priority,title")), "by priority descending, then title")
    read(rec, q(T, ("sort", "estimate")), "by estimate (no estimate first)")
    read(rec, q(H, ("sort", "-name")), "people by name descending")
    read(rec, q(P, ("sort", "-budget")), "projects by budget descending")
    read(rec, q(T, ("sort", "project.name,title")), "by the project's name, then title")
    read(rec, q(T, ("fields[tasks]", "title,status")), "only title and status")
    read(rec, q(H, ("fields[people]", "name")), "people: only the name")
    read(rec, q(T, ("include", "project"), ("page[limit]", "3")), "3 tasks with their projects")
    read(rec, q(T, f("status", "eq", "doing"), ("include", "project,assignee")),
         "doing tasks with projects and assignees")
    read(rec, q(T, f("project_id", "eq", 3), ("include", "assignee,project")),
         "project 3's tasks with assignees and project")
    read(rec, q(f"{P}/1", ("include", "tasks")), "project 1 with its tasks")
    read(rec, q(f"{T}/5", ("include", "project,assignee")), "task 5 with its project and assignee")
    r = read(rec, q(T, f("status", "eq", "todo"), ("sort", "-priority,title"), ("fields[tasks]", "title,priority"),
                    ("page[limit]", "3")), "todo tasks by priority, titles and priorities, 3 a page")
    follow(rec, r, "todo tasks by priority, 3 a page")


def build_items(rec: Recorder) -> None:
    rec.section("Items, related resources and relationships")
    read(rec, f"{T}/1", "task 1")
    read(rec, f"{T}/6", "task 6 (nobody assigned: `data: null`)")
    read(rec, q(f"{T}/4", ("fields[tasks]", "title")), "task 4, only its title")
    read(rec, f"{P}/2", "project 2 (its tasks' identifiers)")
    read(rec, f"{H}/3", "person 3 (Carol)")
    read(rec, f"{H}/4", "person 4 (no email: `null`)")
    read(rec, f"{T}/99", "a task that does not exist: 404", expect=404)
    read(rec, f"{P}/9", "a project that does not exist: 404", expect=404)
    read(rec, f"{T}/1/project", "task 1's project (the related resource)")
    read(rec, f"{T}/1/assignee", "task 1's assignee")
    read(rec, f"{T}/6/assignee", "task 6's assignee: `data: null`")
    read(rec, f"{T}/1/relationships/project", "task 1's project relationship (the identifier)")
    read(rec, f"{T}/2/relationships/assignee", "task 2's assignee relationship")
    read(rec, f"{P}/2/tasks", "project 2's tasks (a to-many related route)")
    read(rec, f"{H}/3/tasks", "Carol's tasks")
    read(rec, f"{P}/2/relationships/tasks", "project 2's tasks relationship (identifiers)")
    read(rec, f"{T}/99/project", "the project of a task that does not exist: 400 (`No item 99 in tasks`)", expect=400)
    read(rec, q(T, f("colour", "eq", "red")), "a filter on a field tasks lack: 400", expect=400)
    read(rec, q(T, ("sort", "colour")), "a sort on a field tasks lack: 400", expect=400)
    read(rec, q(T, f("status", "is", "todo")), "an operator that does not exist: 400", expect=400)


def build_task_writes(rec: Recorder) -> None:
    rec.section("Create a task, change it, move it, delete it")
    r = create(rec, T, "tasks", {"title": "Compress the hero images", "priority": 1, "estimate": 3},
               "create a task in project 1 for Bob: 201 with the generated id", task_in(1, 2))
    tid = new_id(r)
    read(rec, f"{T}/{tid}", "read it")
    read(rec, q(T, f("project_id", "eq", 1)), "project 1's tasks: listed")
    update(rec, T, "tasks", tid, {"status": "doing", "priority": 2}, "start it: 200 with the resource")
    read(rec, q(T, f("status", "eq", "doing")), "doing tasks: listed")
    send(rec, "PATCH", f"{T}/{tid}/relationships/project", "move it to project 3 (the to-one relationship)",
         rel("projects", 3), 200)
    read(rec, f"{T}/{tid}/project", "its project: 3")
    read(rec, q(T, f("project_id", "eq", 3)), "project 3's tasks: listed")
    update(rec, T, "tasks", tid, {}, "unassign it (a relationship in the PATCH body)",
           {"assignee": rel("people", None)})
    read(rec, f"{T}/{tid}/relationships/assignee", "its assignee relationship: null")
    delete(rec, f"{T}/{tid}", "delete it: 200")
    read(rec, f"{T}/{tid}", "it is gone: 404", expect=404)
    read(rec, T, "tasks: 12 again")


def build_person_writes(rec: Recorder) -> None:
    rec.section("A person: create, change, assign a task, delete (the task's assignee is cleared)")
    r = create(rec, H, "people", {"name": "Hal Horvat", "email": "hal@example.test", "role": "designer"},
               "create person Hal")
    pid = new_id(r)
    read(rec, f"{H}/{pid}", "read Hal")
    update(rec, H, "people", pid, {"role": "manager"}, "Hal becomes a manager")
    read(rec, q(H, f("role", "eq", "manager")), "the managers: Hal listed")
    send(rec, "PATCH", f"{T}/12/relationships/assignee", "give task 12 to Hal", rel("people", pid), 200)
    read(rec, f"{H}/{pid}/tasks", "Hal's tasks: task 12")
    send(rec, "POST", f"{H}/{pid}/relationships/tasks", "add task 10 to Hal's tasks (a to-many relationship)",
         rels("tasks", 10), 200)
    read(rec, f"{T}/10/assignee", "task 10's assignee: Hal")
    delete(rec, f"{H}/{pid}", "delete Hal while assigned")
    read(rec, f"{T}/12", "task 12: nobody assigned again")
    read(rec, f"{H}/{pid}", "Hal is gone: 404", expect=404)


def build_project_writes(rec: Recorder) -> None:
    rec.section("A project with a task: its delete refused until the task is gone; a task moved")
    r = create(rec, P, "projects", {"code": "DOC", "name": "Documentation", "budget": 30}, "create project DOC")
    prj = new_id(r)
    r = create(rec, T, "tasks", {"title": "Write the style guide"}, "a task in it (status and priority default)",
               task_in(prj))
    ptid = new_id(r)
    read(rec, q(f"{P}/{prj}", ("include", "tasks")), "DOC with its task")
    delete(rec, f"{P}/{prj}", "delete DOC while a task names it: 424 (the task's project may not be null)", 424)
    delete(rec, f"{T}/{ptid}", "delete its task")
    delete(rec, f"{P}/{prj}", "delete DOC")
    read(rec, P, "projects: six again")
    send(rec, "POST", f"{P}/1/relationships/tasks", "add task 11 to project 1's tasks (moves it from project 4)",
         rels("tasks", 11), 200)
    read(rec, f"{T}/11/relationships/project", "task 11's project: 1")
    read(rec, q(T, f("project_id", "eq", 4)), "project 4's tasks: only 10 and 12")
    send(rec, "DELETE", f"{P}/2/relationships/tasks", "take task 6 out of project 2: 424 (a task needs a project)",
         rels("tasks", 6), 424)


def build_refusals(rec: Recorder) -> None:
    rec.section("Refusals")
    create(rec, T, "tasks", {"priority": 3}, "a task without a title or project: 409", expect=409)
    create(rec, T, "tasks", {"title": "Burnt", "status": "burned"}, "a status that is no choice: 409",
           task_in(1), expect=409)
    create(rec, P, "projects", {"code": "WEB", "name": "Another web"}, "a project code that exists: 409", expect=409)
    create(rec, T, "people", {"name": "Wrong type"}, "a type that is not the collection's: 409", expect=409)
    update(rec, T, "tasks", 2, {"status": "blocked"}, "a status that is no choice: 409", expect=409)
    update(rec, T, "tasks", 99, {"status": "done"}, "update a task that does not exist: 404", expect=404)
    delete(rec, f"{T}/99", "delete a task that does not exist: 404", expect=404)
    r = read(rec, q(T, ("sort", "-id"), ("page[limit]", "5")), "the newest tasks, 5 a page")
    follow(rec, r, "the newest tasks, 5 a page")


def scenario_build(rec: Recorder) -> None:
    build_lists(rec)
    build_filters(rec)
    build_sorts_fields(rec)
    build_items(rec)
    build_task_writes(rec)
    build_person_writes(rec)
    build_project_writes(rec)
    build_refusals(rec)


# ---------------------------------------------------------------- probe-reads
def probe_filters(rec: Recorder) -> None:
    rec.section("Other values, fields, operators and combinations")
    read(rec, q(T, f("status", "eq", "doing")), "doing tasks")
    read(rec, q(T, f("status", "eq", "done")), "done tasks")
    read(rec, q(T, f("priority", "eq", 3)), "priority 3")
    read(rec, q(T, f("estimate", "gt", 4)), "estimates above 4 (`gt`)")
    read(rec, q(T, f("estimate", "ge", 5)), "estimates of 5 or more")
    read(rec, q(T, f("priority", "le", 1)), "priority 1 or less")
    read(rec, q(T, f("title", "like", "*the*")), "titles holding `the` (`like`)")
    read(rec, q(T, f("title", "ilike", "fix*")), "titles starting `fix`, any case")
    read(rec, q(T, f("title", "endswith", "server")), "titles ending `server` (`endswith`)")
    read(rec, q(T, f("project_id", "eq", 4)), "project 4's tasks")
    read(rec, q(T, f("assignee_id", "eq", 6)), "Femi's tasks")
    read(rec, q(T, f("assignee_id", "ne", 3)), "tasks assigned to someone not Carol")
    read(rec, q(T, f("priority", "ne", 2), f("status", "ne", "done")), "priority not 2, not done")
    read(rec, q(T, f("project.status", "eq", "archived")), "tasks of archived projects")
    read(rec, q(T, f("assignee.name", "eq", "Carol Chen")), "tasks of the person named Carol Chen")
    read(rec, q(T, rql("or(eq(status,todo),gt(estimate,5))")), "todo or an estimate above 5 (RQL)")
    read(rec, q(H, f("name", "startswith", "A")), "people whose name starts `A`")
    read(rec, q(P, f("budget", "gt", 50)), "projects with a budget above 50")
    read(rec, q(P, f("code", "eq", "MOB")), "the project coded MOB")


def probe_sorts_pages(rec: Recorder) -> None:
    rec.section("Other sorts, pages, fields and includes")
    read(rec, q(T, ("sort", "-priority")), "by priority descending")
    read(rec, q(T, ("sort", "title")), "by title (the build sorted so too)")
    read(rec, q(T, ("sort", "-estimate,id")), "by estimate descending, then id")
    read(rec, q(H, ("sort", "email")), "people by email (no email first)")
    read(rec, q(P, ("sort", "code")), "projects by code")
    read(rec, q(T, f("status", "eq", "todo"), ("sort", "title")), "todo tasks by title")
    read(rec, q(T, ("page[limit]", "4"), ("page[offset]", "4")), "tasks 5 to 8")
    read(rec, q(T, ("page[limit]", "3"), ("page[offset]", "9")), "tasks 10 to 12")
    read(rec, q(T, ("page[limit]", "5"), ("page[offset]", "40")), "an offset past the end: no rows")
    read(rec, q(H, ("page[limit]", "3"), ("page[offset]", "6")), "people from the 7th")
    read(rec, q(T, ("fields[tasks]", "title,priority")), "only title and priority")
    read(rec, q(P, ("fields[projects]", "code,name")), "project codes and names")
    read(rec, q(T, f("project_id", "eq", 2), ("include", "assignee")), "project 2's tasks with their assignees")
    read(rec, q(T, f("priority", "eq", 1), ("include", "project,assignee")),
         "priority 1 tasks with projects and assignees")
    read(rec, q(f"{H}/1", ("include", "tasks")), "person 1 with their tasks")


def probe_items(rec: Recorder) -> None:
    rec.section("Other items, related resources, relationships, errors")
    for tid in (2, 7, 11, 12):
        read(rec, f"{T}/{tid}", f"task {tid}")
    read(rec, f"{T}/1", "task 1 (the build read it)")
    read(rec, f"{P}/3", "project 3")
    read(rec, f"{P}/5", "project 5 (no budget, no tasks)")
    read(rec, f"{H}/1", "person 1")
    read(rec, f"{H}/7", "person 7 (no tasks)")
    read(rec, f"{T}/42", "a task that does not exist: 404", expect=404)
    read(rec, f"{H}/99", "a person who does not exist: 404", expect=404)
    read(rec, f"{T}/9/project", "task 9's project")
    read(rec, f"{T}/12/assignee", "task 12's assignee: null")
    read(rec, f"{T}/3/relationships/assignee", "task 3's assignee relationship")
    read(rec, f"{T}/8/relationships/project", "task 8's project relationship")
    read(rec, f"{P}/4/tasks", "project 4's tasks")
    read(rec, f"{H}/6/tasks", "Femi's tasks")
    read(rec, f"{H}/1/relationships/tasks", "Alice's tasks relationship")
    read(rec, q(T, f("colour", "eq", "blue")), "a filter on a field tasks lack: 400", expect=400)


def scenario_probe_reads(rec: Recorder) -> None:
    probe_filters(rec)
    probe_sorts_pages(rec)
    probe_items(rec)


# ---------------------------------------------------------------- probe-crud
def probe_crud_tasks(rec: Recorder) -> None:
    rec.section("A task created and changed; seeded tasks changed and deleted")
    r = create(rec, T, "tasks", {"title": "Version the webhooks", "status": "doing", "priority": 3},
               "create a task in project 2 for Alice", task_in(2, 1))
    tid = new_id(r)
    read(rec, f"{T}/{tid}", "read it")
    read(rec, q(T, f("project_id", "eq", 2)), "project 2's tasks: listed")
    read(rec, f"{H}/1/tasks", "Alice's tasks: listed")
    update(rec, T, "tasks", tid, {"title": "Version the public webhooks", "estimate": 5}, "retitle it, an estimate")
    read(rec, f"{T}/{tid}", "read it")
    read(rec, q(T, f("estimate", "gt", 4), ("sort", "-estimate")), "estimates above 4, largest first: listed")
    send(rec, "PATCH", f"{T}/{tid}/relationships/project", "move it to project 4", rel("projects", 4), 200)
    read(rec, f"{T}/{tid}/relationships/project", "its project relationship: 4")
    update(rec, T, "tasks", tid, {}, "assign it to Femi", {"assignee": rel("people", 6)})
    read(rec, f"{T}/{tid}", "read it")
    read(rec, f"{P}/4/tasks", "project 4's tasks")
    update(rec, T, "tasks", 6, {"status": "done"}, "task 6 done")
    read(rec, f"{T}/6", "read it")
    read(rec, q(T, f("status", "eq", "done"), ("sort", "title")), "done tasks by title")
    delete(rec, f"{T}/5", "delete task 5")
    read(rec, f"{T}/5", "it is gone: 404", expect=404)
    read(rec, f"{P}/2/tasks", "project 2's tasks without it")


def probe_crud_people(rec: Recorder) -> None:
    rec.section("A person created, changed, assigned, deleted (the assignment cleared)")
    r = create(rec, H, "people", {"name": "Ines Ito", "role": "engineer"}, "create a person without an email")
    pid = new_id(r)
    read(rec, f"{H}/{pid}", "read them")
    read(rec, q(H, f("role", "eq", "engineer")), "the engineers: listed")
    update(rec, H, "people", pid, {"email": "ines@example.test"}, "an email")
    read(rec, f"{H}/{pid}", "read them")
    send(rec, "PATCH", f"{T}/10/relationships/assignee", "assign task 10 to them", rel("people", pid), 200)
    read(rec, f"{T}/10/assignee", "task 10's assignee: them")
    read(rec, q(T, f("assignee_id", "eq", int(pid))), "their tasks")
    send(rec, "POST", f"{H}/{pid}/relationships/tasks", "add task 3 to their tasks", rels("tasks", 3), 200)
    read(rec, f"{H}/{pid}/tasks", "their tasks: 3 and 10")
    delete(rec, f"{H}/{pid}", "delete them")
    read(rec, f"{T}/10", "task 10: nobody assigned")
    read(rec, f"{H}/{pid}", "they are gone: 404", expect=404)
    read(rec, H, "people: seven")


def probe_crud_projects(rec: Recorder) -> None:
    rec.section("A project created, changed, deleted; refusals; tasks the build read")
    r = create(rec, P, "projects", {"code": "LAB", "name": "Research lab", "status": "archived", "budget": 15},
               "create an archived project")
    prj = new_id(r)
    read(rec, f"{P}/{prj}", "read it")
    read(rec, q(P, f("status", "eq", "archived")), "archived projects: listed")
    update(rec, P, "projects", prj, {"status": "active", "budget": 95}, "reopen it with a larger budget")
    read(rec, q(P, f("budget", "gt", 90)), "budgets above 90: listed")
    delete(rec, f"{P}/{prj}", "delete it")
    read(rec, P, "projects: six")
    send(rec, "POST", f"{P}/2/relationships/tasks", "add task 12 to project 2's tasks", rels("tasks", 12), 200)
    read(rec, f"{T}/12/project", "task 12's project: 2")
    create(rec, H, "people", {"role": "engineer"}, "a person without a name: 409", expect=409)
    create(rec, P, "projects", {"code": "OPS", "name": "Ops again"}, "a project code that exists: 409", expect=409)
    update(rec, H, "people", 42, {"role": "lead"}, "update a person who does not exist: 404", expect=404)
    delete(rec, f"{P}/3", "delete a project tasks name: 424", 424)
    update(rec, T, "tasks", 4, {"status": "done"}, "task 4 done, reassigned to Carol", {"assignee": rel("people", 3)})
    read(rec, f"{T}/4", "read it")
    read(rec, f"{H}/3/tasks", "Carol's tasks: listed")
    delete(rec, f"{T}/1", "delete task 1")
    read(rec, f"{T}/1", "it is gone: 404", expect=404)
    read(rec, q(T, ("sort", "-id"), ("page[limit]", "5")), "newest first, 5 a page")


def scenario_probe_crud(rec: Recorder) -> None:
    probe_crud_tasks(rec)
    probe_crud_people(rec)
    probe_crud_projects(rec)


SCENARIOS = [("build", scenario_build), ("probe-reads", scenario_probe_reads), ("probe-crud", scenario_probe_crud)]


def main() -> None:
    import readme

    record_venv_app("pyramid-jsonapi", HERE, VENV, (APP_PORT, PROXY_PORT), P, SCENARIOS, readme.render,
                    "pyramid-jsonapi", extra_env={"PYTHONHASHSEED": "0"}, accept=JSONAPI)


if __name__ == "__main__":
    main()
