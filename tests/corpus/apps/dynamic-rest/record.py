"""Record HAR captures of a project tracker served by Django REST framework with dynamic-rest
(DREST); the app is `app.py` in this folder, its seed `seed.py`.

Run through record.sh (it makes the app's venv from requirements.txt and the recorder's venv). For
each capture `app.py` starts fresh on 127.0.0.1 with Django's SQLite in memory and creates the seed
(explicit ids and clocks, a frozen clock for the writes), the scenario runs through the kit's
mitmdump proxy, and both are stopped by PID. Query strings are written as a DREST client writes
them, braces and brackets in the names unencoded: `filter{status}=todo`, an operator after a dot
`filter{priority.gte}=2`, a repeated `filter{status.in}=a&filter{status.in}=b`, a negation
`filter{-status}=done`, a relation's field `filter{project.code}=WEB`, `sort[]=-priority&sort[]=title`,
`include[]=project.` / `include[]=project.*`, `exclude[]=created_at`, `page`/`per_page`; values are
percent-encoded (`*` kept). DREST answers no next link: pages are walked by `page=N` up to the
answer's `meta.total_pages`.
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
from json_client import bare, item, read, record_venv_app, send  # noqa: E402

APP_PORT = 18879
PROXY_PORT = 18979
VENV = Path(os.environ.get("REA_DYNAMIC_REST_VENV", "/tmp/rea-dynamic-rest-venv"))
APP_CLOCK = "2026-12-06T09:30:00Z"  # app.CLOCK, the frozen clock
P, T, H = "/api/projects/", "/api/tasks/", "/api/people/"


# ---------------------------------------------------------------- helpers
def q(path: str, *pairs: tuple) -> str:
    """`path?k=v&…` with the names as written (`filter{priority.gte}`, `sort[]`) and the values
    percent-encoded (`*` kept: `include[]=project.*`)."""
    if not pairs:
        return path
    return path + "?" + "&".join(f"{k}={quote(str(v), safe='-:*')}" for k, v in pairs)


def f(field: str, value) -> tuple:
    """One filter: `filter{field}=value` (`field` may carry a `-` and an `.op`)."""
    return (f"filter{{{field}}}", value)


def s(*keys: str) -> list[tuple]:
    return [("sort[]", k) for k in keys]


def inc(*fields: str) -> list[tuple]:
    return [("include[]", x) for x in fields]


def exc(*fields: str) -> list[tuple]:
    return [("exclude[]", x) for x in fields]


def follow(rec: Recorder, path: str, what: str, *pairs: tuple) -> None:
    """Read the first page, then `page=2…` up to the answer's `meta.total_pages`."""
    r = read(rec, q(path, *pairs), f"{what}: the first page")
    pages = r.json()["meta"]["total_pages"]
    for page in range(2, pages + 1):
        read(rec, q(path, *pairs, ("page", page)), f"{what}: page {page} of {pages}")


def new_id(r: httpx.Response, key: str) -> int:
    """A create answers 201 with the object under its singular name (`{"task": {...}}`)."""
    return r.json()[key]["id"]


# ---------------------------------------------------------------- build
def build_lists(rec: Recorder) -> None:
    rec.section("Collections (10 a page, `meta` with `total_results` and `total_pages`)")
    follow(rec, T, "all 15 tasks")
    read(rec, P, "all projects (`links.tasks` names the relation route)")
    read(rec, H, "all people")

    rec.section("Filters: `filter{field}` and `filter{field.op}`")
    read(rec, q(T, f("status", "todo")), "todo tasks")
    read(rec, q(T, f("project", 1)), "the tasks of project 1 (a relation by id)")
    read(rec, q(T, f("assignee", 3)), "Chiara's tasks")
    read(rec, q(T, f("status", "todo"), f("project", 2)), "project 2's todo tasks (two filters)")
    read(rec, q(T, f("priority", 3)), "priority 3")
    read(rec, q(T, f("priority.gte", 2)), "priority 2 or more (`.gte`)")
    read(rec, q(T, f("priority.lt", 2)), "priority below 2 (`.lt`)")
    read(rec, q(T, f("status", "todo"), f("priority.lte", 2)), "todo tasks of priority 2 or less (`.lte`)")
    read(rec, q(T, f("estimate.gt", 5)), "estimates above 5 hours (`.gt`)")
    read(rec, q(T, f("title.icontains", "cart")), "titles containing `cart`, any case (`.icontains`)")
    read(rec, q(T, f("title.startswith", "Fix")), "titles starting `Fix` (`.startswith`)")
    read(rec, q(T, f("status.in", "doing"), f("status.in", "done")), "status doing or done (`.in` repeated)")
    read(rec, q(T, f("-status", "done")), "every task not done (`filter{-status}`, a negation)")
    read(rec, q(T, f("due.isnull", "true")), "tasks without a due date (`.isnull`)")
    read(rec, q(T, f("assignee.isnull", "true")), "tasks nobody is assigned")
    read(rec, q(T, f("due.gte", "2026-12-05")), "due on 5 December or later (dates compare)")
    read(rec, q(T, f("project.code", "WEB")), "tasks of the project coded WEB (across the relation)")
    read(rec, q(H, f("role", "engineer")), "the engineers")
    read(rec, q(H, f("name.icontains", "ke")), "people whose name contains `ke`")
    read(rec, q(P, f("active", "false")), "inactive projects (a boolean)")
    read(rec, q(P, f("code.in", "OPS"), f("code.in", "DAT")), "projects coded OPS or DAT")
    read(rec, q(P, f("budget.gte", 80)), "projects with a budget of 80 or more")


def build_sorts(rec: Recorder) -> None:
    rec.section("Sorts (`sort[]`, repeated for a second key; ties by id)")
    read(rec, q(T, *s("priority")), "tasks by priority")
    read(rec, q(T, *s("-title")), "tasks by title descending")
    read(rec, q(T, *s("-priority", "title")), "by priority descending, then title")
    read(rec, q(T, *s("due")), "by due date (no date first)")
    read(rec, q(T, *s("-estimate")), "by estimate descending (no estimate last)")
    read(rec, q(H, *s("-name")), "people by name descending")
    read(rec, q(P, *s("-budget")), "projects by budget descending")
    read(rec, q(T, f("status", "todo"), *s("title")), "todo tasks by title")


def build_includes(rec: Recorder) -> None:
    rec.section("Includes and excludes (sideloaded records under their plural name)")
    read(rec, q(T, f("project", 2), *inc("project.")), "project 2's tasks with the project sideloaded (`include[]=project.`)")
    read(rec, q(T, f("status", "doing"), *inc("project.*")), "doing tasks with their projects (`project.*`)")
    read(rec, q(T, ("per_page", 5), *inc("assignee.")), "5 tasks with their assignees under `people`")
    read(rec, q(T, f("status", "done"), *exc("created_at")), "done tasks without `created_at`")
    read(rec, q(T, f("priority", 1), *exc("*"), *inc("title", "status")),
         "priority 1, only `title` and `status` (`exclude[]=*`; the relations become `links`)")
    read(rec, q(P, f("code", "MOB"), *inc("tasks.")), "project MOB with its tasks sideloaded")
    read(rec, q(item(T, 4), *inc("project.")), "task 4 with its project")


def build_pages(rec: Recorder) -> None:
    rec.section("Pages (`page`, `per_page`)")
    follow(rec, T, "tasks 5 a page", ("per_page", 5))
    follow(rec, T, "todo tasks 3 a page", f("status", "todo"), ("per_page", 3))
    read(rec, q(T, *s("title"), ("page", 2), ("per_page", 4)), "by title, the second page of 4")
    read(rec, q(P, ("per_page", 2)), "projects 2 a page")
    read(rec, q(T, ("page", 9)), "a page past the end: 404 `Invalid page.`", expect=404)


def build_items(rec: Recorder) -> None:
    rec.section("Items, relation routes and errors")
    read(rec, item(T, 1), "task 1 (`{\"task\": …}`, relations as ids)")
    read(rec, item(T, 3), "task 3 (nobody assigned, no due date, no estimate: `null`)")
    read(rec, item(P, 2), "project 2")
    read(rec, item(H, 3), "person 3 (Chiara)")
    read(rec, item(P, 1, "tasks/"), "project 1's tasks (the relation route: `{\"tasks\": …}` without `meta`)")
    read(rec, item(P, 3, "tasks/"), "project 3's tasks")
    read(rec, item(H, 1, "tasks/"), "Ada's tasks")
    read(rec, item(T, 99), "a task that does not exist: 404", expect=404)
    read(rec, item(H, 42), "a person who does not exist: 404", expect=404)
    read(rec, item(P, 9), "a project that does not exist: 404", expect=404)
    read(rec, "/api/invoices/", "a route the app does not have: 404 (Django's HTML page)", expect=404)


def build_task_writes(rec: Recorder) -> None:
    rec.section("Create a task, PATCH it, PUT it, delete it")
    r = send(rec, "POST", T, "create a task in project 1 for Bruno: 201 `{\"task\": …}` with the next id",
             {"title": "Tune the alert thresholds", "status": "todo", "priority": 1, "estimate": 4,
              "project": 1, "assignee": 2, "due": "2026-12-12"}, 201)
    tid = new_id(r, "task")
    read(rec, item(T, tid), "read it")
    read(rec, q(T, f("project", 1)), "project 1's tasks: the new one listed")
    read(rec, q(T, f("assignee", 2)), "Bruno's tasks: one more")
    send(rec, "PATCH", item(T, tid), "PATCH the priority and the status", {"priority": 3, "status": "doing"})
    read(rec, item(T, tid), "read it: priority 3, doing")
    read(rec, q(T, f("priority", 3)), "priority 3: listed")
    send(rec, "PUT", item(T, tid), "PUT: project 3, nobody assigned, no due date",
         {"title": "Tune the alert rules", "status": "doing", "priority": 3, "estimate": 6, "project": 3,
          "assignee": None, "due": None})
    read(rec, item(T, tid), "read it")
    read(rec, item(P, 3, "tasks/"), "project 3's tasks: listed")
    read(rec, q(T, f("project", 1)), "project 1's: no longer")
    send(rec, "PATCH", item(T, 2), "PATCH a seeded task: task 2 done", {"status": "done"})
    read(rec, item(T, 2), "read it")
    read(rec, q(T, f("status", "done")), "done tasks: 1, 2, 7, 11, 13")
    bare(rec, "DELETE", item(T, tid), "DELETE the new task: 204", 204)
    read(rec, item(T, tid), "it is gone: 404", expect=404)
    read(rec, item(P, 3, "tasks/"), "project 3's tasks without it")


def build_other_writes(rec: Recorder) -> None:
    rec.section("A person and a project: create, patch, delete")
    r = send(rec, "POST", H, "create person Femi", {"name": "Femi Adeyemi", "role": "engineer",
                                                    "email": "femi@example.test"}, 201)
    pid = new_id(r, "person")
    read(rec, item(H, pid), "read Femi")
    send(rec, "PATCH", item(H, pid), "change the role", {"role": "designer"})
    read(rec, q(H, f("role", "designer")), "the designers: Femi listed")
    bare(rec, "DELETE", item(H, pid), "delete Femi", 204)
    read(rec, item(H, pid), "Femi is gone: 404", expect=404)
    read(rec, q(H, *s("name")), "people: five again")
    r = send(rec, "POST", P, "create project Search", {"code": "SRC", "name": "Search Index", "budget": 25}, 201)
    prj = new_id(r, "project")
    read(rec, P, "projects: five")
    send(rec, "POST", T, "a task in it (status and priority default)",
         {"title": "Benchmark the tokenizer", "project": prj}, 201)
    read(rec, item(P, prj, "tasks/"), "the new project's tasks")
    read(rec, q(T, f("project.code", "SRC")), "tasks of the project coded SRC")
    send(rec, "PATCH", item(P, prj), "raise its budget", {"budget": 95})
    read(rec, q(P, f("budget.gte", 80)), "projects with a budget of 80 or more: listed")
    bare(rec, "DELETE", item(P, prj), "delete the project (its task goes with it: CASCADE)", 204)
    read(rec, P, "projects: four again")
    read(rec, q(T, f("project.code", "SRC")), "no tasks coded SRC any more")


def build_refusals(rec: Recorder) -> None:
    rec.section("Refusals")
    send(rec, "POST", T, "a task without a title and a project: 400 with the field errors", {"priority": 3}, 400)
    send(rec, "POST", T, "a status that is not a choice: 400",
         {"title": "Archive the logs", "project": 1, "status": "blocked"}, 400)
    send(rec, "POST", P, "a project code already taken: 400", {"code": "OPS", "name": "Ops Again"}, 400)
    send(rec, "PATCH", item(T, 99), "PATCH a task that does not exist: 404", {"status": "done"}, 404)
    bare(rec, "DELETE", item(T, 99), "DELETE a task that does not exist: 404", 404)
    read(rec, q(T, f("priority", "high")), "a filter value that is not a number: 400 `[\"\"]`", expect=400)
    read(rec, q(T, *s("colour")), "a sort on an unknown field: 400", expect=400)
    read(rec, q(T, f("colour", "red")), "a filter on an unknown field: 400", expect=400)


def scenario_build(rec: Recorder) -> None:
    build_lists(rec)
    build_sorts(rec)
    build_includes(rec)
    build_pages(rec)
    build_items(rec)
    build_task_writes(rec)
    build_other_writes(rec)
    build_refusals(rec)


# ---------------------------------------------------------------- probe-reads
def probe_filters(rec: Recorder) -> None:
    rec.section("Other values, fields, operators and combinations")
    read(rec, q(T, f("status", "doing")), "status doing")
    read(rec, q(T, f("project", 3)), "project 3's tasks")
    read(rec, q(T, f("assignee", 5)), "Esme's tasks")
    read(rec, q(T, f("assignee", 1), f("status", "todo")), "Ada's todo tasks")
    read(rec, q(T, f("priority.gt", 1)), "priority above 1 (`.gt` on priority, never in the build)")
    read(rec, q(T, f("priority.lte", 1)), "priority 1 or less")
    read(rec, q(T, f("estimate.gte", 8)), "estimates of 8 hours or more")
    read(rec, q(T, f("title.icontains", "THE")), "titles containing `THE`, any case")
    read(rec, q(T, f("title.istartswith", "re")), "titles starting `re`, any case (`.istartswith`, never in the build)")
    read(rec, q(T, f("status.in", "todo")), "`.in` with one value")
    read(rec, q(T, f("status.in", "todo"), f("status.in", "doing")), "status todo or doing")
    read(rec, q(T, f("-status", "todo")), "every task not todo")
    read(rec, q(T, f("-project", 1)), "every task not in project 1 (a negated relation)")
    read(rec, q(T, f("due.isnull", "false")), "tasks with a due date")
    read(rec, q(T, f("due.lte", "2026-12-01")), "due on 1 December or before")
    read(rec, q(T, f("project.code", "DAT")), "tasks of the project coded DAT")
    read(rec, q(T, f("project.code", "OPS"), f("status", "todo")), "todo tasks of OPS")
    read(rec, q(T, f("project.active", "false")), "tasks of inactive projects (a boolean across the relation)")
    read(rec, q(H, f("role", "designer")), "the designers")
    read(rec, q(H, f("role", "intern")), "a role nobody has: empty")
    read(rec, q(H, f("email.isnull", "true")), "people without an email")
    read(rec, q(P, f("budget.lte", 70)), "projects with a budget of 70 or less")
    read(rec, q(P, f("code", "MOB")), "a project by code")


def probe_sorts(rec: Recorder) -> None:
    rec.section("Other sorts and includes")
    read(rec, q(T, *s("-priority")), "by priority descending")
    read(rec, q(T, *s("title")), "by title")
    read(rec, q(T, *s("status", "-priority")), "by status, then priority descending")
    read(rec, q(T, *s("-due")), "by due date descending (no date last)")
    read(rec, q(T, *s("estimate")), "by estimate (no estimate first)")
    read(rec, q(H, *s("email")), "people by email (no email first)")
    read(rec, q(T, f("status", "done"), *s("-priority", "title")), "done tasks by priority descending, then title")
    read(rec, q(T, f("project", 4), *inc("assignee.*")), "project 4's tasks with their assignees")
    read(rec, q(T, f("priority", 1), *inc("project.")), "priority 1 with their projects")
    read(rec, q(T, f("status", "doing"), *exc("due", "estimate")), "doing tasks without `due` and `estimate`")
    read(rec, q(H, f("role", "manager"), *inc("tasks.")), "the managers with their tasks")
    read(rec, q(item(T, 8), *inc("project.*")), "task 8 with its project")


def probe_pages(rec: Recorder) -> None:
    rec.section("Other pages")
    read(rec, q(T, ("page", 2)), "the second page of 10")
    read(rec, q(T, ("page", 2), ("per_page", 4)), "the second page of 4 (asked directly)")
    follow(rec, T, "by title descending, 6 a page", *s("-title"), ("per_page", 6))
    follow(rec, T, "todo or doing, 4 a page", f("status.in", "todo"), f("status.in", "doing"), ("per_page", 4))
    read(rec, q(T, ("page", 5)), "a page past the end: 404", expect=404)
    read(rec, q(P, ("page", 2), ("per_page", 3)), "projects: the second page of 3")
    read(rec, q(H, ("per_page", 100)), "people, 100 a page asked (at most 50)")


def probe_items(rec: Recorder) -> None:
    rec.section("Other items, relation routes and errors")
    for tid in (2, 8, 12):
        read(rec, item(T, tid), f"task {tid}")
    read(rec, item(P, 4), "project 4")
    read(rec, item(H, 2), "person 2 (Bruno)")
    read(rec, item(H, 5), "person 5 (no email)")
    read(rec, item(P, 4, "tasks/"), "project 4's tasks")
    read(rec, item(H, 3, "tasks/"), "Chiara's tasks")
    read(rec, item(T, 42), "a task that does not exist: 404", expect=404)
    read(rec, item(P, 7), "a project that does not exist: 404", expect=404)
    read(rec, item(H, 99), "a person who does not exist: 404", expect=404)
    read(rec, q(T, f("estimate.gte", "lots")), "a filter value that is not a number: 400", expect=400)
    read(rec, q(H, *s("height")), "a sort on an unknown field: 400", expect=400)
    read(rec, q(P, f("owner", "x")), "a filter on an unknown field: 400", expect=400)


def scenario_probe_reads(rec: Recorder) -> None:
    probe_filters(rec)
    probe_sorts(rec)
    probe_pages(rec)
    probe_items(rec)


# ---------------------------------------------------------------- probe-crud
def probe_crud_tasks(rec: Recorder) -> None:
    rec.section("A task created, patched, put; seeded tasks patched and deleted")
    r = send(rec, "POST", T, "create a task in project 2 for Ada",
             {"title": "Cache the product images", "status": "doing", "priority": 2, "estimate": 5,
              "project": 2, "assignee": 1}, 201)
    tid = new_id(r, "task")
    read(rec, item(T, tid), "read it")
    read(rec, q(T, f("project", 2)), "project 2's tasks: listed")
    read(rec, q(T, f("assignee", 1), f("status", "doing")), "Ada's doing tasks: listed")
    send(rec, "PATCH", item(T, tid), "PATCH the title and a due date",
         {"title": "Cache the product thumbnails", "due": "2026-12-30"})
    read(rec, item(T, tid), "read it")
    read(rec, q(T, f("due.gte", "2026-12-20")), "due from 20 December: listed")
    send(rec, "PUT", item(T, tid), "PUT moves it to project 4 for Esme (the due date not sent: kept)",
         {"title": "Cache the product thumbnails", "status": "todo", "priority": 1, "project": 4, "assignee": 5})
    read(rec, item(T, tid), "read it")
    read(rec, item(P, 4, "tasks/"), "project 4's tasks")
    read(rec, q(T, f("assignee", 5), *s("-priority")), "Esme's tasks by priority descending: listed")
    send(rec, "PATCH", item(T, 6), "task 6 done", {"status": "done"})
    read(rec, item(T, 6), "read it")
    read(rec, q(T, f("status", "done"), *s("-priority")), "done tasks by priority descending")
    bare(rec, "DELETE", item(T, 5), "delete task 5", 204)
    read(rec, item(T, 5), "it is gone: 404", expect=404)
    read(rec, item(P, 2, "tasks/"), "project 2's tasks without it")
    follow(rec, T, "tasks by title, 5 a page, after the writes", *s("title"), ("per_page", 5))


def probe_crud_people(rec: Recorder) -> None:
    rec.section("A person created, changed, deleted; a seeded person deleted (their tasks unassigned)")
    r = send(rec, "POST", H, "create a person", {"name": "Goran Petrov", "role": "manager",
                                                 "email": "goran@example.test"}, 201)
    pid = new_id(r, "person")
    read(rec, item(H, pid), "read them")
    read(rec, q(H, f("role", "manager")), "the managers: listed")
    send(rec, "PATCH", item(H, pid), "a new email", {"email": "goran.petrov@example.test"})
    send(rec, "PUT", item(H, pid), "PUT a new role (no email sent: kept)", {"name": "Goran Petrov", "role": "engineer"})
    read(rec, q(H, f("role", "engineer")), "the engineers: listed")
    bare(rec, "DELETE", item(H, pid), "delete them", 204)
    read(rec, item(H, pid), "they are gone: 404", expect=404)
    bare(rec, "DELETE", item(H, 3), "delete Chiara (SET_NULL: her tasks keep no assignee)", 204)
    read(rec, item(T, 4), "task 4: nobody assigned")
    read(rec, q(T, f("assignee.isnull", "true")), "unassigned tasks")


def probe_crud_projects(rec: Recorder) -> None:
    rec.section("A project created, put, deleted")
    r = send(rec, "POST", P, "create a project", {"code": "SEC", "name": "Security Review", "budget": 55,
                                                  "active": False}, 201)
    prj = new_id(r, "project")
    read(rec, item(P, prj), "read it")
    read(rec, q(P, f("active", "false")), "inactive projects: listed")
    send(rec, "PUT", item(P, prj), "update it by PUT", {"code": "SEC", "name": "Security Review", "budget": 75,
                                                        "active": True})
    read(rec, q(P, f("budget.gte", 75)), "projects with a budget of 75 or more")
    send(rec, "POST", T, "a task in it", {"title": "Scan the dependencies", "project": prj, "priority": 3}, 201)
    read(rec, q(T, f("project.code", "SEC")), "tasks of the project coded SEC")
    bare(rec, "DELETE", item(P, prj), "delete it (its task goes with it)", 204)
    read(rec, P, "projects: four")
    read(rec, q(T, f("priority", 3)), "priority 3 tasks: the deleted project's task gone")

    rec.section("Refusals")
    send(rec, "POST", T, "a task without a title or project: 400", {"status": "todo"}, 400)
    send(rec, "POST", T, "a task in a project that does not exist: 400",
         {"title": "Orphan task", "project": 99}, 400)
    send(rec, "POST", P, "a project without a code: 400", {"name": "Nameless"}, 400)
    send(rec, "POST", H, "a person with an invalid email: 400", {"name": "Hana Ito", "email": "not-an-email"}, 400)
    send(rec, "PATCH", item(T, 42), "PATCH a task that does not exist: 404", {"status": "done"}, 404)
    bare(rec, "DELETE", item(H, 42), "DELETE a person who does not exist: 404", 404)

    rec.section("Tasks the build read by id, changed and deleted")
    send(rec, "PATCH", item(T, 4), "task 4 done, assigned to Dmitri", {"status": "done", "assignee": 4})
    read(rec, item(T, 4), "read it")
    read(rec, q(T, f("assignee", 4)), "Dmitri's tasks: listed")
    bare(rec, "DELETE", item(T, 1), "delete task 1", 204)
    read(rec, item(T, 1), "it is gone: 404", expect=404)
    follow(rec, T, "all tasks")


def scenario_probe_crud(rec: Recorder) -> None:
    probe_crud_tasks(rec)
    probe_crud_people(rec)
    probe_crud_projects(rec)


SCENARIOS = [("build", scenario_build), ("probe-reads", scenario_probe_reads), ("probe-crud", scenario_probe_crud)]


def main() -> None:
    import readme

    record_venv_app("dynamic-rest", HERE, VENV, (APP_PORT, PROXY_PORT), P, SCENARIOS, readme.render,
                    "dynamic-rest")


if __name__ == "__main__":
    main()
