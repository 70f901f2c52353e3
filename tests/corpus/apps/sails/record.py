"""Record HAR captures of a project tracker served by Sails.js 1.x blueprints (REST routes over the
sails-disk adapter kept in memory); the app is `app.js` and `api/models/*.js` in this folder.

Run through record.sh (it installs the pinned npm packages and the recorder venv). For each
capture `app.js` starts fresh on 127.0.0.1 and creates the seed of `seed.json` (explicit ids and
timestamps, so every start holds the same records and later creates draw the same next ids), the
scenario runs through the kit's mitmdump proxy, and both are stopped by PID. Query strings are
written as the Sails documentation writes them: equality as a plain parameter (`status=todo`),
the whole criteria as JSON (`where={"priority":{">":2}}`, percent-encoded whole), `sort=title DESC`
or `sort=[{"title":"DESC"}]`, `limit`, `skip`, `select=title,status`, `omit=…`, `populate=…`.
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

APP_PORT = 18866
PROXY_PORT = 18966
SEED = json.loads((HERE / "seed.json").read_text())
P, H, T = "/project", "/person", "/task"


# ---------------------------------------------------------------- helpers
def enc(v) -> str:
    """A value as a query string carries it: JSON for dicts and lists, percent-encoded."""
    text = json.dumps(v, separators=(",", ":")) if isinstance(v, (dict, list)) else str(v)
    return quote(text, safe="-:.,")


def q(path: str, *pairs: tuple) -> str:
    """`path?k=v&…` with the names as written and the values percent-encoded (JSON when structured)."""
    if not pairs:
        return path
    return path + "?" + "&".join(f"{k}={enc(v)}" for k, v in pairs)


def w(path: str, where: dict, *pairs: tuple) -> str:
    """`path?where=<JSON>&…`: the whole criteria as JSON."""
    return q(path, ("where", where), *pairs)


def read(rec: Recorder, path: str, why: str, expect: int = 200) -> httpx.Response:
    return rec.call("GET", path, why, expect=expect)


def send(rec: Recorder, method: str, path: str, why: str, body, expect: int = 200) -> httpx.Response:
    return rec.call(method, path, why, expect=expect, content=json.dumps(body),
                    headers={"Content-Type": "application/json"}, display=f"{path} {json.dumps(body)}")


def bare(rec: Recorder, method: str, path: str, why: str, expect: int = 200) -> httpx.Response:
    return rec.call(method, path, why, expect=expect)


def pages(rec: Recorder, path: str, pairs: tuple, limit: int, what: str) -> None:
    """Page through `path` `limit` at a time by `skip` until a page comes back short."""
    skip = 0
    while True:
        r = read(rec, q(path, *pairs, ("limit", limit), ("skip", skip)), f"{what}: skip {skip}")
        skip += limit
        if len(r.json()) < limit:
            return


# ---------------------------------------------------------------- build
def build_lists(rec: Recorder) -> None:
    rec.section("Collections (plain arrays in the store's order, associations populated)")
    read(rec, P, "all projects, each with its `tasks`")
    read(rec, H, "all people")
    read(rec, T, "all 14 tasks, each with its `project` and `assignee` records")

    rec.section("Equality parameters and the `where` criteria as JSON")
    read(rec, q(T, ("status", "todo")), "tasks whose status is todo")
    read(rec, q(T, ("project", 1)), "the tasks of project 1")
    read(rec, q(T, ("assignee", 3)), "Lena's tasks")
    read(rec, q(T, ("status", "todo"), ("project", 2)), "project 2's todo tasks (two fields)")
    read(rec, w(T, {"status": "doing"}), "`where` equality: doing tasks")
    read(rec, w(T, {"status": {"in": ["doing", "done"]}}), "status doing or done (`in`)")
    read(rec, w(T, {"project": {"nin": [1, 2]}}), "tasks of neither project 1 nor 2 (`nin`)")
    read(rec, w(T, {"priority": {"<": 2}}), "priority below 2 (`<`)")
    read(rec, w(T, {"priority": {"<=": 2}}), "priority 2 or less (`<=`)")
    read(rec, w(T, {"priority": {">": 2}}), "priority above 2 (`>`)")
    read(rec, w(T, {"priority": {">=": 2}, "status": "todo"}), "todo tasks of priority 2 or more")
    read(rec, w(T, {"dueDate": {">=": "2026-12-05"}}), "due on 5 December or later (strings compare)")
    read(rec, w(T, {"status": {"!=": "done"}}), "tasks not done (`!=`)")
    read(rec, w(T, {"title": {"contains": "wall"}}), "titles containing `wall` (`contains`)")
    read(rec, w(T, {"title": {"startsWith": "Order"}}), "titles starting `Order` (`startsWith`)")
    read(rec, w(T, {"title": {"endsWith": "bell"}}), "titles ending `bell` (`endsWith`)")
    read(rec, w(T, {"or": [{"status": "doing"}, {"priority": 1}]}), "doing or priority 1 (`or`)")
    read(rec, q(H, ("role", "engineer")), "the engineers")
    read(rec, q(P, ("code", "SGB")), "a project by code")
    read(rec, q(P, ("active", "false")), "inactive projects (a boolean)")
    read(rec, w(P, {"budget": {">": 50}}), "projects with a budget above 50")


def build_shapes(rec: Recorder) -> None:
    rec.section("Sorts, `select`, `omit`, `populate`")
    read(rec, q(T, ("sort", "priority ASC")), "tasks by priority (ties in the store's order)")
    read(rec, q(T, ("sort", "title DESC")), "tasks by title descending")
    read(rec, q(T, ("sort", [{"priority": "DESC"}, {"title": "ASC"}])), "by priority descending, then title (JSON)")
    read(rec, q(T, ("sort", "dueDate ASC")), "by due date (no date first)")
    read(rec, q(H, ("sort", "name DESC")), "people by name descending")
    read(rec, q(P, ("sort", "budget DESC")), "projects by budget descending")
    read(rec, q(T, ("select", "title,status")), "only title and status (and the id)")
    read(rec, q(H, ("select", "name")), "people: only the name")
    read(rec, q(T, ("omit", "createdAt,updatedAt"), ("populate", "false")), "no clocks, associations as ids")
    read(rec, q(T, ("populate", "false")), "tasks with associations as ids")
    read(rec, q(T, ("populate", "project")), "tasks with only the project populated")
    read(rec, q(P, ("populate", "false")), "projects without their tasks")
    read(rec, w(T, {"status": "doing"}, ("sort", "title ASC"), ("select", "title")),
         "doing tasks by title, titles only")


def build_pages(rec: Recorder) -> None:
    rec.section("Pages (`limit`, `skip`; no envelope, no links)")
    pages(rec, T, (), 5, "tasks 5 a page")
    pages(rec, T, (("status", "todo"),), 3, "todo tasks 3 a page")
    read(rec, q(T, ("sort", "title ASC"), ("limit", 4), ("skip", 4)), "by title, the second page of 4")
    read(rec, q(P, ("limit", 2), ("skip", 1)), "projects: 2 from the second")
    read(rec, q(H, ("limit", 2)), "people 2 a page")


def build_items(rec: Recorder) -> None:
    rec.section("Items, association routes and errors")
    read(rec, f"{T}/1", "task 1 (its project and assignee populated)")
    read(rec, f"{T}/4", "task 4")
    read(rec, f"{T}/3", "task 3 (nobody assigned, no due date: `null`)")
    read(rec, f"{P}/2", "project 2 with its tasks")
    read(rec, f"{H}/3", "person 3 (Lena)")
    read(rec, q(f"{T}/5", ("select", "title")), "task 5, only its title")
    read(rec, f"{P}/1/tasks", "project 1's tasks (the association route)")
    read(rec, f"{P}/3/tasks", "project 3's tasks")
    read(rec, f"{T}/2/project", "task 2's project (the association route of a model association)")
    read(rec, f"{T}/99", "a task that does not exist: 404", expect=404)
    read(rec, f"{H}/42", "a person who does not exist: 404", expect=404)
    read(rec, f"{P}/9", "a project that does not exist: 404", expect=404)
    read(rec, "/invoice", "a route the app does not have: 404", expect=404)


def build_task_writes(rec: Recorder) -> None:
    rec.section("Create a task, PATCH it, PUT it, delete it (writes answer the record)")
    r = send(rec, "POST", T, "create a task in project 1 for Kofi: the created record with the next id",
             {"title": "Check the tide tables", "status": "todo", "priority": 1, "project": 1, "assignee": 2,
              "dueDate": "2026-12-12"})
    tid = r.json()["id"]
    read(rec, f"{T}/{tid}", "read it")
    read(rec, q(T, ("project", 1)), "project 1's tasks: the new one is listed")
    read(rec, q(T, ("assignee", 2)), "Kofi's tasks: one more")
    send(rec, "PATCH", f"{T}/{tid}", "PATCH the priority: the updated record", {"priority": 3})
    read(rec, f"{T}/{tid}", "read it: priority 3")
    read(rec, w(T, {"priority": 3}), "priority 3: listed")
    send(rec, "PUT", f"{T}/{tid}", "PUT (an update too): project 3, nobody assigned",
         {"title": "Check the tide charts", "status": "doing", "project": 3, "assignee": None})
    read(rec, f"{T}/{tid}", "read it: project 3, no assignee, the due date kept")
    read(rec, f"{P}/3/tasks", "project 3's tasks: listed")
    read(rec, q(T, ("project", 1)), "project 1's: no longer")
    send(rec, "PATCH", f"{T}/2", "a seeded task done", {"status": "done"})
    read(rec, f"{T}/2", "read it")
    read(rec, q(T, ("status", "done")), "done tasks: 1, 2, 7, 11, 13")
    bare(rec, "DELETE", f"{T}/{tid}", "DELETE it: the deleted record")
    read(rec, f"{T}/{tid}", "it is gone: 404", expect=404)
    read(rec, f"{P}/3/tasks", "project 3's tasks without it")


def build_assoc_writes(rec: Recorder) -> None:
    rec.section("Association writes: add to, remove from and replace a project's `tasks`")
    bare(rec, "PUT", f"{P}/2/tasks/8", "add task 8 to project 2: the project with its tasks")
    read(rec, f"{T}/8", "task 8 names project 2")
    read(rec, q(T, ("project", 3)), "project 3's tasks: 8 gone")
    bare(rec, "DELETE", f"{P}/2/tasks/6", "remove task 6 from project 2: the project with its tasks")
    read(rec, f"{T}/6", "task 6 names no project")
    read(rec, f"{P}/2/tasks", "project 2's tasks")
    send(rec, "PUT", f"{P}/4/tasks", "replace project 4's tasks by 9, 10, 6: the project with its tasks",
         [9, 10, 6])
    read(rec, f"{P}/4/tasks", "project 4's tasks: 6, 9, 10")
    read(rec, f"{T}/11", "task 11 names no project")
    read(rec, f"{T}/6", "task 6 names project 4")


def build_other_writes(rec: Recorder) -> None:
    rec.section("A person and a project: create, patch, delete")
    r = send(rec, "POST", H, "create person Noor", {"name": "Noor Haddad", "role": "engineer",
                                                    "email": "noor@example.test"})
    pid = r.json()["id"]
    read(rec, f"{H}/{pid}", "read Noor")
    send(rec, "PATCH", f"{H}/{pid}", "change the role", {"role": "designer"})
    read(rec, q(H, ("role", "designer")), "the designers: Noor listed")
    bare(rec, "DELETE", f"{H}/{pid}", "delete Noor")
    read(rec, f"{H}/{pid}", "Noor is gone: 404", expect=404)
    read(rec, q(H, ("sort", "name ASC")), "people: five again")
    r = send(rec, "POST", P, "create project Boathouse", {"name": "Boathouse", "code": "BTH", "budget": 25})
    prj = r.json()["id"]
    read(rec, P, "projects: five")
    send(rec, "POST", T, "a task in it (status and priority default)", {"title": "Measure the moorings", "project": prj})
    read(rec, f"{P}/{prj}/tasks", "the new project's tasks")
    send(rec, "PATCH", f"{P}/{prj}", "raise its budget", {"budget": 90})
    read(rec, w(P, {"budget": {">": 50}}), "projects with a budget above 50: listed")
    bare(rec, "DELETE", f"{P}/{prj}", "delete the project (its task keeps the id)")
    read(rec, P, "projects: four again")


def build_refusals(rec: Recorder) -> None:
    rec.section("Refusals")
    send(rec, "POST", T, "a task without a title: 400", {"priority": 3}, 400)
    send(rec, "POST", H, "a person without a name: 400", {"role": "engineer"}, 400)
    send(rec, "PATCH", f"{T}/99", "PATCH a task that does not exist: 404", {"status": "done"}, 404)
    bare(rec, "DELETE", f"{T}/99", "DELETE a task that does not exist: 404", expect=404)
    read(rec, q(T, ("sort", [{"priority": "ASC"}, {"title": "DESC"}]), ("limit", 5)), "tasks by priority, 5 a page")


def scenario_build(rec: Recorder) -> None:
    build_lists(rec)
    build_shapes(rec)
    build_pages(rec)
    build_items(rec)
    build_task_writes(rec)
    build_assoc_writes(rec)
    build_other_writes(rec)
    build_refusals(rec)


# ---------------------------------------------------------------- probe-reads
def probe_filters(rec: Recorder) -> None:
    rec.section("Other values, fields, operators and combinations")
    read(rec, q(T, ("status", "doing")), "status doing")
    read(rec, q(T, ("project", 3)), "project 3's tasks")
    read(rec, q(T, ("assignee", 5)), "Aiko's tasks")
    read(rec, q(T, ("assignee", 1), ("status", "todo")), "Ines's todo tasks")
    read(rec, w(T, {"priority": 3}), "`where` equality on a number")
    read(rec, w(T, {"status": {"in": ["todo"]}}), "`in` with one value")
    read(rec, w(T, {"project": {"in": [3, 4]}}), "project 3 or 4 (`in` on ids)")
    read(rec, w(T, {"status": {"nin": ["todo", "doing"]}}), "status neither todo nor doing")
    read(rec, w(T, {"priority": {">": 1}}), "priority above 1")
    read(rec, w(T, {"priority": {">=": 3}}), "priority 3 or more")
    read(rec, w(T, {"priority": {"<": 3}, "status": "doing"}), "doing tasks of priority below 3")
    read(rec, w(T, {"priority": {"<=": 1}}), "priority 1 or less")
    read(rec, w(T, {"dueDate": {"<": "2026-12-01"}}), "due before 1 December")
    read(rec, w(T, {"project": {"!=": 1}}), "tasks outside project 1")
    read(rec, w(T, {"title": {"contains": "the"}}), "titles containing `the`")
    read(rec, w(T, {"title": {"startsWith": "Paint"}}), "titles starting `Paint`")
    read(rec, w(T, {"title": {"endsWith": "bolts"}}), "titles ending `bolts`")
    read(rec, w(T, {"or": [{"project": 3}, {"assignee": 2}]}), "project 3 or Kofi's")
    read(rec, w(T, {"status": "todo", "or": [{"priority": 1}, {"dueDate": {">=": "2026-12-15"}}]}),
         "todo and (priority 1 or due from 15 December)")
    read(rec, q(T, ("title", "Grease the winch")), "a title (exact)")
    read(rec, q(H, ("role", "designer")), "the designers")
    read(rec, q(H, ("role", "intern")), "a role nobody has: empty")
    read(rec, q(H, ("email", "marco@example.test")), "a person by email")
    read(rec, q(P, ("active", "true")), "active projects")
    read(rec, w(P, {"budget": {"<=": 60}}), "projects with a budget of 60 or less")
    read(rec, q(P, ("name", "Ferry Ramp")), "a project by name")


def probe_shapes(rec: Recorder) -> None:
    rec.section("Other sorts, selections, populations and pages")
    read(rec, q(T, ("sort", "priority DESC")), "by priority descending")
    read(rec, q(T, ("sort", "title ASC")), "by title")
    read(rec, q(T, ("sort", [{"status": "ASC"}, {"priority": "DESC"}])), "by status, then priority (JSON)")
    read(rec, q(H, ("sort", "email ASC")), "people by email")
    read(rec, q(P, ("sort", "name ASC")), "projects by name")
    read(rec, q(T, ("select", "title,priority")), "only title and priority")
    read(rec, q(P, ("select", "code")), "projects: only the code")
    read(rec, q(H, ("omit", "email")), "people without the email")
    read(rec, q(T, ("populate", "assignee")), "tasks with only the assignee populated")
    read(rec, q(H, ("populate", "false")), "people (no associations)")
    read(rec, w(T, {"project": 2}, ("sort", "priority DESC"), ("select", "title")),
         "project 2 by priority, titles only")
    read(rec, w(T, {"status": {"in": ["todo", "doing"]}}, ("limit", 4)), "todo or doing, 4 of them")
    read(rec, q(T, ("limit", 4), ("skip", 8)), "the third page of 4 (asked directly)")
    pages(rec, T, (("sort", "title DESC"),), 6, "by title descending, 6 a page")
    pages(rec, T, (("where", {"project": {"in": [1, 2]}}), ("sort", "priority ASC")), 3,
          "projects 1 and 2 by priority, 3 a page")
    read(rec, q(T, ("skip", 40)), "a page past the end: empty")
    read(rec, q(H, ("sort", "name ASC"), ("limit", 2), ("skip", 2)), "people by name, the second page of 2")
    read(rec, q(P, ("limit", 3)), "projects: the first 3")


def probe_items(rec: Recorder) -> None:
    rec.section("Other items, association routes and errors")
    for tid in ("2", "8", "12", "14"):
        read(rec, f"{T}/{tid}", f"task {tid}")
    read(rec, f"{P}/4", "project 4")
    read(rec, f"{H}/2", "person 2 (Kofi)")
    read(rec, q(f"{T}/1", ("select", "status")), "task 1, only its status")
    read(rec, f"{P}/2/tasks", "project 2's tasks")
    read(rec, f"{P}/4/tasks", "project 4's tasks")
    read(rec, f"{T}/7/assignee", "task 7's assignee")
    read(rec, f"{T}/42", "a task that does not exist: 404", expect=404)
    read(rec, f"{P}/7", "a project that does not exist: 404", expect=404)
    read(rec, f"{H}/99", "a person who does not exist: 404", expect=404)
    read(rec, "/invoice", "a route the app does not have: 404", expect=404)


def scenario_probe_reads(rec: Recorder) -> None:
    probe_filters(rec)
    probe_shapes(rec)
    probe_items(rec)


# ---------------------------------------------------------------- probe-crud
def probe_crud_tasks(rec: Recorder) -> None:
    rec.section("A task created, patched, put; seeded tasks changed and deleted")
    r = send(rec, "POST", T, "create a task in project 2 for Ines",
             {"title": "Test the sprinklers", "status": "doing", "priority": 2, "project": 2, "assignee": 1})
    tid = r.json()["id"]
    read(rec, f"{T}/{tid}", "read it")
    read(rec, q(T, ("project", 2)), "project 2's tasks: listed")
    read(rec, q(T, ("assignee", 1), ("status", "doing")), "Ines's doing tasks: listed")
    send(rec, "PATCH", f"{T}/{tid}", "PATCH title and a due date", {"title": "Test the misters",
                                                                     "dueDate": "2026-12-30"})
    read(rec, f"{T}/{tid}", "read it")
    read(rec, w(T, {"dueDate": {">": "2026-12-20"}}), "due after 20 December: listed")
    send(rec, "PUT", f"{T}/{tid}", "PUT moves it to project 4 for Aiko",
         {"status": "todo", "priority": 1, "project": 4, "assignee": 5})
    read(rec, f"{T}/{tid}", "read it")
    read(rec, q(T, ("project", 4), ("sort", "priority ASC")), "project 4's tasks by priority")
    read(rec, q(T, ("assignee", 5)), "Aiko's tasks: listed")
    send(rec, "PATCH", f"{T}/6", "task 6 done", {"status": "done"})
    read(rec, f"{T}/6", "read it")
    read(rec, q(T, ("status", "done")), "done tasks")
    bare(rec, "DELETE", f"{T}/5", "delete task 5")
    read(rec, f"{T}/5", "it is gone: 404", expect=404)
    read(rec, f"{P}/2/tasks", "project 2's tasks without it")
    pages(rec, T, (("sort", "title ASC"),), 4, "tasks by title, 4 a page, after the writes")


def probe_crud_assoc(rec: Recorder) -> None:
    rec.section("Other association writes")
    bare(rec, "PUT", f"{P}/1/tasks/14", "add task 14 to project 1")
    read(rec, f"{P}/1/tasks", "project 1's tasks: 14 listed")
    read(rec, q(T, ("project", 3)), "project 3's tasks: 14 gone")
    bare(rec, "DELETE", f"{P}/1/tasks/3", "remove task 3 from project 1")
    read(rec, f"{T}/3", "task 3 names no project")
    read(rec, w(T, {"project": 1}), "project 1's tasks")
    send(rec, "PUT", f"{P}/3/tasks", "replace project 3's tasks by 7 and 3", [7, 3])
    read(rec, f"{P}/3/tasks", "project 3's tasks: 3, 7")
    read(rec, f"{T}/8", "task 8 names no project")


def probe_crud_others(rec: Recorder) -> None:
    rec.section("A person and a project")
    r = send(rec, "POST", H, "create a person", {"name": "Oskar Lind", "role": "manager",
                                                 "email": "oskar@example.test"})
    pid = r.json()["id"]
    read(rec, f"{H}/{pid}", "read them")
    read(rec, q(H, ("role", "manager")), "the managers: listed")
    send(rec, "PATCH", f"{H}/{pid}", "a new email", {"email": "oskar.lind@example.test"})
    read(rec, f"{H}/{pid}", "read them")
    bare(rec, "DELETE", f"{H}/{pid}", "delete them")
    read(rec, f"{H}/{pid}", "they are gone: 404", expect=404)
    read(rec, H, "people: five")
    r = send(rec, "POST", P, "create a project", {"name": "Water Tower", "code": "WTR", "budget": 55, "active": False})
    prj = r.json()["id"]
    read(rec, f"{P}/{prj}", "read it")
    read(rec, q(P, ("active", "false")), "inactive projects: listed")
    send(rec, "PUT", f"{P}/{prj}", "update it by PUT", {"budget": 70, "active": True})
    read(rec, w(P, {"budget": {">=": 70}}), "projects with a budget of 70 or more")
    bare(rec, "DELETE", f"{P}/{prj}", "delete it")
    read(rec, P, "projects: four")

    rec.section("Refusals")
    send(rec, "POST", T, "a task without a title: 400", {"status": "todo"}, 400)
    send(rec, "POST", P, "a project without a code: 400", {"name": "Nameless"}, 400)
    send(rec, "PATCH", f"{T}/42", "PATCH a task that does not exist: 404", {"status": "done"}, 404)
    bare(rec, "DELETE", f"{H}/42", "DELETE a person who does not exist: 404", expect=404)

    rec.section("Tasks the build read by id, changed and deleted")
    send(rec, "PATCH", f"{T}/4", "task 4 done, reassigned to Marco", {"status": "done", "assignee": 4})
    read(rec, f"{T}/4", "read it")
    read(rec, q(T, ("assignee", 4)), "Marco's tasks: listed")
    bare(rec, "DELETE", f"{T}/1", "delete task 1")
    read(rec, f"{T}/1", "it is gone: 404", expect=404)
    read(rec, T, "all tasks")


def scenario_probe_crud(rec: Recorder) -> None:
    probe_crud_tasks(rec)
    probe_crud_assoc(rec)
    probe_crud_others(rec)


SCENARIOS = [("build", scenario_build), ("probe-reads", scenario_probe_reads), ("probe-crud", scenario_probe_crud)]


def command(run: Path) -> list:
    return ["node", HERE / "app.js", str(APP_PORT)]


def main() -> None:
    import readme

    spec = AppSpec(
        name="sails", here=HERE, dist="", app_port=APP_PORT, proxy_port=PROXY_PORT, command=command,
        scenarios=SCENARIOS, render_readme=readme.render, headers={"Accept": "application/json"}, ready_path=P,
        stop_signal=signal.SIGINT, settle=0.3, env={"PATH": "/usr/local/bin:/usr/bin:/bin"},
        version=lambda: npm_version(HERE, "sails"),
    )
    record_app(spec)


if __name__ == "__main__":
    main()
