"""Record HAR captures of a project tracker served by piccolo-api's PiccoloCRUD; the app is
`app.py` in this folder, its seed `seed.py`.

Run through record.sh (it makes the app's venv from requirements.txt and the recorder's venv). For
each capture `app.py` starts fresh on 127.0.0.1 with a new SQLite file and creates the seed
(explicit ids and clocks, a fixed default clock for a created task), the scenario runs through the
kit's mitmdump proxy, and both are stopped by PID. Query strings are written as a PiccoloCRUD
client writes them: a field's own name with its value (`status=open`; on a text column a
case-blind `contains` match unless `title__match=starts|ends|exact` says otherwise), an operator
as a parameter of its own (`priority=2&priority__operator=gte`, `due__operator=is_null` without a
value), `__order=-priority,title`, `__page`/`__page_size`, `__visible_fields=id,title` and
`__readable=true`; a value with a space is percent-encoded, commas kept. PiccoloCRUD answers no
page links: the client asks each page by number.
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

APP_PORT = 18877
PROXY_PORT = 18977
VENV = Path(os.environ.get("REA_PICCOLO_VENV", "/tmp/rea-piccolo-venv"))
APP_CLOCK = "2026-12-06T09:30:00"  # app.CLOCK, a created task's `created_at`
P, T, H = "/api/projects/", "/api/tasks/", "/api/people/"


# ---------------------------------------------------------------- helpers
def op(field: str, value, operator: str) -> tuple:
    """The pairs of a comparison: the field's value and its operator as a parameter of its own."""
    return (field, value), (f"{field}__operator", operator)


def created_id(r: httpx.Response) -> int:
    """A create answers `[{"id": N}]`: the new row's id."""
    return r.json()[0]["id"]


def task(title: str, project: int, *, status="open", priority=2, due=None, assignee=None) -> dict:
    """A task's whole body (PiccoloCRUD sends a field left out as null, which the table refuses)."""
    return {"title": title, "status": status, "priority": priority, "due": due, "project": project,
            "assignee": assignee}


# ---------------------------------------------------------------- build
def build_lists(rec: Recorder) -> None:
    rec.section("Collections (newest first; tasks 6 a page, projects and people 15)")
    read(rec, T, "the first page of tasks: `{rows}`, the 6 highest ids")
    read(rec, q(T, ("__page", 2)), "the second page")
    read(rec, q(T, ("__page", 3)), "the third page: the last 2")
    read(rec, P, "all projects")
    read(rec, H, "all people")

    rec.section("Filters: a field's value, `__match` on text, `__operator` on the others")
    read(rec, q(T, ("status", "open")), "open tasks (text: contains, any case)")
    read(rec, q(T, ("project", 1)), "the tasks of project 1 (a foreign key)")
    read(rec, q(T, ("assignee", 3)), "Lena's tasks")
    read(rec, q(T, ("status", "open"), ("project", 2)), "project 2's open tasks (two fields)")
    read(rec, q(T, ("priority", 3)), "priority 3 (equality)")
    read(rec, q(T, *op("priority", 2, "gte")), "priority 2 or more")
    read(rec, q(T, *op("priority", 2, "lt")), "priority below 2")
    read(rec, q(T, ("status", "open"), *op("priority", 2, "lte")), "open tasks of priority 2 or less")
    read(rec, q(T, *op("priority", 2, "ne")), "priority other than 2")
    read(rec, q(T, ("title", "wall")), "titles containing `wall` (the default match)")
    read(rec, q(T, ("title", "Order"), ("title__match", "starts")), "titles starting `Order`")
    read(rec, q(T, ("title", "bolts"), ("title__match", "ends")), "titles ending `bolts`")
    read(rec, q(T, ("status", "done"), ("status__match", "exact")), "status exactly done")
    read(rec, q(T, ("due__operator", "is_null")), "tasks without a due date (no value needed)")
    read(rec, q(T, ("assignee__operator", "is_null")), "tasks nobody is assigned")
    read(rec, q(T, *op("due", "2026-12-05", "gte")), "due on 5 December or later (dates compare)")
    read(rec, q(H, ("role", "engineer")), "the engineers")
    read(rec, q(H, ("name", "ko")), "people whose name contains `ko`")
    read(rec, q(P, ("active", "false")), "inactive projects (a boolean)")
    read(rec, q(P, *op("budget", 60, "gte")), "projects with a budget of 60 or more")


def build_orders(rec: Recorder) -> None:
    rec.section("Orders (`__order`, `-` descending, commas for several keys)")
    read(rec, q(T, ("__order", "priority")), "tasks by priority")
    read(rec, q(T, ("__order", "-title")), "tasks by title descending")
    read(rec, q(T, ("__order", "-priority,title")), "by priority descending, then title")
    read(rec, q(T, ("__order", "due")), "by due date (no date first)")
    read(rec, q(H, ("__order", "-name")), "people by name descending")
    read(rec, q(P, ("__order", "-budget")), "projects by budget descending")
    read(rec, q(T, ("status", "open"), ("__order", "title")), "open tasks by title")


def build_pages(rec: Recorder) -> None:
    rec.section("Pages (`__page`, `__page_size` up to 20)")
    read(rec, q(T, ("__page_size", 4)), "tasks 4 a page")
    read(rec, q(T, ("__page_size", 4), ("__page", 2)), "the second page of 4")
    read(rec, q(T, ("__page_size", 4), ("__page", 4)), "the fourth page of 4: the last 2")
    read(rec, q(T, ("status", "open"), ("__page_size", 3), ("__page", 2)), "open tasks, the second page of 3")
    read(rec, q(T, ("__order", "title"), ("__page", 2), ("__page_size", 5)), "by title, the second page of 5")
    read(rec, q(P, ("__page_size", 2), ("__page", 2)), "projects, the second page of 2")
    read(rec, q(T, ("__page", 9)), "a page past the end: no rows")
    read(rec, q(T, ("__page_size", 50)), "a page larger than 20: 403", expect=403)


def build_shapes(rec: Recorder) -> None:
    rec.section("Visible fields and readable foreign keys")
    read(rec, q(T, ("__visible_fields", "id,title")), "tasks with their id and title only")
    read(rec, q(T, ("__visible_fields", "id,title,status"), ("status", "doing")), "doing tasks, three fields")
    read(rec, q(P, ("__visible_fields", "code,name"), ("__order", "code")), "project codes and names by code")
    read(rec, q(T, ("__readable", "true")), "tasks with `project_readable` and `assignee_readable`")
    read(rec, q(T, ("__readable", "true"), ("project", 4)), "project 4's tasks, readable")
    read(rec, q(item(T, 2), ("__readable", "true")), "task 2, readable")
    read(rec, q(item(T, 5), ("__visible_fields", "id,title,due")), "task 5, three fields")


def build_meta(rec: Recorder) -> None:
    rec.section("Counts, ids, the schema and a new row's defaults")
    read(rec, item(T, "count"), "how many tasks (`{count, page_size}`)")
    read(rec, q(item(T, "count"), ("status", "open")), "how many open tasks")
    read(rec, q(item(T, "count"), *op("priority", 2, "gte")), "how many of priority 2 or more")
    read(rec, item(P, "count"), "how many projects")
    read(rec, item(H, "ids"), "people's ids and names (`{id: readable}`)")
    read(rec, item(P, "ids"), "projects' ids and names")
    read(rec, q(item(T, "ids"), ("search", "wall")), "task ids whose title holds `wall`")
    read(rec, item(T, "new"), "a new task's defaults")
    read(rec, item(P, "schema"), "the project schema (JSON Schema)")


def build_items(rec: Recorder) -> None:
    rec.section("Items and missing ids")
    read(rec, item(T, 1), "task 1")
    read(rec, item(T, 3), "task 3 (nobody assigned, no due date: `null`)")
    read(rec, item(T, 4), "task 4")
    read(rec, item(P, 2), "project 2")
    read(rec, item(H, 3), "person 3 (Lena)")
    read(rec, item(T, 99), "a task that does not exist: 404 (plain text)", expect=404)
    read(rec, item(H, 42), "a person who does not exist: 404", expect=404)
    read(rec, item(P, 9), "a project that does not exist: 404", expect=404)


def build_task_writes(rec: Recorder) -> None:
    rec.section("Create a task, PATCH it, PUT it, delete it")
    r = send(rec, "POST", T, "create a task in project 1 for Kofi: 201 `[{id}]`",
             task("Check the tide tables", 1, priority=1, due="2026-12-12", assignee=2), 201)
    tid = created_id(r)
    read(rec, item(T, tid), "read it")
    read(rec, q(T, ("project", 1)), "project 1's tasks: the new one is listed first")
    read(rec, q(item(T, "count"), ("assignee", 2)), "how many are Kofi's: one more")
    send(rec, "PATCH", item(T, tid), "PATCH the priority: the updated row", {"priority": 3})
    read(rec, item(T, tid), "read it: priority 3")
    read(rec, q(T, ("priority", 3)), "priority 3: listed")
    send(rec, "PUT", item(T, tid), "PUT: project 3, nobody assigned, no due date: 204",
         task("Check the tide charts", 3, status="doing", priority=3), 204)
    read(rec, item(T, tid), "read it")
    read(rec, q(T, ("project", 3)), "project 3's tasks: listed")
    read(rec, q(T, ("project", 1)), "project 1's: no longer")
    bare(rec, "DELETE", item(T, tid), "DELETE the new task: 204", 204)
    read(rec, item(T, tid), "it is gone: 404", expect=404)
    read(rec, item(T, "count"), "how many tasks: 14 again")


def build_other_writes(rec: Recorder) -> None:
    rec.section("A person and a project: create, change, delete")
    r = send(rec, "POST", H, "create person Noor",
             {"name": "Noor Haddad", "email": "noor@example.test", "role": "engineer"}, 201)
    pid = created_id(r)
    read(rec, item(H, pid), "read Noor")
    send(rec, "PATCH", item(H, pid), "change the role", {"role": "designer"})
    read(rec, q(H, ("role", "designer")), "the designers: Noor listed")
    bare(rec, "DELETE", item(H, pid), "delete Noor", 204)
    read(rec, item(H, pid), "Noor is gone: 404", expect=404)
    read(rec, item(H, "count"), "how many people: five again")
    r = send(rec, "POST", P, "create project Boathouse",
             {"code": "BTH", "name": "Boathouse", "budget": 25, "active": True}, 201)
    prj = created_id(r)
    read(rec, P, "projects: five")
    send(rec, "POST", T, "a task in it", task("Measure the moorings", prj), 201)
    read(rec, q(T, ("project", prj)), "the new project's tasks")
    send(rec, "PUT", item(P, prj), "raise its budget (PUT)",
         {"code": "BTH", "name": "Boathouse", "budget": 90, "active": True}, 204)
    read(rec, q(P, *op("budget", 60, "gte")), "projects with a budget of 60 or more: listed")
    bare(rec, "DELETE", item(P, prj), "delete the project (its task goes with it: cascade)", 204)
    read(rec, item(P, "count"), "how many projects: four again")
    read(rec, q(T, ("project", prj)), "no tasks in it any more")


def build_refusals(rec: Recorder) -> None:
    rec.section("Refusals")
    send(rec, "POST", T, "a task without a title and a project: 400 (pydantic's errors, plain text)",
         {"priority": 3}, 400)
    read(rec, q(T, *op("priority", 2, "bigger")), "an operator PiccoloCRUD does not know: 400", expect=400)
    send(rec, "PATCH", item(T, 99), "PATCH a task that does not exist: 404", {"status": "done"}, 404)
    bare(rec, "DELETE", item(T, 99), "DELETE a task that does not exist: 404", 404)


def scenario_build(rec: Recorder) -> None:
    build_lists(rec)
    build_orders(rec)
    build_pages(rec)
    build_shapes(rec)
    build_meta(rec)
    build_items(rec)
    build_task_writes(rec)
    build_other_writes(rec)
    build_refusals(rec)


# ---------------------------------------------------------------- probe-reads
def probe_filters(rec: Recorder) -> None:
    rec.section("Other values, fields, operators and combinations")
    read(rec, q(T, ("status", "doing")), "status doing")
    read(rec, q(T, ("project", 3)), "project 3's tasks")
    read(rec, q(T, ("assignee", 5)), "Aiko's tasks")
    read(rec, q(T, ("assignee", 1), ("status", "open")), "Ines's open tasks")
    read(rec, q(T, ("priority", 1)), "priority 1")
    read(rec, q(T, *op("priority", 1, "gt")), "priority above 1 (`gt`, an operator the build never used)")
    read(rec, q(T, *op("priority", 1, "lte")), "priority 1 or less")
    read(rec, q(T, *op("priority", 3, "gte")), "priority 3 or more")
    read(rec, q(T, *op("priority", 3, "lt"), ("status", "doing")), "doing tasks of priority below 3")
    read(rec, q(T, *op("priority", 2, "e")), "priority 2 (`e`, equality spelled as an operator)")
    read(rec, q(T, ("title", "THE")), "titles containing `THE`, any case")
    read(rec, q(T, ("title", "Paint"), ("title__match", "starts")), "titles starting `Paint`")
    read(rec, q(T, ("title", "wall"), ("title__match", "ends")), "titles ending `wall`")
    read(rec, q(T, ("title", "Fit the vents"), ("title__match", "exact")), "a title exactly")
    read(rec, q(T, ("due__operator", "not_null")), "tasks with a due date")
    read(rec, q(T, *op("due", "2026-12-01", "lte")), "due on 1 December or before")
    read(rec, q(T, ("assignee__operator", "not_null"), *op("priority", 3, "lt")), "assigned tasks below 3")
    read(rec, q(H, ("role", "designer")), "the designers")
    read(rec, q(H, ("role", "intern")), "a role nobody has: no rows")
    read(rec, q(H, ("email__operator", "is_null")), "people without an email")
    read(rec, q(H, ("name", "SAT")), "people whose name contains `SAT`, any case")
    read(rec, q(P, ("active", "true")), "active projects")
    read(rec, q(P, *op("budget", 60, "lte")), "projects with a budget of 60 or less")
    read(rec, q(P, ("code", "FRR"), ("code__match", "exact")), "a project by code")


def probe_orders(rec: Recorder) -> None:
    rec.section("Other orders")
    read(rec, q(T, ("__order", "-priority")), "by priority descending")
    read(rec, q(T, ("__order", "title")), "by title")
    read(rec, q(T, ("__order", "status,-priority")), "by status, then priority descending")
    read(rec, q(T, ("__order", "-due")), "by due date descending")
    read(rec, q(H, ("__order", "email")), "people by email (no email first)")
    read(rec, q(P, ("__order", "name")), "projects by name")
    read(rec, q(T, ("status", "done"), ("__order", "-priority,title")), "done tasks by priority descending, title")
    read(rec, q(T, ("__order", "-priority"), ("__order", "title")), "two keys as two `__order` parameters")


def probe_pages(rec: Recorder) -> None:
    rec.section("Other pages")
    read(rec, q(T, ("__page", 2), ("status", "open")), "open tasks, the second page of 6")
    read(rec, q(T, ("__page_size", 4), ("__page", 3)), "the third page of 4")
    read(rec, q(T, ("__order", "-title"), ("__page_size", 5), ("__page", 2)), "by title descending, page 2 of 5")
    read(rec, q(T, ("status", "open"), ("__page_size", 3)), "open tasks, 3 a page")
    read(rec, q(T, ("__page", 5)), "a page past the end: no rows")
    read(rec, q(P, ("__page_size", 3)), "projects, 3 a page")
    read(rec, q(H, ("__page_size", 2), ("__page", 3)), "people, the third page of 2")
    read(rec, q(P, ("__page_size", 25)), "a page larger than 20: 403", expect=403)


def probe_shapes(rec: Recorder) -> None:
    rec.section("Other visible fields, readable rows, counts, ids")
    read(rec, q(T, ("__visible_fields", "id,priority"), ("__order", "priority")), "ids and priorities by priority")
    read(rec, q(H, ("__visible_fields", "name,role")), "people's names and roles")
    read(rec, q(T, ("__readable", "true"), ("assignee", 4)), "Marco's tasks, readable")
    read(rec, q(item(T, 9), ("__readable", "true")), "task 9, readable")
    read(rec, q(item(T, 7), ("__visible_fields", "title,status")), "task 7, two fields")
    read(rec, q(item(T, "count"), ("status", "done")), "how many done tasks")
    read(rec, q(item(T, "count"), ("project", 2), *op("priority", 2, "gte")), "project 2's of priority 2 or more")
    read(rec, q(item(H, "count"), ("role", "engineer")), "how many engineers")
    read(rec, item(T, "ids"), "every task's id and title")
    read(rec, q(item(T, "ids"), ("search", "order")), "task ids whose title holds `order`")
    read(rec, q(item(P, "ids"), ("limit", 2)), "the first 2 project ids")
    read(rec, item(H, "new"), "a new person's defaults")
    read(rec, item(T, "schema"), "the task schema")


def probe_items(rec: Recorder) -> None:
    rec.section("Other items and missing ids")
    for tid in (2, 8, 12, 14):
        read(rec, item(T, tid), f"task {tid}")
    read(rec, item(P, 4), "project 4")
    read(rec, item(H, 2), "person 2 (Kofi)")
    read(rec, item(H, 5), "person 5 (no email)")
    read(rec, item(T, 42), "a task that does not exist: 404", expect=404)
    read(rec, item(P, 7), "a project that does not exist: 404", expect=404)
    read(rec, item(H, 99), "a person who does not exist: 404", expect=404)


def scenario_probe_reads(rec: Recorder) -> None:
    probe_filters(rec)
    probe_orders(rec)
    probe_pages(rec)
    probe_shapes(rec)
    probe_items(rec)


# ---------------------------------------------------------------- probe-crud
def probe_crud_tasks(rec: Recorder) -> None:
    rec.section("A task created, patched and put; seeded tasks changed and deleted")
    r = send(rec, "POST", T, "create a task in project 2 for Ines",
             task("Test the sprinklers", 2, status="doing", assignee=1), 201)
    tid = created_id(r)
    read(rec, item(T, tid), "read it")
    read(rec, q(T, ("project", 2)), "project 2's tasks: listed")
    read(rec, q(T, ("assignee", 1), ("status", "doing")), "Ines's doing tasks: listed")
    read(rec, q(item(T, "count"), ("project", 2)), "how many in project 2")
    send(rec, "PATCH", item(T, tid), "PATCH the title and a due date", {"title": "Test the misters", "due": "2026-12-30"})
    read(rec, item(T, tid), "read it")
    read(rec, q(T, *op("due", "2026-12-20", "gte")), "due from 20 December: listed")
    send(rec, "PUT", item(T, tid), "PUT moves it to project 4 for Aiko",
         task("Test the misters", 4, priority=1, due="2026-12-30", assignee=5), 204)
    read(rec, item(T, tid), "read it")
    read(rec, q(T, ("project", 4)), "project 4's tasks")
    read(rec, q(T, ("assignee", 5), ("__order", "-priority")), "Aiko's tasks by priority descending")
    send(rec, "PATCH", item(T, 6), "task 6 done", {"status": "done"})
    read(rec, item(T, 6), "read it")
    read(rec, q(T, ("status", "done"), ("status__match", "exact"), ("__order", "-priority")), "done tasks")
    bare(rec, "DELETE", item(T, 5), "delete task 5", 204)
    read(rec, item(T, 5), "it is gone: 404", expect=404)
    read(rec, q(T, ("project", 2)), "project 2's tasks without it")
    read(rec, item(T, "count"), "how many tasks")
    read(rec, q(T, ("__order", "title"), ("__page_size", 4), ("__page", 2)), "by title, page 2 of 4, after the writes")


def probe_crud_people(rec: Recorder) -> None:
    rec.section("A person created, changed, deleted; a seeded person deleted (their tasks unassigned)")
    r = send(rec, "POST", H, "create a person",
             {"name": "Oskar Lind", "email": "oskar@example.test", "role": "manager"}, 201)
    pid = created_id(r)
    read(rec, item(H, pid), "read them")
    read(rec, q(H, ("role", "manager")), "the managers: listed")
    send(rec, "PATCH", item(H, pid), "a new email", {"email": "oskar.lind@example.test"})
    read(rec, item(H, pid), "read them")
    send(rec, "PUT", item(H, pid), "PUT a new role",
         {"name": "Oskar Lind", "email": "oskar.lind@example.test", "role": "engineer"}, 204)
    read(rec, q(H, ("role", "engineer")), "the engineers: listed")
    bare(rec, "DELETE", item(H, pid), "delete them", 204)
    read(rec, item(H, pid), "they are gone: 404", expect=404)
    bare(rec, "DELETE", item(H, 3), "delete Lena (set null: her tasks keep no assignee)", 204)
    read(rec, item(T, 4), "task 4: nobody assigned")
    read(rec, q(T, ("assignee__operator", "is_null")), "unassigned tasks")
    read(rec, H, "people: four")
    read(rec, item(H, "ids"), "people's ids: four")


def probe_crud_projects(rec: Recorder) -> None:
    rec.section("A project created, put, deleted")
    r = send(rec, "POST", P, "create a project",
             {"code": "WTR", "name": "Water Tower", "budget": 55, "active": False}, 201)
    prj = created_id(r)
    read(rec, item(P, prj), "read it")
    read(rec, q(P, ("active", "false")), "inactive projects: listed")
    send(rec, "PUT", item(P, prj), "update it by PUT",
         {"code": "WTR", "name": "Water Tower", "budget": 70, "active": True}, 204)
    read(rec, q(P, *op("budget", 70, "gte")), "projects with a budget of 70 or more")
    r = send(rec, "POST", T, "a task in it", task("Paint the tank", prj, priority=3), 201)
    ptid = created_id(r)
    read(rec, q(T, ("project", prj)), "its tasks")
    read(rec, q(item(T, "count"), ("project", prj)), "how many: one")
    bare(rec, "DELETE", item(P, prj), "delete it (its task goes with it)", 204)
    read(rec, P, "projects: four")
    read(rec, q(T, ("priority", 3)), "priority 3 tasks: the deleted project's task gone")
    read(rec, item(T, ptid), "its task: 404", expect=404)

    rec.section("Refusals")
    send(rec, "POST", T, "a task without a title or project: 400", {"status": "open"}, 400)
    send(rec, "POST", P, "a project without a code: 400", {"name": "Nameless"}, 400)
    send(rec, "PATCH", item(T, 42), "PATCH a task that does not exist: 404", {"status": "done"}, 404)
    bare(rec, "DELETE", item(H, 42), "DELETE a person who does not exist: 404", 404)

    rec.section("Tasks the build read by id, changed and deleted")
    send(rec, "PATCH", item(T, 4), "task 4 done, assigned to Marco", {"status": "done", "assignee": 4})
    read(rec, item(T, 4), "read it")
    read(rec, q(T, ("assignee", 4)), "Marco's tasks: listed")
    bare(rec, "DELETE", item(T, 1), "delete task 1", 204)
    read(rec, item(T, 1), "it is gone: 404", expect=404)
    read(rec, q(T, ("__page", 3)), "the last page of tasks")


def scenario_probe_crud(rec: Recorder) -> None:
    probe_crud_tasks(rec)
    probe_crud_people(rec)
    probe_crud_projects(rec)


SCENARIOS = [("build", scenario_build), ("probe-reads", scenario_probe_reads), ("probe-crud", scenario_probe_crud)]


def main() -> None:
    import readme

    record_venv_app("piccolo", HERE, VENV, (APP_PORT, PROXY_PORT), P, SCENARIOS, readme.render,
                    "piccolo_api")


if __name__ == "__main__":
    main()
