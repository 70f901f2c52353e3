"""Record HAR captures of a project tracker served by FeathersJS v5 (memory services) over its
Express REST transport; the app is `app.js` in this folder.

Run through record.sh (it installs the pinned npm packages and the recorder venv). For each
capture `app.js` starts fresh on 127.0.0.1 and loads the seed of `seed.json` (explicit ids, so
every start holds the same records and later creates draw the same next ids), the scenario runs
through the kit's mitmdump proxy, and both are stopped by PID. Query strings are written as the
Feathers documentation writes them, brackets and `$` unencoded (`priority[$lt]=2`,
`status[$in][]=doing`, `$sort[title]=1`, `$select[]=title`); a value with a space is
percent-encoded. Pages are asked with `$limit`/`$skip` (Feathers answers no links).
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

APP_PORT = 18863
PROXY_PORT = 18963
SEED = json.loads((HERE / "seed.json").read_text())
P, H, T = "/projects", "/people", "/tasks"


# ---------------------------------------------------------------- helpers
def q(path: str, *pairs: tuple) -> str:
    """`path?k=v&…` with the names as written and the values percent-encoded."""
    if not pairs:
        return path
    return path + "?" + "&".join(f"{k}={quote(str(v), safe='-:.')}" for k, v in pairs)


def read(rec: Recorder, path: str, why: str, expect: int = 200) -> httpx.Response:
    return rec.call("GET", path, why, expect=expect)


def send(rec: Recorder, method: str, path: str, why: str, body: dict, expect: int = 200) -> httpx.Response:
    return rec.call(method, path, why, expect=expect, content=json.dumps(body),
                    headers={"Content-Type": "application/json"}, display=f"{path} {json.dumps(body)}")


def delete(rec: Recorder, path: str, why: str, expect: int = 200) -> httpx.Response:
    return rec.call("DELETE", path, why, expect=expect)


def pages(rec: Recorder, path: str, pairs: tuple, limit: int, what: str) -> None:
    """Page through `path` `limit` at a time by `$skip` until the answer's `total` is reached."""
    skip = 0
    while True:
        r = read(rec, q(path, *pairs, ("$limit", limit), ("$skip", skip)), f"{what}: skip {skip}")
        skip += limit
        if skip >= r.json()["total"]:
            return


# ---------------------------------------------------------------- build
def build_lists(rec: Recorder) -> None:
    rec.section("Collections (tasks and people paginated: `{total, limit, skip, data}`; projects a plain array)")
    read(rec, P, "all projects (no pagination: an array)")
    read(rec, H, "all people (a page of the default 10)")
    read(rec, T, "tasks: the first 10 of 14 (the default page)")
    read(rec, q(T, ("$skip", 10)), "tasks: the remaining 4")

    rec.section("Equality, `$in`/`$nin`, comparisons, `$ne`, `$or`")
    read(rec, q(T, ("status", "todo")), "tasks whose status is todo")
    read(rec, q(T, ("projectId", 1)), "the tasks of project 1")
    read(rec, q(T, ("assigneeId", 3)), "Lena's tasks")
    read(rec, q(T, ("assigneeId", "null")), "tasks nobody is assigned (`null`)")
    read(rec, q(T, ("status", "todo"), ("projectId", 2)), "project 2's todo tasks (two fields)")
    read(rec, q(T, ("status[$in][]", "doing"), ("status[$in][]", "done")), "status doing or done (`$in`)")
    read(rec, q(T, ("projectId[$nin][]", 1), ("projectId[$nin][]", 2)), "tasks of neither project 1 nor 2 (`$nin`)")
    read(rec, q(T, ("priority[$lt]", 2)), "priority below 2 (`$lt`)")
    read(rec, q(T, ("priority[$lte]", 2)), "priority 2 or less (`$lte`)")
    read(rec, q(T, ("estimate[$gt]", 3)), "estimate above 3 (`$gt`)")
    read(rec, q(T, ("estimate[$gte]", 3), ("estimate[$lte]", 5)), "estimate from 3 to 5")
    read(rec, q(T, ("dueDate[$gte]", "2026-12-05")), "due on 5 December or later (strings compare)")
    read(rec, q(T, ("status[$ne]", "done")), "tasks not done (`$ne`)")
    read(rec, q(T, ("$or[0][status]", "doing"), ("$or[1][priority]", 1)), "doing or priority 1 (`$or`)")
    read(rec, q(H, ("role", "engineer")), "the engineers")
    read(rec, q(P, ("code", "SGB")), "a project by code")
    read(rec, q(P, ("active", "false")), "inactive projects (a boolean)")
    read(rec, q(P, ("budget[$gt]", 50)), "projects with a budget above 50")

    rec.section("Sorts and `$select`")
    read(rec, q(T, ("$sort[priority]", 1)), "tasks by priority (ties in the store's order)")
    read(rec, q(T, ("$sort[priority]", -1), ("$sort[title]", 1)), "by priority descending, then title")
    read(rec, q(T, ("$sort[dueDate]", 1)), "by due date (no date first)")
    read(rec, q(H, ("$sort[name]", -1)), "people by name descending")
    read(rec, q(P, ("$sort[budget]", -1)), "projects by budget descending")
    read(rec, q(T, ("$select[]", "title"), ("$select[]", "status")), "only title and status (and the id)")
    read(rec, q(H, ("$select[]", "name")), "people: only the name")


def build_pages(rec: Recorder) -> None:
    rec.section("Pages (`$limit`, `$skip`; `total` counts the matches)")
    pages(rec, T, (), 5, "tasks 5 a page")
    pages(rec, T, (("status", "todo"),), 3, "todo tasks 3 a page")
    read(rec, q(T, ("$sort[title]", 1), ("$limit", 4), ("$skip", 4)), "by title, the second page of 4")
    read(rec, q(T, ("$limit", 0)), "`$limit=0`: only the total")
    read(rec, q(T, ("$limit", 100)), "`$limit=100`: capped at the maximum 50")
    read(rec, q(P, ("$limit", 2), ("$skip", 1)), "projects: 2 from the second (a plain array)")
    read(rec, q(H, ("$limit", 2)), "people 2 a page")


def build_items(rec: Recorder) -> None:
    rec.section("Items and errors")
    read(rec, f"{T}/1", "task 1")
    read(rec, f"{T}/4", "task 4")
    read(rec, f"{T}/3", "task 3 (nobody assigned, no due date)")
    read(rec, f"{P}/2", "project 2")
    read(rec, f"{H}/3", "person 3 (Lena)")
    read(rec, q(f"{T}/5", ("$select[]", "title")), "task 5, only its title")
    read(rec, f"{T}/99", "a task that does not exist: 404", expect=404)
    read(rec, f"{H}/42", "a person who does not exist: 404", expect=404)
    read(rec, f"{P}/9", "a project that does not exist: 404", expect=404)
    read(rec, q(T, ("title[$regex]", "wall")), "an operator Feathers does not allow: 400", expect=400)
    read(rec, q(T, ("$search", "wall")), "a filter Feathers does not know: 400", expect=400)
    read(rec, "/invoices", "a service the app does not have: 404", expect=404)


def build_task_writes(rec: Recorder) -> None:
    rec.section("Create a task, patch it, replace it, delete it")
    r = send(rec, "POST", T, "create a task in project 1 for Kofi: 201, the next id and both clocks",
             {"title": "Check the tide tables", "status": "todo", "priority": 1, "estimate": 3, "projectId": 1,
              "assigneeId": 2, "dueDate": "2026-12-12"}, 201)
    tid = r.json()["id"]
    read(rec, f"{T}/{tid}", "read it")
    read(rec, q(T, ("projectId", 1)), "project 1's tasks: the new one is listed")
    read(rec, q(T, ("assigneeId", 2)), "Kofi's tasks: listed")
    send(rec, "PATCH", f"{T}/{tid}", "PATCH priority and estimate: the merged record, updatedAt moved",
         {"priority": 3, "estimate": 5})
    read(rec, f"{T}/{tid}", "read it: priority 3, estimate 5")
    read(rec, q(T, ("priority", 3)), "priority 3: listed")
    send(rec, "PUT", f"{T}/{tid}", "PUT replaces it: project 3, nobody assigned, no due date (createdAt kept)",
         {"title": "Check the tide charts", "status": "doing", "priority": 2, "estimate": 2, "projectId": 3,
          "assigneeId": None, "dueDate": None})
    read(rec, f"{T}/{tid}", "read it: replaced")
    read(rec, q(T, ("projectId", 3)), "project 3's tasks: listed")
    read(rec, q(T, ("projectId", 1)), "project 1's: no longer")
    send(rec, "PATCH", f"{T}/2", "a seeded task done", {"status": "done"})
    read(rec, f"{T}/2", "read it")
    read(rec, q(T, ("status", "done")), "done tasks: 1, 2, 7, 11, 13")
    delete(rec, f"{T}/{tid}", "DELETE it: answers the removed record")
    read(rec, f"{T}/{tid}", "it is gone: 404", expect=404)
    read(rec, q(T, ("projectId", 3)), "project 3's tasks without it")


def build_multi_writes(rec: Recorder) -> None:
    rec.section("Multi PATCH and DELETE by query (`multi: ['patch', 'remove']` on tasks)")
    send(rec, "PATCH", q(T, ("projectId", 4)), "PATCH every task of project 4: doing (an array answered)",
         {"status": "doing"})
    read(rec, q(T, ("projectId", 4)), "project 4's tasks: all doing")
    read(rec, q(T, ("status", "doing")), "doing tasks")
    send(rec, "PATCH", q(T, ("estimate[$gte]", 8)), "PATCH the tasks estimated 8 or more: priority 1",
         {"priority": 1})
    read(rec, q(T, ("priority", 1)), "priority 1 tasks")
    delete(rec, q(T, ("status", "done"), ("projectId", 2)), "DELETE project 2's done tasks (an array answered)")
    read(rec, q(T, ("projectId", 2)), "project 2's tasks: 4, 5, 6")
    read(rec, T, "tasks: 13 left")
    read(rec, f"{T}/13", "task 13 is gone: 404", expect=404)


def build_other_writes(rec: Recorder) -> None:
    rec.section("A person and a project: create, patch, replace, delete")
    r = send(rec, "POST", H, "create person Noor", {"name": "Noor Haddad", "role": "engineer",
                                                    "email": "noor@example.test"}, 201)
    pid = r.json()["id"]
    read(rec, f"{H}/{pid}", "read Noor")
    send(rec, "PATCH", f"{H}/{pid}", "change the role", {"role": "designer"})
    read(rec, q(H, ("role", "designer")), "the designers: Noor listed")
    send(rec, "PUT", f"{H}/{pid}", "replace Noor (the email dropped)", {"name": "Noor Haddad", "role": "manager"})
    read(rec, f"{H}/{pid}", "read Noor: no email")
    delete(rec, f"{H}/{pid}", "delete Noor")
    read(rec, f"{H}/{pid}", "Noor is gone: 404", expect=404)
    read(rec, q(H, ("$sort[name]", 1)), "people: five again")
    r = send(rec, "POST", P, "create project Boathouse", {"name": "Boathouse", "code": "BTH", "budget": 25,
                                                         "active": True}, 201)
    prj = r.json()["id"]
    read(rec, P, "projects: five")
    send(rec, "POST", T, "a task in it (status, priority, estimate default)", {"title": "Measure the moorings",
                                                                              "projectId": prj}, 201)
    read(rec, q(T, ("projectId", prj)), "the new project's tasks")
    send(rec, "PATCH", f"{P}/{prj}", "raise its budget", {"budget": 90})
    read(rec, q(P, ("budget[$gt]", 50)), "projects with a budget above 50: listed")
    delete(rec, f"{P}/{prj}", "delete the project (its task keeps the id)")
    read(rec, P, "projects: four again")


def build_refusals(rec: Recorder) -> None:
    rec.section("Refusals")
    send(rec, "POST", T, "a task without a title (the app's hook): 400", {"priority": 3}, 400)
    send(rec, "POST", T, "a status that is not a choice: 400", {"title": "Burnt", "status": "burned"}, 400)
    send(rec, "PUT", f"{T}/3", "a replace without a title: 400", {"status": "done"}, 400)
    send(rec, "PATCH", f"{T}/99", "PATCH a task that does not exist: 404", {"status": "done"}, 404)
    send(rec, "PUT", f"{T}/99", "PUT a task that does not exist: 404", {"title": "Ghost"}, 404)
    delete(rec, f"{T}/99", "DELETE a task that does not exist: 404", expect=404)
    send(rec, "PATCH", q(P, ("active", "true")), "a multi PATCH where the service allows none: 405",
         {"budget": 1}, 405)
    delete(rec, H, "a multi DELETE where the service allows none: 405", expect=405)
    read(rec, q(T, ("$sort[estimate]", -1), ("$sort[title]", 1), ("$limit", 5)), "tasks by estimate, 5 a page")


def scenario_build(rec: Recorder) -> None:
    build_lists(rec)
    build_pages(rec)
    build_items(rec)
    build_task_writes(rec)
    build_multi_writes(rec)
    build_other_writes(rec)
    build_refusals(rec)


# ---------------------------------------------------------------- probe-reads
def probe_filters(rec: Recorder) -> None:
    rec.section("Other values, fields, operators and combinations")
    read(rec, q(T, ("status", "doing")), "status doing")
    read(rec, q(T, ("projectId", 3)), "project 3's tasks")
    read(rec, q(T, ("assigneeId", 5)), "Aiko's tasks")
    read(rec, q(T, ("assigneeId", 1), ("status", "todo")), "Ines's todo tasks")
    read(rec, q(T, ("status[$in][]", "todo")), "`$in` with one value")
    read(rec, q(T, ("projectId[$in][]", 3), ("projectId[$in][]", 4)), "project 3 or 4 (`$in` on ids)")
    read(rec, q(T, ("status[$nin][]", "todo"), ("status[$nin][]", "doing")), "status neither todo nor doing")
    read(rec, q(T, ("priority[$gt]", 1)), "priority above 1")
    read(rec, q(T, ("priority[$gte]", 3)), "priority 3 or more")
    read(rec, q(T, ("estimate[$lt]", 3)), "estimate below 3")
    read(rec, q(T, ("estimate[$lte]", 2), ("status", "todo")), "todo tasks estimated 2 or less")
    read(rec, q(T, ("dueDate[$lt]", "2026-12-01")), "due before 1 December")
    read(rec, q(T, ("projectId[$ne]", 1)), "tasks outside project 1")
    read(rec, q(T, ("$or[0][projectId]", 3), ("$or[1][assigneeId]", 2)), "project 3 or Kofi's")
    read(rec, q(T, ("status", "todo"), ("$or[0][priority]", 1), ("$or[1][estimate][$gte]", 8)),
         "todo and (priority 1 or estimate 8 or more)")
    read(rec, q(T, ("title", "Grease the winch")), "a title (exact)")
    read(rec, q(T, ("estimate", 8)), "estimate 8")
    read(rec, q(H, ("role", "designer")), "the designers")
    read(rec, q(H, ("role", "intern")), "a role nobody has: empty")
    read(rec, q(H, ("email", "marco@example.test")), "a person by email")
    read(rec, q(P, ("active", "true")), "active projects")
    read(rec, q(P, ("budget[$lte]", 60)), "projects with a budget of 60 or less")
    read(rec, q(P, ("name", "Ferry Ramp")), "a project by name")


def probe_sorts_pages(rec: Recorder) -> None:
    rec.section("Other sorts, selections and pages")
    read(rec, q(T, ("$sort[estimate]", -1)), "by estimate descending")
    read(rec, q(T, ("$sort[title]", 1)), "by title")
    read(rec, q(T, ("$sort[dueDate]", -1)), "by due date descending (no date last)")
    read(rec, q(H, ("$sort[email]", 1)), "people by email")
    read(rec, q(P, ("$sort[name]", 1)), "projects by name")
    read(rec, q(T, ("$select[]", "title"), ("$select[]", "priority")), "only title and priority")
    read(rec, q(P, ("$select[]", "code")), "projects: only the code")
    read(rec, q(T, ("status", "todo"), ("$sort[priority]", -1), ("$select[]", "title")),
         "todo tasks by priority, titles only")
    read(rec, q(T, ("$limit", 4), ("$skip", 8)), "the third page of 4 (asked directly)")
    pages(rec, T, (("$sort[title]", -1),), 6, "by title descending, 6 a page")
    pages(rec, T, (("projectId[$in][]", 1), ("projectId[$in][]", 2), ("$sort[priority]", 1)), 3,
          "projects 1 and 2 by priority, 3 a page")
    read(rec, q(T, ("$skip", 40)), "a page past the end")
    read(rec, q(T, ("status", "done"), ("$limit", 0)), "`$limit=0` on done tasks: the total")
    read(rec, q(T, ("$limit", 60)), "`$limit=60`: capped at 50")
    read(rec, q(H, ("$sort[name]", 1), ("$limit", 2), ("$skip", 2)), "people by name, the second page of 2")
    read(rec, q(P, ("$limit", 3)), "projects: the first 3 (a plain array)")


def probe_items(rec: Recorder) -> None:
    rec.section("Other items and errors")
    for tid in ("2", "8", "12", "14"):
        read(rec, f"{T}/{tid}", f"task {tid}")
    read(rec, f"{P}/4", "project 4")
    read(rec, f"{H}/2", "person 2 (Kofi)")
    read(rec, q(f"{T}/1", ("$select[]", "status")), "task 1, only its status")
    read(rec, f"{T}/42", "a task that does not exist: 404", expect=404)
    read(rec, f"{P}/7", "a project that does not exist: 404", expect=404)
    read(rec, f"{H}/99", "a person who does not exist: 404", expect=404)
    read(rec, q(T, ("title[$like]", "wall")), "another operator Feathers does not allow: 400", expect=400)
    read(rec, q(T, ("$populate", "project")), "another filter Feathers does not know: 400", expect=400)
    read(rec, "/invoices", "a service the app does not have: 404", expect=404)


def scenario_probe_reads(rec: Recorder) -> None:
    probe_filters(rec)
    probe_sorts_pages(rec)
    probe_items(rec)


# ---------------------------------------------------------------- probe-crud
def probe_crud_tasks(rec: Recorder) -> None:
    rec.section("A task created, patched, replaced; seeded tasks changed and deleted")
    r = send(rec, "POST", T, "create a task in project 2 for Ines",
             {"title": "Test the sprinklers", "status": "doing", "priority": 2, "estimate": 5, "projectId": 2,
              "assigneeId": 1}, 201)
    tid = r.json()["id"]
    read(rec, f"{T}/{tid}", "read it")
    read(rec, q(T, ("projectId", 2)), "project 2's tasks: listed")
    read(rec, q(T, ("assigneeId", 1), ("status", "doing")), "Ines's doing tasks: listed")
    send(rec, "PATCH", f"{T}/{tid}", "PATCH title and a due date", {"title": "Test the misters",
                                                                     "dueDate": "2026-12-30"})
    read(rec, f"{T}/{tid}", "read it")
    read(rec, q(T, ("dueDate[$gt]", "2026-12-20")), "due after 20 December: listed")
    send(rec, "PUT", f"{T}/{tid}", "PUT replaces it in project 4 for Aiko",
         {"title": "Test the misters", "status": "todo", "priority": 1, "estimate": 2, "projectId": 4,
          "assigneeId": 5, "dueDate": None})
    read(rec, f"{T}/{tid}", "read it: replaced")
    read(rec, q(T, ("projectId", 4), ("$sort[priority]", 1)), "project 4's tasks by priority")
    send(rec, "PATCH", f"{T}/6", "task 6 done", {"status": "done"})
    read(rec, f"{T}/6", "read it")
    read(rec, q(T, ("status", "done")), "done tasks")
    delete(rec, f"{T}/5", "delete task 5")
    read(rec, f"{T}/5", "it is gone: 404", expect=404)
    read(rec, q(T, ("projectId", 2)), "project 2's tasks without it")
    pages(rec, T, (("$sort[title]", 1),), 4, "tasks by title, 4 a page, after the writes")


def probe_crud_multi(rec: Recorder) -> None:
    rec.section("Multi writes by other queries")
    send(rec, "PATCH", q(T, ("assigneeId", 3)), "every task of Lena: priority 3", {"priority": 3})
    read(rec, q(T, ("assigneeId", 3)), "Lena's tasks")
    read(rec, q(T, ("priority[$gte]", 3)), "priority 3 or more")
    send(rec, "PATCH", q(T, ("status[$in][]", "todo"), ("projectId", 3)), "project 3's todo tasks: doing",
         {"status": "doing"})
    read(rec, q(T, ("projectId", 3)), "project 3's tasks")
    delete(rec, q(T, ("projectId", 1), ("status[$ne]", "todo")), "DELETE project 1's tasks not todo")
    read(rec, q(T, ("projectId", 1)), "project 1's tasks: 3 and 12")
    read(rec, q(T, ("$limit", 0)), "the total")


def probe_crud_others(rec: Recorder) -> None:
    rec.section("A person and a project")
    r = send(rec, "POST", H, "create a person", {"name": "Oskar Lind", "role": "manager",
                                                 "email": "oskar@example.test"}, 201)
    pid = r.json()["id"]
    read(rec, f"{H}/{pid}", "read them")
    read(rec, q(H, ("role", "manager")), "the managers: listed")
    send(rec, "PATCH", f"{H}/{pid}", "a new email", {"email": "oskar.lind@example.test"})
    read(rec, f"{H}/{pid}", "read them")
    delete(rec, f"{H}/{pid}", "delete them")
    read(rec, f"{H}/{pid}", "they are gone: 404", expect=404)
    read(rec, H, "people: five")
    r = send(rec, "POST", P, "create a project", {"name": "Water Tower", "code": "WTR", "budget": 55,
                                                  "active": False}, 201)
    prj = r.json()["id"]
    read(rec, f"{P}/{prj}", "read it")
    read(rec, q(P, ("active", "false")), "inactive projects: listed")
    send(rec, "PUT", f"{P}/{prj}", "replace it", {"name": "Water Tower", "code": "WTR", "budget": 70, "active": True})
    read(rec, q(P, ("budget[$gte]", 70)), "projects with a budget of 70 or more")
    delete(rec, f"{P}/{prj}", "delete it")
    read(rec, P, "projects: four")

    rec.section("Refusals")
    send(rec, "POST", T, "a task without a title: 400", {"estimate": 2}, 400)
    send(rec, "PUT", f"{T}/2", "a replace with a status not a choice: 400", {"title": "Order", "status": "paused"},
         400)
    send(rec, "PATCH", f"{T}/42", "PATCH a task that does not exist: 404", {"status": "done"}, 404)
    delete(rec, f"{H}/42", "DELETE a person who does not exist: 404", expect=404)
    send(rec, "PATCH", H, "a multi PATCH where the service allows none: 405", {"role": "x"}, 405)

    rec.section("Tasks the build read by id, changed and deleted")
    send(rec, "PATCH", f"{T}/4", "task 4 done, nobody assigned", {"status": "done", "assigneeId": None})
    read(rec, f"{T}/4", "read it")
    read(rec, q(T, ("assigneeId", "null")), "tasks nobody is assigned: listed")
    delete(rec, f"{T}/3", "delete task 3")
    read(rec, f"{T}/3", "it is gone: 404", expect=404)


def scenario_probe_crud(rec: Recorder) -> None:
    probe_crud_tasks(rec)
    probe_crud_multi(rec)
    probe_crud_others(rec)


SCENARIOS = [("build", scenario_build), ("probe-reads", scenario_probe_reads), ("probe-crud", scenario_probe_crud)]


def command(run: Path) -> list:
    return ["node", HERE / "app.js", str(APP_PORT)]


def main() -> None:
    import readme

    spec = AppSpec(
        name="feathers", here=HERE, dist="", app_port=APP_PORT, proxy_port=PROXY_PORT, command=command,
        scenarios=SCENARIOS, render_readme=readme.render, headers={"Accept": "application/json"}, ready_path=P,
        stop_signal=signal.SIGINT, settle=0.3, env={"PATH": "/usr/local/bin:/usr/bin:/bin"},
        version=lambda: npm_version(HERE, "@feathersjs/feathers"),
    )
    record_app(spec)


if __name__ == "__main__":
    main()
