"""Record HAR captures of a JSON:API tracker served by safrs (Flask + SQLAlchemy + SQLite).

Run through record.sh (it makes the venvs). For each capture `run/tracker.db` is
removed, `seed.py` (the app's own Python) creates the tables and the seed rows,
and `app.py` serves the tracker with Werkzeug on 127.0.0.1. Query strings are
written as a JSON:API client writes them, brackets unencoded
(`filter[status]=todo`), the spelling of the server's own page links; a value
with a space is percent-encoded. Writes send `application/vnd.api+json`.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from urllib.parse import quote

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "kit"))

import httpx  # noqa: E402

from appdriver import AppSpec, record_app  # noqa: E402
from harlib import Recorder  # noqa: E402
from jsonapi_client import JSONAPI, read, send, sqlite_app  # noqa: E402

APP_PORT = 18851
PROXY_PORT = 18951
DB = "tracker.db"
A = "/api"
prepare, command = sqlite_app(HERE, DB, APP_PORT)


# ---------------------------------------------------------------- helpers
def q(path: str, *pairs: tuple) -> str:
    """`path?k=v&…` with the names' brackets as written and the values percent-encoded
    (`,` kept: it separates the values of one filter and of a sort)."""
    if not pairs:
        return path
    return path + "?" + "&".join(f"{k}={quote(str(v), safe=',-')}" for k, v in pairs)


def follow(rec: Recorder, r: httpx.Response, what: str) -> None:
    """Follow `links.next` of a paged collection to its last page."""
    page = 2
    while "next" in r.json().get("links", {}):
        r = read(rec, r.json()["links"]["next"], f"{what}: page {page} from `links.next`")
        page += 1


def create(rec: Recorder, coll: str, typ: str, attrs: dict, why: str, expect: int = 201) -> httpx.Response:
    return send(rec, "POST", f"{A}/{coll}", why, {"data": {"type": typ, "attributes": attrs}}, expect)


def update(rec: Recorder, coll: str, typ: str, id_: str, attrs: dict, why: str, expect: int = 200) -> httpx.Response:
    return send(rec, "PATCH", f"{A}/{coll}/{id_}", why,
                {"data": {"type": typ, "id": id_, "attributes": attrs}}, expect)


def delete(rec: Recorder, path: str, why: str, expect: int = 204) -> httpx.Response:
    return rec.call("DELETE", path, why, expect=expect)


T, P, U = f"{A}/tasks", f"{A}/projects", f"{A}/users"


# ---------------------------------------------------------------- build
def build_reads(rec: Recorder) -> None:
    rec.section("Collections")
    read(rec, U, "all users")
    read(rec, P, "all projects")
    read(rec, T, "all tasks (the default page of 250)")

    rec.section("Filters, sorts, sparse fields")
    read(rec, q(T, ("filter[status]", "todo")), "tasks whose status is todo")
    read(rec, q(T, ("filter[status]", "done,doing")), "status done or doing (a comma list is `IN`)")
    read(rec, q(T, ("filter[project_id]", "2")), "the tasks of project 2 (by its foreign key)")
    read(rec, q(T, ("filter[assignee_id]", "2"), ("filter[status]", "doing")), "bob's tasks in doing (two filters)")
    read(rec, q(T, ("filter[priority]", "1")), "priority 1")
    read(rec, q(P, ("filter[status]", "active")), "active projects")
    read(rec, q(U, ("filter[role]", "member")), "members")
    read(rec, q(T, ("sort", "-priority,title")), "tasks by priority descending, then title")
    read(rec, q(T, ("sort", "estimate")), "tasks by estimate")
    read(rec, q(U, ("sort", "-username")), "users by username descending")
    read(rec, q(T, ("fields[Task]", "title,status")), "only title and status (`fields[Task]`)")

    rec.section("Pages (`page[limit]`, `page[offset]`, `links`)")
    r = read(rec, q(T, ("sort", "title"), ("page[limit]", "4")), "tasks by title, 4 a page: page 1")
    follow(rec, r, "tasks by title, 4 a page")
    r = read(rec, q(T, ("filter[status]", "todo"), ("page[limit]", "2")), "todo tasks, 2 a page: page 1")
    follow(rec, r, "todo tasks, 2 a page")

    rec.section("Included resources and relationships")
    read(rec, q(T, ("include", "project"), ("filter[status]", "doing")), "doing tasks with their projects")
    read(rec, q(T, ("include", "assignee,project"), ("page[limit]", "3")),
         "3 tasks with their assignees and projects")
    read(rec, q(f"{P}/1", ("include", "tasks")), "project 1 with its tasks")
    read(rec, f"{T}/1", "task 1")
    read(rec, f"{T}/4", "task 4")
    read(rec, f"{P}/2", "project 2")
    read(rec, f"{U}/3", "user 3 (carol)")
    read(rec, f"{T}/4/project", "task 4's project (a to-one relationship)")
    read(rec, f"{T}/4/assignee", "task 4's assignee")
    read(rec, f"{P}/2/tasks", "project 2's tasks (a to-many relationship)")
    read(rec, f"{U}/2/tasks", "bob's tasks")
    read(rec, f"{T}/99", "a task that does not exist: 404", expect=404)
    read(rec, f"{U}/42", "a user that does not exist: 404", expect=404)


def build_writes(rec: Recorder) -> None:
    rec.section("Create a task, change it, read it back")
    r = create(rec, "tasks", "Task", {"title": "Publish the changelog", "status": "todo", "priority": 2,
                                      "estimate": 3, "project_id": 2, "assignee_id": 3},
               "create a task in project 2 for carol; answers 201 with the generated id")
    tid = r.json()["data"]["id"]
    read(rec, f"{T}/{tid}", "read it")
    read(rec, q(T, ("filter[project_id]", "2")), "project 2's tasks: the new one is listed")
    read(rec, f"{P}/2/tasks", "project 2's relationship lists it too")
    update(rec, "tasks", "Task", tid, {"status": "doing", "estimate": 5}, "PATCH status and estimate")
    read(rec, f"{T}/{tid}", "read it: doing, 5")
    read(rec, q(T, ("filter[status]", "doing")), "doing tasks: the new one is listed")
    send(rec, "PATCH", f"{T}/{tid}/assignee", "PATCH the to-one relationship: assign alice",
         {"data": {"type": "User", "id": "1"}}, 200)
    read(rec, f"{T}/{tid}", "read it: assignee_id 1")
    read(rec, f"{U}/1/tasks", "alice's tasks list it")

    rec.section("A project: create, update, a task in it, delete both")
    r = create(rec, "projects", "Project", {"code": "DOC", "name": "Documentation"}, "create project DOC")
    pid = r.json()["data"]["id"]
    read(rec, f"{P}/{pid}", "read it (status defaults to active)")
    update(rec, "projects", "Project", pid, {"status": "archived"}, "archive it")
    read(rec, q(P, ("filter[status]", "archived")), "archived projects: OPS and DOC")
    r = create(rec, "tasks", "Task", {"title": "Write the style guide", "project_id": int(pid)},
               "a task in DOC (status and priority default)")
    t2 = r.json()["data"]["id"]
    read(rec, f"{P}/{pid}/tasks", "DOC's tasks")
    delete(rec, f"{P}/{pid}", "delete DOC while a task names it: 409", expect=409)
    delete(rec, f"{T}/{t2}", "delete that task")
    read(rec, f"{T}/{t2}", "it is gone: 404", expect=404)
    read(rec, f"{P}/{pid}/tasks", "DOC has no tasks")
    delete(rec, f"{P}/{pid}", "delete DOC")
    read(rec, f"{P}/{pid}", "it is gone: 404", expect=404)
    read(rec, P, "projects: three again")

    rec.section("A user: create, assign, delete (the tasks' assignee_id is cleared)")
    r = create(rec, "users", "User", {"username": "erin", "full_name": "Erin Evans", "email": "erin@example.test"},
               "create user erin (role defaults to member)")
    uid = r.json()["data"]["id"]
    read(rec, f"{U}/{uid}", "read erin")
    update(rec, "tasks", "Task", "6", {"assignee_id": int(uid)}, "assign task 6 to erin")
    read(rec, q(T, ("filter[assignee_id]", uid)), "erin's tasks: task 6")
    delete(rec, f"{U}/{uid}", "delete erin")
    read(rec, f"{T}/6", "task 6: assignee_id is null again")
    read(rec, q(U, ("sort", "-username")), "users: erin is gone")

    rec.section("Refusals")
    create(rec, "projects", "Project", {"code": "WEB", "name": "Another web"}, "a project code that exists: 409",
           expect=409)
    create(rec, "tasks", "Project", {"title": "Wrong type"}, "a type that is not the collection's: 400", expect=400)
    send(rec, "PATCH", f"{T}/3", "a PATCH without the id in the body: 400",
         {"data": {"type": "Task", "attributes": {"status": "done"}}}, 400)
    update(rec, "tasks", "Task", "99", {"status": "done"}, "PATCH a task that does not exist: 404", expect=404)
    delete(rec, f"{T}/99", "DELETE a task that does not exist: 404", expect=404)
    r = read(rec, q(T, ("sort", "-id"), ("page[limit]", "5")), "the newest tasks, 5 a page")
    follow(rec, r, "the newest tasks, 5 a page")


def scenario_build(rec: Recorder) -> None:
    build_reads(rec)
    build_writes(rec)


# ---------------------------------------------------------------- probe-reads
def scenario_probe_reads(rec: Recorder) -> None:
    rec.section("Other filter values")
    read(rec, q(T, ("filter[status]", "doing")), "status doing")
    read(rec, q(T, ("filter[status]", "todo,done")), "status todo or done")
    read(rec, q(T, ("filter[project_id]", "3")), "project 3's tasks")
    read(rec, q(T, ("filter[project_id]", "1,3")), "projects 1 or 3")
    read(rec, q(T, ("filter[assignee_id]", "1")), "alice's tasks")
    read(rec, q(T, ("filter[priority]", "2"), ("filter[status]", "todo")), "priority 2 and todo")
    read(rec, q(T, ("filter[title]", "Rotate the TLS certificates")), "a title (exact)")
    read(rec, q(T, ("filter[status]", "blocked")), "a status no task has: empty")
    read(rec, q(P, ("filter[status]", "archived")), "archived projects")
    read(rec, q(U, ("filter[role]", "lead")), "leads")
    read(rec, q(U, ("filter[username]", "carol")), "username carol")

    rec.section("Other sorts and fields")
    read(rec, q(T, ("sort", "-estimate,title")), "by estimate descending, then title")
    read(rec, q(T, ("sort", "status,-priority")), "by status, then priority descending")
    read(rec, q(T, ("sort", "title")), "by title")
    read(rec, q(P, ("sort", "-code")), "projects by code descending")
    read(rec, q(U, ("sort", "full_name")), "users by full name")
    read(rec, q(T, ("fields[Task]", "title,priority")), "only title and priority")
    read(rec, q(P, ("fields[Project]", "code")), "projects: only code")
    read(rec, q(T, ("filter[status]", "todo"), ("sort", "-priority,title"), ("fields[Task]", "title")),
         "todo tasks by priority, titles only")

    rec.section("Other pages")
    read(rec, q(T, ("page[offset]", "4"), ("page[limit]", "2")), "offset 4, 2 a page (asked directly)")
    read(rec, q(T, ("page[offset]", "2"), ("page[limit]", "4")), "offset 2, 4 a page (not a page boundary)")
    r = read(rec, q(T, ("page[limit]", "5")), "5 a page: page 1")
    follow(rec, r, "5 a page")
    r = read(rec, q(T, ("filter[status]", "todo"), ("sort", "-priority,title"), ("page[limit]", "3")),
             "todo tasks by priority, 3 a page: page 1")
    follow(rec, r, "todo tasks by priority, 3 a page")
    read(rec, q(U, ("sort", "username"), ("page[limit]", "2")), "users by username, 2 a page")
    read(rec, q(T, ("page[offset]", "20"), ("page[limit]", "4")), "an offset past the end")

    rec.section("Other includes, items and relationships")
    read(rec, q(T, ("include", "project"), ("filter[project_id]", "3")), "project 3's tasks with the project")
    read(rec, q(T, ("include", "assignee"), ("sort", "title"), ("page[limit]", "3")),
         "3 tasks by title with their assignees")
    read(rec, q(f"{P}/3", ("include", "tasks")), "project 3 with its tasks")
    read(rec, q(f"{T}/2", ("include", "assignee")), "task 2 with its assignee")
    for tid in ("2", "5", "9"):
        read(rec, f"{T}/{tid}", f"task {tid}")
    read(rec, f"{P}/3", "project 3")
    read(rec, f"{U}/4", "user 4 (dan)")
    read(rec, f"{T}/9/project", "task 9's project")
    read(rec, f"{T}/6/assignee", "task 6's assignee: it has none, 404", expect=404)
    read(rec, f"{P}/3/tasks", "project 3's tasks")
    read(rec, f"{U}/1/tasks", "alice's tasks")

    rec.section("Errors")
    read(rec, f"{T}/42", "a task that does not exist: 404", expect=404)
    read(rec, f"{P}/7", "a project that does not exist: 404", expect=404)
    read(rec, f"{U}/99", "a user that does not exist: 404", expect=404)

    rec.section("Items the build read, asked otherwise")
    read(rec, q(f"{T}/1", ("fields[Task]", "title,status")), "task 1, only title and status")
    read(rec, f"{T}/4/", "task 4 by its `links.self` (the trailing slash)")
    read(rec, q(f"{P}/2", ("include", "tasks")), "project 2 with its tasks")


# ---------------------------------------------------------------- probe-crud
def probe_crud_tasks(rec: Recorder) -> None:
    rec.section("A task created, changed, moved")
    r = create(rec, "tasks", "Task", {"title": "Archive the old runbooks", "status": "todo", "priority": 3,
                                      "estimate": 2, "project_id": 3, "assignee_id": 4},
               "create a task in project 3 for dan")
    tid = r.json()["data"]["id"]
    read(rec, f"{T}/{tid}", "read it")
    read(rec, q(T, ("filter[project_id]", "3")), "project 3's tasks: four")
    read(rec, q(T, ("filter[assignee_id]", "4")), "dan's tasks: two")
    read(rec, f"{P}/3/tasks", "project 3's relationship")
    update(rec, "tasks", "Task", tid, {"title": "Archive the runbooks", "priority": 1}, "PATCH title and priority")
    read(rec, f"{T}/{tid}", "read it")
    read(rec, q(T, ("filter[priority]", "1"), ("sort", "title")), "priority 1 by title: listed")
    send(rec, "PATCH", f"{T}/{tid}/project", "PATCH the to-one relationship: move it to project 1",
         {"data": {"type": "Project", "id": "1"}}, 200)
    read(rec, f"{T}/{tid}", "read it: project_id 1")
    read(rec, f"{P}/1/tasks", "project 1's tasks: four")

    rec.section("Seeded tasks changed and deleted")
    update(rec, "tasks", "Task", "3", {"status": "done"}, "task 3 done")
    read(rec, f"{T}/3", "read it")
    read(rec, q(T, ("filter[status]", "done")), "done tasks: 1, 3, 7")
    delete(rec, f"{T}/7", "delete task 7")
    read(rec, f"{T}/7", "it is gone: 404", expect=404)
    read(rec, q(T, ("filter[project_id]", "3")), "project 3's tasks: 8 and 9")
    r = read(rec, q(T, ("sort", "title"), ("page[limit]", "4")), "tasks by title, 4 a page, after the writes")
    follow(rec, r, "tasks by title, 4 a page")


def probe_crud_others(rec: Recorder) -> None:
    rec.section("A project created, renamed, refused, deleted")
    r = create(rec, "projects", "Project", {"code": "QA", "name": "Quality"}, "create project QA")
    pid = r.json()["data"]["id"]
    read(rec, f"{P}/{pid}", "read it")
    update(rec, "projects", "Project", pid, {"name": "Quality assurance"}, "rename it")
    read(rec, q(P, ("sort", "code")), "projects by code")
    r = create(rec, "tasks", "Task", {"title": "Write the test plan", "project_id": int(pid), "assignee_id": 2},
               "a task in QA for bob")
    t2 = r.json()["data"]["id"]
    delete(rec, f"{P}/{pid}", "delete QA while a task names it: 409", expect=409)
    delete(rec, f"{T}/{t2}", "delete the task")
    delete(rec, f"{P}/{pid}", "delete QA")
    read(rec, P, "projects: three")
    read(rec, q(T, ("filter[assignee_id]", "2")), "bob's tasks: the QA task is gone")

    rec.section("A user created, assigned, deleted")
    r = create(rec, "users", "User", {"username": "frank", "full_name": "Frank Fischer", "role": "guest"},
               "create user frank")
    uid = r.json()["data"]["id"]
    read(rec, f"{U}/{uid}", "read frank")
    update(rec, "tasks", "Task", "2", {"assignee_id": int(uid)}, "assign task 2 to frank")
    read(rec, f"{U}/{uid}/tasks", "frank's tasks: task 2")
    read(rec, q(U, ("filter[role]", "guest")), "guests: dan and frank")
    delete(rec, f"{U}/{uid}", "delete frank")
    read(rec, f"{T}/2", "task 2: nobody assigned")
    read(rec, q(T, ("filter[assignee_id]", "4")), "dan's tasks: the new task only")

    rec.section("Refusals")
    create(rec, "users", "User", {"username": "alice", "full_name": "Alice Again"}, "a username that exists: 409",
           expect=409)
    create(rec, "tasks", "Task", {"status": "todo", "project_id": 1}, "a task without a title: 409", expect=409)
    create(rec, "users", "Task", {"username": "gina"}, "a type that is not the collection's: 400", expect=400)
    update(rec, "tasks", "Task", "42", {"status": "done"}, "PATCH a task that does not exist: 404", expect=404)
    delete(rec, f"{U}/42", "DELETE a user that does not exist: 404", expect=404)

    rec.section("Tasks the build read by id, changed and deleted")
    update(rec, "tasks", "Task", "4", {"status": "done", "estimate": 13}, "task 4 done, estimate 13")
    read(rec, f"{T}/4", "read it")
    update(rec, "tasks", "Task", "1", {"title": "Design the landing page again"}, "retitle task 1")
    read(rec, f"{T}/1", "read it")
    delete(rec, f"{T}/4", "delete task 4")
    read(rec, f"{T}/4", "it is gone: 404", expect=404)
    read(rec, f"{U}/3", "user 3 (carol), unchanged")


def scenario_probe_crud(rec: Recorder) -> None:
    probe_crud_tasks(rec)
    probe_crud_others(rec)


SCENARIOS = [("build", scenario_build), ("probe-reads", scenario_probe_reads), ("probe-crud", scenario_probe_crud)]


def main() -> None:
    import readme

    spec = AppSpec(
        name="safrs", here=HERE, dist="safrs", app_port=APP_PORT, proxy_port=PROXY_PORT, command=command,
        scenarios=SCENARIOS, render_readme=readme.render, prepare=prepare, headers={"Accept": JSONAPI},
        ready_path=f"{A}/projects", stop_signal=signal.SIGINT, settle=0.3,
        env={"PATH": "/usr/bin:/bin", "PYTHONHASHSEED": "0"},
    )
    record_app(spec)


if __name__ == "__main__":
    main()
