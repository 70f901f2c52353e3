"""Record HAR captures of a project tracker served by Flask-AppBuilder's `ModelRestApi`; the app is
`app.py` in this folder, its seed `seed.py`.

Run through record.sh (it makes the app's venv from requirements.txt and the recorder's venv). For
each capture `app.py` starts fresh on 127.0.0.1 with a new SQLite file holding the seed, the
scenario runs through the kit's mitmdump proxy, and both are stopped by PID. Every capture starts by
logging in (`POST /api/v1/security/login`) and sends the token it answers as `Authorization: Bearer`
on every later call, as a Flask-AppBuilder client does. A list's query is the one Rison parameter
`q` (`?q=(filters:!((col:status,opr:eq,value:todo)),order_column:title,order_direction:desc,
page:0,page_size:5,columns:!(id,title))`), written by `rison` below and percent-encoded only where
a URL needs it (a space, a quote); an item read may take `q=(columns:!(…))` too.
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
from json_client import bare, read, record_venv_app, send  # noqa: E402

APP_PORT = 18883
PROXY_PORT = 18983
VENV = Path(os.environ.get("REA_FAB_VENV", "/tmp/rea-fab-venv"))
LOGIN = "/api/v1/security/login"
P, H, T = "/api/v1/project/", "/api/v1/person/", "/api/v1/task/"


# ---------------------------------------------------------------- helpers
_NOT_ID = set(" '!:(),*@$")


def rison(value) -> str:
    """A value in Rison (the spelling `prison.dumps` and the JavaScript `rison.encode` write)."""
    if value is None:
        return "!n"
    if value is True:
        return "!t"
    if value is False:
        return "!f"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, dict):
        return "(" + ",".join(f"{k}:{rison(v)}" for k, v in value.items()) + ")"
    if isinstance(value, (list, tuple)):
        return "!(" + ",".join(rison(v) for v in value) + ")"
    text = str(value)
    if text and text[0] not in "-0123456789" and not (set(text) & _NOT_ID):
        return text
    return "'" + text.replace("!", "!!").replace("'", "!'") + "'"


def f(col: str, opr: str, value) -> dict:
    """One filter of a Rison query."""
    return {"col": col, "opr": opr, "value": value}


def lq(path: str, **query) -> str:
    """`path?q=<rison>` (the keys in the order given; filters as a list of `f(...)`)."""
    if not query:
        return path
    return path + "?q=" + quote(rison(query), safe="!():,'*-._~")


def item(coll: str, id_, **query) -> str:
    """An item's path (`/api/v1/task/4`, no trailing slash), with a Rison query if given."""
    return lq(f"{coll}{id_}", **query)


def login(rec: Recorder) -> None:
    """Log in and send the token on every later call."""
    r = send(rec, "POST", LOGIN, "log in: `{access_token}`",
             {"username": "agent", "password": "tracker-pass", "provider": "db", "refresh": False})
    rec.client.headers["Authorization"] = f"Bearer {r.json()['access_token']}"


def created_id(r: httpx.Response) -> int:
    """A create answers 201 `{id, result}`: the new row's id."""
    return r.json()["id"]


# ---------------------------------------------------------------- build
def build_lists(rec: Recorder) -> None:
    rec.section("Log in, the API's own description, the three collections")
    login(rec)
    read(rec, item(T, "_info"), "what a task takes: add/edit columns, filters per column, permissions")
    read(rec, item(P, "_info", keys=["permissions"]), "the project API's permissions only")
    read(rec, T, "all tasks (20 a page by default): `{count, ids, result, list_columns, …}`")
    read(rec, P, "all projects")
    read(rec, H, "all people")

    rec.section("Pages (`page` from 0, `page_size`)")
    read(rec, lq(T, page=0, page_size=5), "tasks 5 a page, the first")
    read(rec, lq(T, page=1, page_size=5), "the second page of 5")
    read(rec, lq(T, page=2, page_size=5), "the third page of 5: the last 2")
    read(rec, lq(P, page=1, page_size=2), "projects, the second page of 2")


def build_filters(rec: Recorder) -> None:
    rec.section("Filters (`filters:!((col,opr,value))`, every filter must hold)")
    read(rec, lq(T, filters=[f("status", "eq", "todo")]), "todo tasks (`eq`)")
    read(rec, lq(T, filters=[f("status", "neq", "done")]), "tasks not done (`neq`)")
    read(rec, lq(T, filters=[f("priority", "gt", 1)]), "priority above 1 (`gt`)")
    read(rec, lq(T, filters=[f("priority", "lt", 3)]), "priority below 3 (`lt`)")
    read(rec, lq(T, filters=[f("title", "ct", "page")]), "titles containing `page` (`ct`)")
    read(rec, lq(T, filters=[f("title", "sw", "Fix")]), "titles starting `Fix` (`sw`)")
    read(rec, lq(T, filters=[f("title", "ew", "server")]), "titles ending `server` (`ew`)")
    read(rec, lq(T, filters=[f("project", "rel_o_m", 2)]), "project 2's tasks (`rel_o_m`, the related id)")
    read(rec, lq(T, filters=[f("assignee", "rel_o_m", 3)]), "Carol's tasks")
    read(rec, lq(T, filters=[f("status", "eq", "doing"), f("priority", "eq", 1)]), "doing tasks of priority 1")
    read(rec, lq(T, filters=[f("status", "in", ["todo", "doing"])]), "todo or doing (`in`, a list)")
    read(rec, lq(T, filters=[f("estimate", "eq", 8)]), "an estimate of 8")
    read(rec, lq(H, filters=[f("role", "eq", "engineer")]), "the engineers")
    read(rec, lq(P, filters=[f("status", "eq", "archived")]), "archived projects")
    read(rec, lq(P, filters=[f("budget", "gt", 70)]), "projects with a budget above 70")


def build_orders(rec: Recorder) -> None:
    rec.section("Orders (`order_column`, `order_direction` asc|desc) and columns")
    read(rec, lq(T, order_column="priority", order_direction="asc"), "tasks by priority")
    read(rec, lq(T, order_column="title", order_direction="desc"), "tasks by title descending")
    read(rec, lq(T, order_column="estimate", order_direction="asc"), "by estimate (no estimate first)")
    read(rec, lq(H, order_column="name", order_direction="desc"), "people by name descending")
    read(rec, lq(P, order_column="budget", order_direction="desc"), "projects by budget descending")
    read(rec, lq(T, filters=[f("status", "eq", "todo")], order_column="priority", order_direction="desc",
                 page=0, page_size=3, columns=["id", "title", "priority"]),
         "todo tasks by priority descending, 3 a page, three columns")
    read(rec, lq(T, columns=["id", "title", "status"]), "tasks, three columns")
    read(rec, lq(P, columns=["code", "name"]), "project codes and names")
    read(rec, lq(T, keys=["list_columns"]), "tasks with only `list_columns` beside the rows")
    read(rec, lq(H, keys=["none"], filters=[f("role", "eq", "designer")]), "designers, no metadata (`keys:!(none)`)")


def build_items(rec: Recorder) -> None:
    rec.section("Items and missing ids")
    read(rec, item(T, 1), "task 1: `{id, result, show_columns, …}`")
    read(rec, item(T, 4), "task 4")
    read(rec, item(T, 6), "task 6 (nobody assigned: `assignee: null`)")
    read(rec, item(T, 5, columns=["id", "title", "status"]), "task 5, three columns")
    read(rec, item(P, 2), "project 2")
    read(rec, item(H, 3), "person 3 (Carol)")
    read(rec, item(H, 4), "person 4 (no email: `null`)")
    read(rec, item(T, 99), "a task that does not exist: 404 `{message}`", expect=404)
    read(rec, item(P, 9), "a project that does not exist: 404", expect=404)


def build_task_writes(rec: Recorder) -> None:
    rec.section("Create a task, update it twice, delete it")
    r = send(rec, "POST", T, "create a task in project 1 for Bob: 201 `{id, result}`",
             {"title": "Compress the hero images", "project": 1, "assignee": 2, "priority": 1, "estimate": 3}, 201)
    tid = created_id(r)
    read(rec, item(T, tid), "read it")
    read(rec, lq(T, filters=[f("project", "rel_o_m", 1)]), "project 1's tasks: listed")
    read(rec, lq(T, filters=[f("assignee", "rel_o_m", 2)]), "Bob's tasks: listed")
    send(rec, "PUT", item(T, tid), "start it: `{result}`", {"status": "doing", "priority": 2})
    read(rec, item(T, tid), "read it: doing, priority 2")
    read(rec, lq(T, filters=[f("status", "eq", "doing")]), "doing tasks: listed")
    send(rec, "PUT", item(T, tid), "move it to project 3, nobody assigned", {"project": 3, "assignee": None})
    read(rec, item(T, tid), "read it")
    read(rec, lq(T, filters=[f("project", "rel_o_m", 3)]), "project 3's tasks: listed")
    bare(rec, "DELETE", item(T, tid), "delete it: `{message: OK}`")
    read(rec, item(T, tid), "it is gone: 404", expect=404)
    read(rec, lq(T, keys=["none"], columns=["id"]), "task ids: 12 again")


def build_person_writes(rec: Recorder) -> None:
    rec.section("A person: create, change, delete")
    r = send(rec, "POST", H, "create person Gil", {"name": "Gil Grant", "email": "gil@example.test", "role": "designer"}, 201)
    pid = created_id(r)
    read(rec, item(H, pid), "read Gil")
    read(rec, lq(H, filters=[f("role", "eq", "designer")]), "the designers: Gil listed")
    send(rec, "PUT", item(H, pid), "Gil becomes a manager", {"role": "manager"})
    read(rec, item(H, pid), "read Gil: a manager")
    bare(rec, "DELETE", item(H, pid), "delete Gil")
    read(rec, item(H, pid), "Gil is gone: 404", expect=404)
    read(rec, H, "people: six again")


def build_project_writes(rec: Recorder) -> None:
    rec.section("A project with a task: its delete refused until the task is gone")
    r = send(rec, "POST", P, "create project DOC", {"code": "DOC", "name": "Documentation", "budget": 30}, 201)
    prj = created_id(r)
    read(rec, P, "projects: five, DOC active (the default status)")
    r = send(rec, "POST", T, "a task in it", {"title": "Write the style guide", "project": prj}, 201)
    ptid = created_id(r)
    read(rec, lq(T, filters=[f("project", "rel_o_m", prj)]), "DOC's tasks")
    read(rec, item(T, ptid), "the task: todo, priority 2 (the defaults)")
    bare(rec, "DELETE", item(P, prj), "delete DOC while a task names it: 422 (foreign key)", 422)
    bare(rec, "DELETE", item(T, ptid), "delete its task")
    bare(rec, "DELETE", item(P, prj), "delete DOC")
    read(rec, item(P, prj), "DOC is gone: 404", expect=404)
    read(rec, P, "projects: four again")


def build_refusals(rec: Recorder) -> None:
    rec.section("Refusals")
    send(rec, "POST", T, "a task without a title or project: 422 `{message: {field: [...]}}`", {"status": "todo"}, 422)
    send(rec, "POST", P, "a project code that exists: 422", {"code": "WEB", "name": "Another web"}, 422)
    send(rec, "PUT", item(T, 2), "a priority that is no number: 422", {"priority": "high"}, 422)
    send(rec, "PUT", item(T, 99), "update a task that does not exist: 404", {"status": "done"}, 404)
    bare(rec, "DELETE", item(T, 99), "delete a task that does not exist: 404", 404)
    read(rec, lq(T, filters=[f("colour", "eq", "red")]), "a filter on a column that has none: 400", expect=400)
    read(rec, lq(T, order_column="colour", order_direction="asc"), "an order column that does not exist: 400",
         expect=400)


def build_last_pages(rec: Recorder) -> None:
    rec.section("The newest tasks, 5 a page")
    for page in range(3):
        read(rec, lq(T, order_column="id", order_direction="desc", page=page, page_size=5),
             f"newest first, page {page}")


def scenario_build(rec: Recorder) -> None:
    build_lists(rec)
    build_filters(rec)
    build_orders(rec)
    build_items(rec)
    build_task_writes(rec)
    build_person_writes(rec)
    build_project_writes(rec)
    build_refusals(rec)
    build_last_pages(rec)


# ---------------------------------------------------------------- probe-reads
def probe_filters(rec: Recorder) -> None:
    rec.section("Other values, columns, operators and combinations")
    login(rec)
    read(rec, lq(T, filters=[f("status", "eq", "doing")]), "doing tasks")
    read(rec, lq(T, filters=[f("status", "eq", "done")]), "done tasks")
    read(rec, lq(T, filters=[f("project", "rel_o_m", 4)]), "project 4's tasks")
    read(rec, lq(T, filters=[f("assignee", "rel_o_m", 6)]), "Femi's tasks")
    read(rec, lq(T, filters=[f("assignee", "nrel_o_m", 3)]), "tasks not Carol's (`nrel_o_m`)")
    read(rec, lq(T, filters=[f("priority", "eq", 3)]), "priority 3")
    read(rec, lq(T, filters=[f("priority", "lt", 2)]), "priority below 2")
    read(rec, lq(T, filters=[f("estimate", "gt", 4)]), "estimates above 4")
    read(rec, lq(T, filters=[f("priority", "neq", 2), f("status", "neq", "done")]), "priority not 2, not done")
    read(rec, lq(T, filters=[f("title", "ct", "the")]), "titles containing `the`")
    read(rec, lq(T, filters=[f("title", "sw", "Rate")]), "titles starting `Rate`")
    read(rec, lq(T, filters=[f("title", "ew", "page")]), "titles ending `page`")
    read(rec, lq(T, filters=[f("title", "nct", "the")]), "titles without `the` (`nct`)")
    read(rec, lq(T, filters=[f("title", "eq", "Publish the beta build")]), "a title exactly (spaces)")
    read(rec, lq(T, filters=[f("status", "not_in", ["done", "doing"])]), "neither done nor doing (`not_in`)")
    read(rec, lq(T, filters=[f("priority", "in", [1, 3])]), "priority 1 or 3 (`in`)")
    read(rec, lq(T, filters=[f("status", "eq", "blocked")]), "a status no task has: no rows")
    read(rec, lq(H, filters=[f("role", "eq", "designer")]), "the designers")
    read(rec, lq(H, filters=[f("name", "sw", "D")]), "people whose name starts `D`")
    read(rec, lq(P, filters=[f("status", "eq", "active")]), "active projects")
    read(rec, lq(P, filters=[f("budget", "lt", 70)]), "projects with a budget below 70")
    read(rec, lq(P, filters=[f("code", "eq", "OPS")]), "a project by code")


def probe_orders_pages(rec: Recorder) -> None:
    rec.section("Other orders, pages and columns")
    read(rec, lq(T, order_column="priority", order_direction="desc"), "by priority descending")
    read(rec, lq(T, order_column="title", order_direction="asc"), "by title")
    read(rec, lq(T, order_column="estimate", order_direction="desc"), "by estimate descending")
    read(rec, lq(H, order_column="email", order_direction="asc"), "people by email (no email first)")
    read(rec, lq(P, order_column="code", order_direction="asc"), "projects by code")
    read(rec, lq(T, filters=[f("status", "eq", "todo")], order_column="title", order_direction="asc"),
         "todo tasks by title")
    read(rec, lq(T, page=1, page_size=4), "the second page of 4")
    read(rec, lq(T, page=3, page_size=3), "the fourth page of 3")
    read(rec, lq(T, order_column="title", order_direction="desc", page=1, page_size=5), "by title descending, page 1 of 5")
    read(rec, lq(T, filters=[f("status", "neq", "done")], page=0, page_size=4), "tasks not done, 4 a page")
    read(rec, lq(T, page=9, page_size=5), "a page past the end: no rows")
    read(rec, lq(H, page=2, page_size=2), "people, the third page of 2")
    read(rec, lq(T, columns=["id", "priority"], order_column="priority", order_direction="asc"), "ids and priorities")
    read(rec, lq(H, columns=["name", "role"]), "people's names and roles")
    read(rec, lq(T, keys=["none"], filters=[f("project", "rel_o_m", 1)]), "project 1's tasks, no metadata")
    read(rec, lq(P, keys=["list_columns"]), "projects with only `list_columns`")


def probe_items(rec: Recorder) -> None:
    rec.section("Other items, missing ids, info")
    for tid in (2, 7, 11, 12):
        read(rec, item(T, tid), f"task {tid}")
    read(rec, item(T, 1), "task 1 (the build read it)")
    read(rec, item(T, 9, columns=["title", "status"]), "task 9, two columns")
    read(rec, item(P, 3), "project 3")
    read(rec, item(P, 4), "project 4")
    read(rec, item(H, 1), "person 1")
    read(rec, item(H, 6), "person 6")
    read(rec, item(T, 42), "a task that does not exist: 404", expect=404)
    read(rec, item(H, 99), "a person who does not exist: 404", expect=404)
    read(rec, item(H, "_info"), "what a person takes")
    read(rec, lq(T, filters=[f("colour", "eq", "blue")]), "a filter on a column that has none: 400", expect=400)


def scenario_probe_reads(rec: Recorder) -> None:
    probe_filters(rec)
    probe_orders_pages(rec)
    probe_items(rec)


# ---------------------------------------------------------------- probe-crud
def probe_crud_tasks(rec: Recorder) -> None:
    rec.section("A task created and updated; seeded tasks changed and deleted")
    login(rec)
    r = send(rec, "POST", T, "create a task in project 2 for Alice",
             {"title": "Version the webhooks", "project": 2, "assignee": 1, "status": "doing", "priority": 3}, 201)
    tid = created_id(r)
    read(rec, item(T, tid), "read it")
    read(rec, lq(T, filters=[f("project", "rel_o_m", 2)]), "project 2's tasks: listed")
    read(rec, lq(T, filters=[f("assignee", "rel_o_m", 1), f("status", "eq", "doing")]), "Alice's doing tasks")
    send(rec, "PUT", item(T, tid), "retitle it, an estimate", {"title": "Version the public webhooks", "estimate": 5})
    read(rec, item(T, tid), "read it")
    read(rec, lq(T, filters=[f("estimate", "gt", 4)], order_column="estimate", order_direction="desc"),
         "estimates above 4, largest first: listed")
    send(rec, "PUT", item(T, tid), "move it to project 4 for Femi", {"project": 4, "assignee": 6})
    read(rec, item(T, tid), "read it")
    read(rec, lq(T, filters=[f("project", "rel_o_m", 4)]), "project 4's tasks")
    send(rec, "PUT", item(T, 6), "task 6 done", {"status": "done"})
    read(rec, item(T, 6), "read it")
    read(rec, lq(T, filters=[f("status", "eq", "done")], order_column="title", order_direction="asc"), "done tasks by title")
    bare(rec, "DELETE", item(T, 5), "delete task 5")
    read(rec, item(T, 5), "it is gone: 404", expect=404)
    read(rec, lq(T, filters=[f("project", "rel_o_m", 2)]), "project 2's tasks without it")
    read(rec, lq(T, order_column="title", order_direction="asc", page=1, page_size=4), "by title, the second page of 4")


def probe_crud_people(rec: Recorder) -> None:
    rec.section("A person created, changed, refused a delete while assigned, deleted")
    r = send(rec, "POST", H, "create a person without an email", {"name": "Hana Ito", "role": "engineer"}, 201)
    pid = created_id(r)
    read(rec, item(H, pid), "read them")
    read(rec, lq(H, filters=[f("role", "eq", "engineer")]), "the engineers: listed")
    send(rec, "PUT", item(H, pid), "an email", {"email": "hana@example.test"})
    read(rec, item(H, pid), "read them")
    send(rec, "PUT", item(T, 12), "assign task 12 to them", {"assignee": pid})
    read(rec, lq(T, filters=[f("assignee", "rel_o_m", pid)]), "their tasks")
    bare(rec, "DELETE", item(H, pid), "delete them while assigned: 422 (foreign key)", 422)
    send(rec, "PUT", item(T, 12), "unassign task 12", {"assignee": None})
    bare(rec, "DELETE", item(H, pid), "delete them")
    read(rec, item(H, pid), "they are gone: 404", expect=404)
    read(rec, item(T, 12), "task 12: nobody assigned")
    read(rec, H, "people: six")


def probe_crud_projects(rec: Recorder) -> None:
    rec.section("A project created, updated, deleted; refusals; tasks the build read")
    r = send(rec, "POST", P, "create an archived project",
             {"code": "LAB", "name": "Research lab", "status": "archived", "budget": 15}, 201)
    prj = created_id(r)
    read(rec, item(P, prj), "read it")
    read(rec, lq(P, filters=[f("status", "eq", "archived")]), "archived projects: listed")
    send(rec, "PUT", item(P, prj), "reopen it with a larger budget", {"status": "active", "budget": 95})
    read(rec, lq(P, filters=[f("budget", "gt", 90)]), "budgets above 90: listed")
    bare(rec, "DELETE", item(P, prj), "delete it")
    read(rec, P, "projects: four")
    send(rec, "POST", H, "a person without a name: 422", {"role": "engineer"}, 422)
    send(rec, "POST", P, "a project code that exists: 422", {"code": "OPS", "name": "Ops again"}, 422)
    send(rec, "PUT", item(H, 42), "update a person who does not exist: 404", {"role": "lead"}, 404)
    bare(rec, "DELETE", item(P, 3), "delete a project tasks name: 422", 422)
    send(rec, "PUT", item(T, 4), "task 4 done, reassigned to Carol", {"status": "done", "assignee": 3})
    read(rec, item(T, 4), "read it")
    read(rec, lq(T, filters=[f("assignee", "rel_o_m", 3)]), "Carol's tasks: listed")
    bare(rec, "DELETE", item(T, 1), "delete task 1")
    read(rec, item(T, 1), "it is gone: 404", expect=404)
    read(rec, lq(T, order_column="id", order_direction="desc", page=0, page_size=5), "newest first, 5 a page")


def scenario_probe_crud(rec: Recorder) -> None:
    probe_crud_tasks(rec)
    probe_crud_people(rec)
    probe_crud_projects(rec)


SCENARIOS = [("build", scenario_build), ("probe-reads", scenario_probe_reads), ("probe-crud", scenario_probe_crud)]


def main() -> None:
    import readme

    record_venv_app("fab", HERE, VENV, (APP_PORT, PROXY_PORT), P, SCENARIOS, readme.render,
                    "Flask-AppBuilder", extra_env={"PYTHONHASHSEED": "0"})


if __name__ == "__main__":
    main()
