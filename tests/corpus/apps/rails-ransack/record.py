"""Record HAR captures of a project tracker served by Ruby on Rails 6.1 (API-only) with ransack
filters and kaminari pages through api-pagination; the app is `app.rb` in this folder, its seed
`seed.json`.

Run through record.sh (it installs Ruby, Rails and the gems, and the recorder's venv). For each
capture `ruby app.rb PORT` starts fresh on 127.0.0.1 in run/ (a new SQLite file with the seed's
explicit ids and clocks, a frozen clock for the writes), the scenario runs through the kit's
mitmdump proxy, and both are stopped by PID. Query strings are written as a Rails client writes
them by hand, brackets in the names unencoded: `q[status_eq]=todo`, `q[priority_gteq]=2`,
`q[status_in][]=doing&q[status_in][]=done`, `q[project_code_eq]=WEB` (through the association),
`q[s]=priority desc` or `q[s][]=priority desc&q[s][]=title asc`, `page`/`per_page`; values are
percent-encoded. Some lists are walked by following the `Link: <…>; rel="next"` header exactly as
the app wrote it (its names percent-encoded, `+` for a space, the parameters in sorted order).
"""

from __future__ import annotations

import os
import re
import signal
import sys
from pathlib import Path
from urllib.parse import quote, urlsplit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "kit"))

import httpx  # noqa: E402

from appdriver import AppSpec, record_app  # noqa: E402
from harlib import Recorder  # noqa: E402
from json_client import bare, item, read, send  # noqa: E402

APP_PORT = 18887
PROXY_PORT = 18987
GEMS = Path(os.environ.get("REA_RAILS_RANSACK_GEMS", "/tmp/rea-rails-ransack-gems"))
APP_CLOCK = "2026-12-06T09:30:00Z"  # app.rb's CLOCK, the frozen clock
P, T, H = "/projects", "/tasks", "/people"


# ---------------------------------------------------------------- helpers
def q(path: str, *pairs: tuple) -> str:
    """`path?k=v&…` with the names as written (`q[status_in][]`) and the values percent-encoded."""
    if not pairs:
        return path
    return path + "?" + "&".join(f"{k}={quote(str(v), safe='-:')}" for k, v in pairs)


def f(predicate: str, value) -> tuple:
    """One ransack condition: `q[<attribute>_<predicate>]=value`."""
    return (f"q[{predicate}]", value)


def many(predicate: str, *values) -> list[tuple]:
    """A list condition: `q[status_in][]=a&q[status_in][]=b`."""
    return [(f"q[{predicate}][]", v) for v in values]


def s(*keys: str) -> list[tuple]:
    """`q[s]=priority desc` for one key, `q[s][]=…` repeated for several."""
    if len(keys) == 1:
        return [("q[s]", keys[0])]
    return [("q[s][]", k) for k in keys]


def next_link(r: httpx.Response) -> str | None:
    """The path and query of the `Link` header's `rel="next"` URL, as the app wrote it."""
    for part in r.headers.get("link", "").split(","):
        m = re.match(r'\s*<([^>]+)>;\s*rel="next"', part)
        if m:
            u = urlsplit(m.group(1))
            return u.path + ("?" + u.query if u.query else "")
    return None


def follow(rec: Recorder, path: str, what: str) -> None:
    """Read the first page, then each `Link: rel="next"` URL until there is none."""
    r = read(rec, path, f"{what}: the first page")
    n = 1
    while (nxt := next_link(r)) is not None:
        n += 1
        r = read(rec, nxt, f"{what}: page {n}, the `Link` header's `rel=\"next\"` as written")


def new_id(r: httpx.Response) -> int:
    """A create answers 201 with the object (and `Location`)."""
    return r.json()["id"]


def nested(project: int) -> str:
    return f"{P}/{project}/tasks"


def at(coll: str, id_) -> str:
    return item(coll + "/", id_).rstrip("/")


# ---------------------------------------------------------------- build
def build_lists(rec: Recorder) -> None:
    rec.section("Collections (10 a page; `Total`, `Per-Page` and `Link` headers)")
    follow(rec, T, "all 16 tasks")
    read(rec, P, "all projects")
    read(rec, H, "all people")

    rec.section("Ransack conditions `q[<attribute>_<predicate>]`")
    read(rec, q(T, f("status_eq", "todo")), "todo tasks (`_eq`)")
    read(rec, q(T, f("status_not_eq", "done")), "every task not done (`_not_eq`)")
    read(rec, q(T, f("project_id_eq", 1)), "the tasks of project 1 (the foreign key)")
    read(rec, q(T, f("assignee_id_eq", 3)), "Chiara's tasks")
    read(rec, q(T, f("status_eq", "todo"), f("project_id_eq", 2)), "project 2's todo tasks (two conditions)")
    read(rec, q(T, f("priority_eq", 3)), "priority 3")
    read(rec, q(T, f("priority_gteq", 2)), "priority 2 or more (`_gteq`)")
    read(rec, q(T, f("priority_lt", 2)), "priority below 2 (`_lt`)")
    read(rec, q(T, f("estimate_gt", 5)), "estimates above 5 hours (`_gt`)")
    read(rec, q(T, f("title_cont", "api")), "titles containing `api` (`_cont`: SQLite's LIKE, any case)")
    read(rec, q(T, f("title_start", "Fix")), "titles starting `Fix` (`_start`)")
    read(rec, q(T, *many("status_in", "doing", "done")), "status doing or done (`_in` with `[]`)")
    read(rec, q(T, f("due_null", "true")), "tasks without a due date (`_null`)")
    read(rec, q(T, f("assignee_id_null", "true")), "tasks nobody is assigned")
    read(rec, q(T, f("due_gteq", "2026-12-05")), "due on 5 December or later (dates compare)")
    read(rec, q(T, f("project_code_eq", "WEB")), "tasks of the project coded WEB (through the association)")
    read(rec, q(T, f("assignee_role_eq", "designer")), "tasks of designers (through `assignee`)")
    read(rec, q(H, f("role_eq", "engineer")), "the engineers")
    read(rec, q(P, f("active_eq", "false")), "inactive projects (a boolean)")
    read(rec, q(P, *many("code_in", "OPS", "DAT")), "projects coded OPS or DAT")
    read(rec, q(P, f("budget_gteq", 80)), "projects with a budget of 80 or more")


def build_sorts(rec: Recorder) -> None:
    rec.section("Sorts (`q[s]=<attribute> <asc|desc>`, `q[s][]` for several keys)")
    read(rec, q(T, *s("priority asc")), "tasks by priority")
    read(rec, q(T, *s("title desc")), "tasks by title descending")
    read(rec, q(T, *s("priority desc", "title asc")), "by priority descending, then title")
    read(rec, q(T, *s("due asc")), "by due date (no date first: SQLite's NULLs first)")
    read(rec, q(H, *s("name desc")), "people by name descending")
    read(rec, q(P, *s("budget desc")), "projects by budget descending")


def build_pages(rec: Recorder) -> None:
    rec.section("Pages (`page`, `per_page`)")
    follow(rec, q(T, ("per_page", 6)), "tasks 6 a page")
    follow(rec, q(T, f("status_eq", "todo"), ("per_page", 3)), "todo tasks 3 a page")
    read(rec, q(T, *s("title asc"), ("page", 2), ("per_page", 4)), "by title, the second page of 4")
    read(rec, q(T, ("page", 3)), "a page past the end: 200 `[]` (`Link` first and prev only)")
    read(rec, q(T, f("status_eq", "todo"), *s("title asc"), ("per_page", 4)), "todo tasks by title, 4 a page")


def build_items(rec: Recorder) -> None:
    rec.section("Items, the nested route and errors")
    read(rec, at(T, 1), "task 1 (every column, ids of the project and the assignee)")
    read(rec, at(T, 3), "task 3 (nobody assigned, no due date, no estimate: `null`)")
    read(rec, at(P, 2), "project 2")
    read(rec, at(H, 3), "person 3 (Chiara)")
    read(rec, nested(1), "project 1's tasks (the nested route, paginated too)")
    read(rec, nested(3), "project 3's tasks")
    read(rec, q(nested(2), f("status_eq", "todo")), "project 2's todo tasks (ransack on the nested route)")
    read(rec, at(T, 99), "a task that does not exist: 404 `{status, error}`", expect=404)
    read(rec, at(P, 9), "a project that does not exist: 404", expect=404)
    read(rec, "/invoices", "a route the app does not have: 404", expect=404)


def build_task_writes(rec: Recorder) -> None:
    rec.section("Create a task, PATCH it, PUT it, delete it")
    r = send(rec, "POST", T, "create a task in project 1 for Bruno: 201 with the next id and `Location`",
             {"title": "Tune the alert thresholds", "status": "todo", "priority": 1, "estimate": 4,
              "project_id": 1, "assignee_id": 2, "due": "2026-12-12"}, 201)
    tid = new_id(r)
    read(rec, at(T, tid), "read it")
    read(rec, q(T, f("project_id_eq", 1)), "project 1's tasks: the new one listed")
    read(rec, q(T, f("assignee_id_eq", 2)), "Bruno's tasks: one more")
    send(rec, "PATCH", at(T, tid), "PATCH the priority and the status", {"priority": 3, "status": "doing"})
    read(rec, at(T, tid), "read it: priority 3, doing")
    read(rec, q(T, f("priority_eq", 3)), "priority 3: listed")
    send(rec, "PUT", at(T, tid), "PUT: project 3, nobody assigned, no due date",
         {"title": "Tune the alert rules", "status": "doing", "priority": 3, "estimate": 6, "project_id": 3,
          "assignee_id": None, "due": None})
    read(rec, at(T, tid), "read it")
    read(rec, nested(3), "project 3's tasks: listed")
    read(rec, q(T, f("project_id_eq", 1)), "project 1's: no longer")
    send(rec, "PATCH", at(T, 2), "PATCH a seeded task: task 2 done", {"status": "done"})
    read(rec, at(T, 2), "read it")
    read(rec, q(T, f("status_eq", "done")), "done tasks: 1, 2, 7, 11, 13")
    bare(rec, "DELETE", at(T, tid), "DELETE the new task: 204", 204)
    read(rec, at(T, tid), "it is gone: 404", expect=404)
    read(rec, nested(3), "project 3's tasks without it")
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
    read(rec, q(H, f("role_eq", "designer")), "the designers: Femi listed")
    send(rec, "PUT", at(H, pid), "PUT a new name and email", {"name": "Femi A. Adeyemi", "email": "fa@example.test",
                                                               "role": "designer"})
    read(rec, at(H, pid), "read Femi")
    bare(rec, "DELETE", at(H, pid), "delete Femi", 204)
    read(rec, at(H, pid), "Femi is gone: 404", expect=404)
    bare(rec, "DELETE", at(H, 5), "delete Esme, a seeded person (her tasks lose the assignee: `nullify`)", 204)
    read(rec, at(T, 7), "task 7, Esme's: nobody assigned")
    read(rec, q(T, f("assignee_id_null", "true")), "tasks nobody is assigned: 7 and 12 added")
    read(rec, q(H, *s("name asc")), "people: four")

    rec.section("A project: create, patch, put, delete (its tasks with it)")
    r = send(rec, "POST", P, "create project Search", {"code": "SRC", "name": "Search Index", "budget": 25}, 201)
    prj = new_id(r)
    read(rec, P, "projects: five")
    r = send(rec, "POST", nested(prj), "a task in it", {"title": "Benchmark the tokenizer", "priority": 1}, 201)
    ptask = new_id(r)
    read(rec, nested(prj), "the new project's tasks")
    read(rec, q(T, f("project_code_eq", "SRC")), "tasks of the project coded SRC")
    send(rec, "PATCH", at(P, prj), "raise its budget", {"budget": 95})
    read(rec, q(P, f("budget_gteq", 80)), "projects with a budget of 80 or more: listed")
    send(rec, "PUT", at(P, prj), "PUT it inactive", {"code": "SRC", "name": "Search Index", "budget": 95,
                                                      "active": False})
    read(rec, at(P, prj), "read it")
    bare(rec, "DELETE", at(P, prj), "delete the project (its task goes with it: `dependent: :destroy`)", 204)
    read(rec, P, "projects: four again")
    read(rec, at(T, ptask), "its task is gone: 404", expect=404)
    read(rec, q(T, f("project_code_eq", "SRC")), "no tasks coded SRC any more")


def build_refusals(rec: Recorder) -> None:
    rec.section("Refusals")
    send(rec, "POST", T, "a task without a title and a project: 422 with the field errors", {"priority": 3}, 422)
    send(rec, "POST", T, "a status that is not in the list: 422",
         {"title": "Archive the logs", "project_id": 1, "status": "blocked"}, 422)
    send(rec, "POST", P, "a project code already taken: 422", {"code": "OPS", "name": "Ops Again"}, 422)
    send(rec, "PATCH", at(T, 4), "a priority above 3: 422", {"priority": 7}, 422)
    read(rec, at(T, 4), "task 4 unchanged")
    send(rec, "PATCH", at(T, 99), "PATCH a task that does not exist: 404", {"status": "done"}, 404)
    bare(rec, "DELETE", at(T, 99), "DELETE a task that does not exist: 404", 404)


def scenario_build(rec: Recorder) -> None:
    build_lists(rec)
    build_sorts(rec)
    build_pages(rec)
    build_items(rec)
    build_task_writes(rec)
    build_other_writes(rec)
    build_refusals(rec)


# ---------------------------------------------------------------- probe-reads
def probe_filters(rec: Recorder) -> None:
    rec.section("Other values, attributes, predicates and combinations")
    read(rec, q(T, f("status_eq", "doing")), "status doing")
    read(rec, q(T, f("project_id_eq", 3)), "project 3's tasks")
    read(rec, q(T, f("assignee_id_eq", 5)), "Esme's tasks")
    read(rec, q(T, f("assignee_id_eq", 1), f("status_eq", "todo")), "Ada's todo tasks")
    read(rec, q(T, f("priority_gt", 1)), "priority above 1 (`_gt` on the priority)")
    read(rec, q(T, f("priority_lteq", 1)), "priority 1 or less")
    read(rec, q(T, f("estimate_gteq", 8)), "estimates of 8 hours or more")
    read(rec, q(T, f("estimate_lt", 3)), "estimates below 3 hours")
    read(rec, q(T, f("title_cont", "THE")), "titles containing `THE` (any case)")
    read(rec, q(T, f("title_end", "page")), "titles ending `page` (`_end`, never in the build)")
    read(rec, q(T, f("title_not_cont", "the")), "titles without `the` (`_not_cont`, never in the build)")
    read(rec, q(T, *many("status_in", "todo")), "`_in` with one value")
    read(rec, q(T, *many("status_not_in", "done", "doing")), "`_not_in` (never in the build)")
    read(rec, q(T, *many("priority_in", 1, 3)), "priority 1 or 3 (`_in` on a number)")
    read(rec, q(T, f("due_not_null", "true")), "tasks with a due date (`_not_null`)")
    read(rec, q(T, f("estimate_null", "true")), "tasks without an estimate")
    read(rec, q(T, f("due_lteq", "2026-12-01")), "due on 1 December or before")
    read(rec, q(T, f("project_code_eq", "DAT")), "tasks of the project coded DAT")
    read(rec, q(T, f("project_code_eq", "OPS"), f("status_eq", "todo")), "OPS's todo tasks")
    read(rec, q(T, f("project_active_eq", "false")), "tasks of inactive projects (a boolean through the association)")
    read(rec, q(T, f("assignee_role_eq", "manager")), "tasks of managers")
    read(rec, q(H, f("email_null", "true")), "people without an email")
    read(rec, q(H, f("role_eq", "designer")), "the designers")
    read(rec, q(H, f("name_start", "D")), "people whose name starts `D`")
    read(rec, q(P, f("active_eq", "true")), "active projects")
    read(rec, q(P, f("budget_lt", 80)), "projects with a budget below 80")
    read(rec, q(P, f("code_eq", "MOB")), "the project coded MOB")
    read(rec, q(P, f("name_cont", "lake")), "projects whose name contains `lake`")


def probe_sorts_pages(rec: Recorder) -> None:
    rec.section("Other sorts and pages")
    read(rec, q(T, *s("due desc")), "by due date descending")
    read(rec, q(T, *s("status asc", "priority desc")), "by status, then priority descending")
    read(rec, q(T, *s("estimate asc")), "by estimate ascending")
    read(rec, q(H, *s("email asc")), "people by email (no email first)")
    read(rec, q(P, *s("code asc")), "projects by code")
    read(rec, q(T, f("status_eq", "done"), *s("priority desc")), "done tasks by priority descending")
    read(rec, q(T, *s("title asc"), ("page", 3), ("per_page", 5)), "by title, the third page of 5")
    read(rec, q(T, ("page", 2), ("per_page", 4)), "tasks 4 a page: page 2")
    read(rec, q(T, ("page", 4), ("per_page", 4)), "tasks 4 a page: page 4, the last")
    read(rec, q(T, ("per_page", 100)), "`per_page` above the limit: 50")
    read(rec, q(T, f("priority_eq", 2), ("page", 2), ("per_page", 2)), "priority 2, the second page of 2")
    read(rec, q(P, ("page", 2), ("per_page", 3)), "projects 3 a page: page 2")
    read(rec, q(H, ("page", 4), ("per_page", 2)), "people 2 a page: a page past the end, `[]`")


def probe_items(rec: Recorder) -> None:
    rec.section("Other items, nested lists and errors")
    read(rec, at(T, 9), "task 9")
    read(rec, at(T, 16), "task 16 (no due date)")
    read(rec, at(P, 4), "project 4")
    read(rec, at(H, 5), "person 5 (no email)")
    read(rec, nested(4), "project 4's tasks")
    read(rec, q(nested(2), f("priority_eq", 3)), "project 2's priority 3 tasks")
    read(rec, q(nested(1), *s("priority desc")), "project 1's tasks by priority descending")
    read(rec, at(T, 0), "task 0: 404", expect=404)
    read(rec, at(H, 99), "person 99: 404", expect=404)
    read(rec, nested(77), "project 77's tasks: 404", expect=404)
    read(rec, q(T, f("colour_eq", "red")), "an unknown attribute: ignored (ransack's default), every task")


def scenario_probe_reads(rec: Recorder) -> None:
    probe_filters(rec)
    probe_sorts_pages(rec)
    probe_items(rec)


# ---------------------------------------------------------------- probe-crud
def probe_crud_tasks(rec: Recorder) -> None:
    rec.section("A task created, patched, put into another project, deleted")
    r = send(rec, "POST", T, "create a task in project 2 for Ada",
             {"title": "Audit the coupon codes", "status": "todo", "priority": 2, "estimate": 3,
              "project_id": 2, "assignee_id": 1}, 201)
    tid = new_id(r)
    read(rec, at(T, tid), "read it")
    read(rec, q(T, f("project_id_eq", 2)), "project 2's tasks: listed")
    send(rec, "PATCH", at(T, tid), "give it a due date", {"due": "2026-12-24"})
    read(rec, q(T, f("due_gteq", "2026-12-20")), "due on 20 December or later: listed")
    send(rec, "PUT", at(T, tid), "PUT it into project 4 for Chiara",
         {"title": "Audit the coupon codes", "status": "doing", "priority": 1, "estimate": 5,
          "project_id": 4, "assignee_id": 3, "due": "2026-12-24"})
    read(rec, nested(4), "project 4's tasks: listed")
    read(rec, q(T, f("assignee_id_eq", 3)), "Chiara's tasks: listed")
    send(rec, "PATCH", at(T, 6), "a seeded task: task 6 doing, for Ada", {"status": "doing", "assignee_id": 1})
    read(rec, at(T, 6), "read it")
    read(rec, q(T, f("status_eq", "doing")), "doing tasks")
    bare(rec, "DELETE", at(T, 10), "delete task 10", 204)
    read(rec, at(T, 10), "it is gone: 404", expect=404)
    read(rec, q(T, ("page", 4), ("per_page", 4)), "tasks 4 a page: the last page")
    r = send(rec, "POST", nested(4), "a task through the nested route of project 4",
             {"title": "Vacuum the warehouse", "priority": 3}, 201)
    read(rec, q(nested(4), *s("priority desc")), "project 4's tasks by priority descending")
    bare(rec, "DELETE", at(T, tid), "delete the created task", 204)
    read(rec, q(T, f("project_code_eq", "DAT")), "DAT's tasks without it")


def probe_crud_people(rec: Recorder) -> None:
    rec.section("A person created, put, patched, deleted; a seeded person deleted")
    r = send(rec, "POST", H, "create a person", {"name": "Hana Ito", "email": "hana@example.test", "role": "manager"},
             201)
    pid = new_id(r)
    read(rec, at(H, pid), "read them")
    read(rec, q(H, f("role_eq", "manager")), "the managers: listed")
    send(rec, "PUT", at(H, pid), "update by PUT", {"name": "Hana Ito", "email": "hito@example.test",
                                                   "role": "engineer"})
    read(rec, q(H, f("role_eq", "engineer")), "the engineers: listed")
    send(rec, "PATCH", at(H, pid), "remove the email", {"email": None})
    read(rec, q(H, f("email_null", "true")), "people without an email: listed")
    bare(rec, "DELETE", at(H, pid), "delete them", 204)
    read(rec, at(H, pid), "they are gone: 404", expect=404)
    bare(rec, "DELETE", at(H, 3), "delete Chiara (her tasks keep no assignee)", 204)
    read(rec, at(T, 4), "task 4: nobody assigned")
    read(rec, q(T, f("assignee_id_null", "true")), "unassigned tasks")


def probe_crud_projects(rec: Recorder) -> None:
    rec.section("A project created, put, deleted")
    r = send(rec, "POST", P, "create a project", {"code": "SEC", "name": "Security Review", "budget": 55,
                                                  "active": False}, 201)
    prj = new_id(r)
    read(rec, at(P, prj), "read it")
    read(rec, q(P, f("active_eq", "false")), "inactive projects: listed")
    send(rec, "PUT", at(P, prj), "update it by PUT", {"code": "SEC", "name": "Security Review", "budget": 75,
                                                      "active": True})
    read(rec, q(P, f("budget_gteq", 75)), "projects with a budget of 75 or more")
    send(rec, "POST", T, "a task in it", {"title": "Scan the dependencies", "project_id": prj, "priority": 3}, 201)
    read(rec, q(T, f("project_code_eq", "SEC")), "tasks of the project coded SEC")
    bare(rec, "DELETE", at(P, prj), "delete it (its task goes with it)", 204)
    read(rec, P, "projects: four")
    read(rec, q(T, f("priority_eq", 3)), "priority 3 tasks: the deleted project's task gone")

    rec.section("Refusals")
    send(rec, "POST", T, "a task without a title or project: 422", {"status": "todo"}, 422)
    send(rec, "POST", T, "a task in a project that does not exist: 422 `must exist`",
         {"title": "Orphan task", "project_id": 99}, 422)
    send(rec, "POST", P, "a project without a code: 422", {"name": "Nameless"}, 422)
    send(rec, "POST", H, "a person with an invalid email: 422", {"name": "Ivo Petrov", "email": "not-an-email"}, 422)
    send(rec, "PATCH", at(P, 1), "a code another project has: 422", {"code": "WEB"}, 422)
    send(rec, "PATCH", at(T, 42), "PATCH a task that does not exist: 404", {"status": "done"}, 404)
    bare(rec, "DELETE", at(H, 42), "DELETE a person who does not exist: 404", 404)

    rec.section("Tasks the build read by id, changed and deleted")
    send(rec, "PATCH", at(T, 1), "task 1 back to todo, assigned to Dmitri", {"status": "todo", "assignee_id": 4})
    read(rec, at(T, 1), "read it")
    read(rec, q(T, f("assignee_id_eq", 4)), "Dmitri's tasks: listed")
    bare(rec, "DELETE", at(T, 3), "delete task 3", 204)
    read(rec, at(T, 3), "it is gone: 404", expect=404)
    follow(rec, T, "all tasks")


def scenario_probe_crud(rec: Recorder) -> None:
    probe_crud_tasks(rec)
    probe_crud_people(rec)
    probe_crud_projects(rec)


SCENARIOS = [("build", scenario_build), ("probe-reads", scenario_probe_reads), ("probe-crud", scenario_probe_crud)]


def gem_env() -> dict:
    """The app's environment: the gems' home under /tmp (ransack) before Debian's, and the Gemfile."""
    import subprocess

    default = subprocess.run(["ruby", "-e", "print Gem.default_path.join(':')"], capture_output=True, text=True,
                             check=True).stdout
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(HERE / "run"), "LANG": "C.UTF-8",
            "GEM_HOME": str(GEMS), "GEM_PATH": f"{GEMS}:{default}", "BUNDLE_GEMFILE": str(HERE / "Gemfile"),
            "RAILS_ENV": "production"}


def main() -> None:
    import readme

    record_app(AppSpec(
        name="rails-ransack", here=HERE, dist="", app_port=APP_PORT, proxy_port=PROXY_PORT,
        command=lambda run: ["ruby", HERE / "app.rb", str(APP_PORT)],
        scenarios=SCENARIOS, render_readme=readme.render, headers={"Accept": "application/json"},
        ready_path=P, env=gem_env(), stop_signal=signal.SIGINT, settle=0.3,
        version=readme.ransack_version,
    ))


if __name__ == "__main__":
    main()
