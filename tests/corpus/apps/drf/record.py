"""Record HAR captures of a project tracker served by plain Django REST framework with
django-filter (no JSON:API); the app is `app.py` in this folder, its seed `seed.py`.

Run through record.sh (it makes the app's venv from requirements.txt and the recorder's venv). For
each capture `app.py` starts fresh on 127.0.0.1 with Django's SQLite in memory and creates the seed
(explicit ids and clocks, a frozen clock for the writes), the scenario runs through the kit's
mitmdump proxy, and both are stopped by PID. Query strings are written as a DRF client writes
them: django-filter lookups as `field__lookup=value` (`priority__gte=2`, `status__in=open,done`
with the commas unencoded, `due__isnull=true`, `project__code=SGB` across the relation),
`ordering=-priority,title`, `search=`, `page`/`page_size` on tasks and `limit`/`offset` on
projects; a value with a space is percent-encoded. Pages are followed through the server's own
absolute `next` URL.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "kit"))

import httpx  # noqa: E402

from harlib import Recorder  # noqa: E402
from json_client import bare, item, q, read, record_venv_app, send  # noqa: E402

APP_PORT = 18871
PROXY_PORT = 18971
VENV = Path(os.environ.get("REA_DRF_VENV", "/tmp/rea-drf-venv"))
APP_CLOCK = "2026-12-06T09:30:00Z"  # app.CLOCK, the frozen clock
P, T, H = "/api/projects/", "/api/tasks/", "/api/people/"


# ---------------------------------------------------------------- helpers


def follow(rec: Recorder, path: str, what: str) -> None:
    """Read `path`, then follow the answer's absolute `next` URL to the last page."""
    r = read(rec, path, f"{what}: the first page")
    page = 2
    while r.json().get("next"):
        r = read(rec, r.json()["next"].removeprefix(rec.base_url), f"{what}: page {page} from `next`")
        page += 1


# ---------------------------------------------------------------- build
def build_lists(rec: Recorder) -> None:
    rec.section("Collections (tasks 10 a page by number, projects by limit/offset, people a plain array)")
    follow(rec, T, "all 14 tasks")
    read(rec, P, "all projects (`count`, `next`, `previous`, `results`; the default limit 10)")
    read(rec, H, "all people (a plain array)")

    rec.section("django-filter: equality and lookups")
    read(rec, q(T, ("status", "open")), "open tasks")
    read(rec, q(T, ("project", 1)), "the tasks of project 1 (the primary key)")
    read(rec, q(T, ("assignee", 3)), "Lena's tasks")
    read(rec, q(T, ("status", "open"), ("project", 2)), "project 2's open tasks (two fields)")
    read(rec, q(T, ("priority", 3)), "priority 3 (exact)")
    read(rec, q(T, ("priority__gte", 2)), "priority 2 or more (`__gte`)")
    read(rec, q(T, ("priority__lt", 2)), "priority below 2 (`__lt`)")
    read(rec, q(T, ("status", "open"), ("priority__lte", 2)), "open tasks of priority 2 or less (`__lte`)")
    read(rec, q(T, ("title__icontains", "wall")), "titles containing `wall`, any case (`__icontains`)")
    read(rec, q(T, ("title__startswith", "Order")), "titles starting `Order` (`__startswith`)")
    read(rec, q(T, ("status__in", "doing,done")), "status doing or done (`__in`, a comma list)")
    read(rec, q(T, ("due__isnull", "true")), "tasks without a due date (`__isnull`)")
    read(rec, q(T, ("assignee__isnull", "true")), "tasks nobody is assigned")
    read(rec, q(T, ("due__gte", "2026-12-05")), "due on 5 December or later (dates compare)")
    read(rec, q(T, ("project__code", "SGB")), "tasks of the project coded SGB (across the relation)")
    read(rec, q(H, ("role", "engineer")), "the engineers")
    read(rec, q(H, ("name__icontains", "ko")), "people whose name contains `ko`")
    read(rec, q(P, ("active", "false")), "inactive projects (a boolean)")
    read(rec, q(P, ("code__in", "HBW,GLS")), "projects coded HBW or GLS")
    read(rec, q(P, ("budget__gte", 60)), "projects with a budget of 60 or more")


def build_orders(rec: Recorder) -> None:
    rec.section("OrderingFilter (`ordering`) and SearchFilter (`search`)")
    read(rec, q(T, ("ordering", "priority")), "tasks by priority (ties by id)")
    read(rec, q(T, ("ordering", "-title")), "tasks by title descending")
    read(rec, q(T, ("ordering", "-priority,title")), "by priority descending, then title")
    read(rec, q(T, ("ordering", "due")), "by due date (no date first)")
    read(rec, q(H, ("ordering", "-name")), "people by name descending")
    read(rec, q(P, ("ordering", "-budget")), "projects by budget descending")
    read(rec, q(T, ("search", "wall")), "search the titles for `wall`")
    read(rec, q(T, ("search", "order"), ("ordering", "-priority")), "search `order`, by priority descending")
    read(rec, q(H, ("search", "lena")), "search people's names and emails for `lena`")
    read(rec, q(P, ("search", "gl")), "search projects' names and codes for `gl`")
    read(rec, q(T, ("status", "open"), ("ordering", "title")), "open tasks by title")


def build_pages(rec: Recorder) -> None:
    rec.section("Pages: `page`/`page_size` on tasks, `limit`/`offset` on projects")
    follow(rec, q(T, ("page_size", 5)), "tasks 5 a page")
    follow(rec, q(T, ("status", "open"), ("page_size", 3)), "open tasks 3 a page")
    read(rec, q(T, ("ordering", "title"), ("page", 2), ("page_size", 4)), "by title, the second page of 4")
    follow(rec, q(P, ("limit", 2)), "projects 2 at a time")
    read(rec, q(P, ("limit", 2), ("offset", 1)), "projects: 2 from the second")
    read(rec, q(T, ("page", 9)), "a page past the end: 404 `Invalid page.`", expect=404)


def build_items(rec: Recorder) -> None:
    rec.section("Items, the nested action route and errors")
    read(rec, item(T, 1), "task 1 (its assignee nested)")
    read(rec, item(T, 3), "task 3 (nobody assigned, no due date: `null`)")
    read(rec, item(T, 4), "task 4")
    read(rec, item(P, 2), "project 2")
    read(rec, item(H, 3), "person 3 (Lena)")
    read(rec, item(P, 1, "tasks/"), "project 1's tasks (the detail action: a plain array)")
    read(rec, item(P, 3, "tasks/"), "project 3's tasks")
    read(rec, item(T, 99), "a task that does not exist: 404", expect=404)
    read(rec, item(H, 42), "a person who does not exist: 404", expect=404)
    read(rec, item(P, 9), "a project that does not exist: 404", expect=404)
    read(rec, "/api/invoices/", "a route the app does not have: 404 (Django's HTML page)", expect=404)


def build_task_writes(rec: Recorder) -> None:
    rec.section("Create a task, PATCH it, PUT it, close a seeded task, delete the new one")
    r = send(rec, "POST", T, "create a task in project 1 for Kofi: 201, the created task with the next id",
             {"title": "Check the tide tables", "status": "open", "priority": 1, "project": 1,
              "assignee_id": 2, "due": "2026-12-12"}, 201)
    tid = r.json()["id"]
    read(rec, item(T, tid), "read it")
    read(rec, q(T, ("project", 1)), "project 1's tasks: the new one is listed")
    read(rec, q(T, ("assignee", 2)), "Kofi's tasks: one more")
    send(rec, "PATCH", item(T, tid), "PATCH the priority: the updated task", {"priority": 3})
    read(rec, item(T, tid), "read it: priority 3")
    read(rec, q(T, ("priority", 3)), "priority 3: listed")
    send(rec, "PUT", item(T, tid), "PUT: project 3, nobody assigned, no due date",
         {"title": "Check the tide charts", "status": "doing", "priority": 3, "project": 3,
          "assignee_id": None, "due": None})
    read(rec, item(T, tid), "read it")
    read(rec, item(P, 3, "tasks/"), "project 3's tasks: listed")
    read(rec, q(T, ("project", 1)), "project 1's: no longer")
    bare(rec, "POST", item(T, 2, "close/"), "close task 2 (the action): status done, `closed_at` the clock")
    read(rec, item(T, 2), "read it")
    read(rec, q(T, ("status", "done")), "done tasks: 1, 2, 7, 11, 13")
    bare(rec, "DELETE", item(T, tid), "DELETE the new task: 204", 204)
    read(rec, item(T, tid), "it is gone: 404", expect=404)
    read(rec, item(P, 3, "tasks/"), "project 3's tasks without it")


def build_other_writes(rec: Recorder) -> None:
    rec.section("A person and a project: create, patch, delete")
    r = send(rec, "POST", H, "create person Noor", {"name": "Noor Haddad", "role": "engineer",
                                                    "email": "noor@example.test"}, 201)
    pid = r.json()["id"]
    read(rec, item(H, pid), "read Noor")
    send(rec, "PATCH", item(H, pid), "change the role", {"role": "designer"})
    read(rec, q(H, ("role", "designer")), "the designers: Noor listed")
    bare(rec, "DELETE", item(H, pid), "delete Noor", 204)
    read(rec, item(H, pid), "Noor is gone: 404", expect=404)
    read(rec, q(H, ("ordering", "name")), "people: five again")
    r = send(rec, "POST", P, "create project Boathouse", {"code": "BTH", "name": "Boathouse", "budget": 25}, 201)
    prj = r.json()["id"]
    read(rec, P, "projects: five")
    send(rec, "POST", T, "a task in it (status and priority default)",
         {"title": "Measure the moorings", "project": prj}, 201)
    read(rec, item(P, prj, "tasks/"), "the new project's tasks")
    read(rec, q(T, ("project__code", "BTH")), "tasks of the project coded BTH")
    send(rec, "PATCH", item(P, prj), "raise its budget", {"budget": 90})
    read(rec, q(P, ("budget__gte", 60)), "projects with a budget of 60 or more: listed")
    bare(rec, "DELETE", item(P, prj), "delete the project (its task goes with it: CASCADE)", 204)
    read(rec, P, "projects: four again")
    read(rec, q(T, ("project__code", "BTH")), "no tasks coded BTH any more")


def build_refusals(rec: Recorder) -> None:
    rec.section("Refusals")
    send(rec, "POST", T, "a task without a title and a project: 400 with the field errors", {"priority": 3}, 400)
    send(rec, "POST", H, "a person without a name: 400", {"role": "engineer"}, 400)
    send(rec, "PATCH", item(T, 99), "PATCH a task that does not exist: 404", {"status": "done"}, 404)
    bare(rec, "DELETE", item(T, 99), "DELETE a task that does not exist: 404", 404)
    bare(rec, "POST", item(T, 99, "close/"), "close a task that does not exist: 404", 404)
    read(rec, q(T, ("priority__gte", "high")), "a lookup value that is not a number: 400", expect=400)


def scenario_build(rec: Recorder) -> None:
    build_lists(rec)
    build_orders(rec)
    build_pages(rec)
    build_items(rec)
    build_task_writes(rec)
    build_other_writes(rec)
    build_refusals(rec)


# ---------------------------------------------------------------- probe-reads
def probe_filters(rec: Recorder) -> None:
    rec.section("Other values, fields, lookups and combinations")
    read(rec, q(T, ("status", "doing")), "status doing")
    read(rec, q(T, ("project", 3)), "project 3's tasks")
    read(rec, q(T, ("assignee", 5)), "Aiko's tasks")
    read(rec, q(T, ("assignee", 1), ("status", "open")), "Ines's open tasks")
    read(rec, q(T, ("priority", 1)), "priority 1")
    read(rec, q(T, ("priority__gt", 1)), "priority above 1 (`__gt`, a lookup the build never used)")
    read(rec, q(T, ("priority__lte", 1)), "priority 1 or less")
    read(rec, q(T, ("priority__gte", 3)), "priority 3 or more")
    read(rec, q(T, ("priority__lt", 3), ("status", "doing")), "doing tasks of priority below 3")
    read(rec, q(T, ("title__icontains", "THE")), "titles containing `THE`, any case")
    read(rec, q(T, ("title__startswith", "Paint")), "titles starting `Paint`")
    read(rec, q(T, ("status__in", "open")), "`__in` with one value")
    read(rec, q(T, ("status__in", "open,doing")), "status open or doing")
    read(rec, q(T, ("due__isnull", "false")), "tasks with a due date")
    read(rec, q(T, ("due__lte", "2026-12-01")), "due on 1 December or before")
    read(rec, q(T, ("assignee__isnull", "false"), ("priority__lt", 3)), "assigned tasks of priority below 3")
    read(rec, q(T, ("project__code", "GLS")), "tasks of the project coded GLS")
    read(rec, q(T, ("project__code", "HBW"), ("status", "open")), "open tasks of HBW")
    read(rec, q(H, ("role", "designer")), "the designers")
    read(rec, q(H, ("role", "intern")), "a role nobody has: empty")
    read(rec, q(H, ("email__isnull", "true")), "people without an email")
    read(rec, q(H, ("name__icontains", "SAT")), "people whose name contains `SAT`, any case")
    read(rec, q(P, ("active", "true")), "active projects")
    read(rec, q(P, ("budget__lte", 60)), "projects with a budget of 60 or less")
    read(rec, q(P, ("code", "FRR")), "a project by code")


def probe_orders(rec: Recorder) -> None:
    rec.section("Other orderings and searches")
    read(rec, q(T, ("ordering", "-priority")), "by priority descending")
    read(rec, q(T, ("ordering", "title")), "by title")
    read(rec, q(T, ("ordering", "status,-priority")), "by status, then priority descending")
    read(rec, q(T, ("ordering", "-due")), "by due date descending (no date last)")
    read(rec, q(H, ("ordering", "email")), "people by email (no email first)")
    read(rec, q(P, ("ordering", "name")), "projects by name")
    read(rec, q(T, ("search", "ramp")), "search the titles for `ramp`")
    read(rec, q(T, ("search", "the bell")), "search two words: both must match")
    read(rec, q(T, ("search", "GRANITE")), "search in capitals")
    read(rec, q(T, ("search", "the"), ("ordering", "-title")), "search `the`, by title descending")
    read(rec, q(H, ("search", "kofi")), "search people for `kofi`")
    read(rec, q(P, ("search", "sign")), "search projects for `sign`")
    read(rec, q(T, ("status", "done"), ("ordering", "-priority,title")), "done tasks by priority descending, then title")


def probe_pages(rec: Recorder) -> None:
    rec.section("Other pages")
    read(rec, q(T, ("page", 2)), "the second page of 10")
    read(rec, q(T, ("page", 2), ("page_size", 4)), "the second page of 4 (asked directly)")
    follow(rec, q(T, ("ordering", "-title"), ("page_size", 6)), "by title descending, 6 a page")
    follow(rec, q(T, ("status__in", "open,doing"), ("page_size", 3)), "open or doing, 3 a page")
    read(rec, q(T, ("page", 5)), "a page past the end: 404", expect=404)
    read(rec, q(P, ("limit", 3)), "projects: the first 3")
    read(rec, q(P, ("limit", 2), ("offset", 2)), "projects: 2 from the third")
    read(rec, q(P, ("ordering", "-budget"), ("limit", 2), ("offset", 1)), "by budget descending, 2 from the second")


def probe_items(rec: Recorder) -> None:
    rec.section("Other items, action routes and errors")
    for tid in (2, 8, 12, 14):
        read(rec, item(T, tid), f"task {tid}")
    read(rec, item(P, 4), "project 4")
    read(rec, item(H, 2), "person 2 (Kofi)")
    read(rec, item(H, 5), "person 5 (no email)")
    read(rec, item(P, 2, "tasks/"), "project 2's tasks")
    read(rec, item(P, 4, "tasks/"), "project 4's tasks")
    read(rec, item(T, 42), "a task that does not exist: 404", expect=404)
    read(rec, item(P, 7), "a project that does not exist: 404", expect=404)
    read(rec, item(H, 99), "a person who does not exist: 404", expect=404)
    read(rec, item(P, 9, "tasks/"), "the tasks of a project that does not exist: 404", expect=404)


def scenario_probe_reads(rec: Recorder) -> None:
    probe_filters(rec)
    probe_orders(rec)
    probe_pages(rec)
    probe_items(rec)


# ---------------------------------------------------------------- probe-crud
def probe_crud_tasks(rec: Recorder) -> None:
    rec.section("A task created, patched, put and closed; seeded tasks closed and deleted")
    r = send(rec, "POST", T, "create a task in project 2 for Ines",
             {"title": "Test the sprinklers", "status": "doing", "priority": 2, "project": 2, "assignee_id": 1}, 201)
    tid = r.json()["id"]
    read(rec, item(T, tid), "read it")
    read(rec, q(T, ("project", 2)), "project 2's tasks: listed")
    read(rec, q(T, ("assignee", 1), ("status", "doing")), "Ines's doing tasks: listed")
    send(rec, "PATCH", item(T, tid), "PATCH the title and a due date", {"title": "Test the misters", "due": "2026-12-30"})
    read(rec, item(T, tid), "read it")
    read(rec, q(T, ("due__gte", "2026-12-20")), "due from 20 December: listed")
    send(rec, "PUT", item(T, tid), "PUT moves it to project 4 for Aiko (the due date not sent: kept)",
         {"title": "Test the misters", "status": "open", "priority": 1, "project": 4, "assignee_id": 5})
    read(rec, item(T, tid), "read it")
    read(rec, item(P, 4, "tasks/"), "project 4's tasks")
    read(rec, q(T, ("assignee", 5), ("ordering", "-priority")), "Aiko's tasks by priority descending: listed")
    bare(rec, "POST", item(T, 6, "close/"), "close task 6")
    read(rec, item(T, 6), "read it")
    read(rec, q(T, ("status", "done"), ("ordering", "-priority")), "done tasks by priority descending")
    bare(rec, "POST", item(T, tid, "close/"), "close the new task")
    read(rec, q(T, ("project", 4), ("status__in", "open,doing")), "project 4's open or doing tasks: not it")
    bare(rec, "DELETE", item(T, 5), "delete task 5", 204)
    read(rec, item(T, 5), "it is gone: 404", expect=404)
    read(rec, item(P, 2, "tasks/"), "project 2's tasks without it")
    follow(rec, q(T, ("ordering", "title"), ("page_size", 4)), "tasks by title, 4 a page, after the writes")


def probe_crud_people(rec: Recorder) -> None:
    rec.section("A person created, changed, deleted; a seeded person deleted (their tasks unassigned)")
    r = send(rec, "POST", H, "create a person", {"name": "Oskar Lind", "role": "manager",
                                                 "email": "oskar@example.test"}, 201)
    pid = r.json()["id"]
    read(rec, item(H, pid), "read them")
    read(rec, q(H, ("role", "manager")), "the managers: listed")
    send(rec, "PATCH", item(H, pid), "a new email", {"email": "oskar.lind@example.test"})
    read(rec, item(H, pid), "read them")
    send(rec, "PUT", item(H, pid), "PUT a new role (no email sent: kept)", {"name": "Oskar Lind", "role": "engineer"})
    read(rec, q(H, ("role", "engineer")), "the engineers: listed")
    bare(rec, "DELETE", item(H, pid), "delete them", 204)
    read(rec, item(H, pid), "they are gone: 404", expect=404)
    bare(rec, "DELETE", item(H, 3), "delete Lena (SET_NULL: her tasks keep no assignee)", 204)
    read(rec, item(T, 4), "task 4: nobody assigned")
    read(rec, q(T, ("assignee__isnull", "true")), "unassigned tasks")
    read(rec, H, "people: four")


def probe_crud_projects(rec: Recorder) -> None:
    rec.section("A project created, put, deleted")
    r = send(rec, "POST", P, "create a project", {"code": "WTR", "name": "Water Tower", "budget": 55, "active": False}, 201)
    prj = r.json()["id"]
    read(rec, item(P, prj), "read it")
    read(rec, q(P, ("active", "false")), "inactive projects: listed")
    send(rec, "PUT", item(P, prj), "update it by PUT", {"code": "WTR", "name": "Water Tower", "budget": 70, "active": True})
    read(rec, q(P, ("budget__gte", 70)), "projects with a budget of 70 or more")
    send(rec, "POST", T, "a task in it", {"title": "Paint the tank", "project": prj, "priority": 3}, 201)
    read(rec, q(T, ("project__code", "WTR")), "tasks of the project coded WTR")
    bare(rec, "DELETE", item(P, prj), "delete it (its task goes with it)", 204)
    read(rec, P, "projects: four")
    read(rec, q(T, ("priority", 3)), "priority 3 tasks: the deleted project's task gone")

    rec.section("Refusals")
    send(rec, "POST", T, "a task without a title or project: 400", {"status": "open"}, 400)
    send(rec, "POST", P, "a project without a code: 400", {"name": "Nameless"}, 400)
    send(rec, "PATCH", item(T, 42), "PATCH a task that does not exist: 404", {"status": "done"}, 404)
    bare(rec, "DELETE", item(H, 42), "DELETE a person who does not exist: 404", 404)
    bare(rec, "POST", item(T, 42, "close/"), "close a task that does not exist: 404", 404)

    rec.section("Tasks the build read by id, changed and deleted")
    send(rec, "PATCH", item(T, 4), "task 4 done, assigned to Marco", {"status": "done", "assignee_id": 4})
    read(rec, item(T, 4), "read it")
    read(rec, q(T, ("assignee", 4)), "Marco's tasks: listed")
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

    record_venv_app("drf", HERE, VENV, (APP_PORT, PROXY_PORT), P, SCENARIOS, readme.render,
                    "djangorestframework")


if __name__ == "__main__":
    main()
