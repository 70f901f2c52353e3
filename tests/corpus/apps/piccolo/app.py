"""A small project tracker served by piccolo-api's PiccoloCRUD (one per table) on Starlette.

Run with the app's own venv Python: `python app.py PORT` (record.py starts it). The database is a
Piccolo SQLite file in a temporary folder made at start and removed at exit: at start the app
creates the tables and the seed of `seed.py` with explicit ids and clocks, so every start holds the
same rows and later creates draw the same next ids (SQLite's next rowid). A created task's
`created_at` is the fixed `CLOCK` (a pre-save hook), so a create writes the same clock in every
capture. Served by
uvicorn on 127.0.0.1 only.

Three PiccoloCRUD endpoints (read_only=False) mounted under `/api/`: `/api/projects/`,
`/api/tasks/` (6 a page by default) and `/api/people/` (15 a page, the library's default), each
answering at most 20 a page (`max_page_size`); bulk delete is off. A task's `project` and
`assignee` are foreign keys (`project` cascades a delete, `assignee` is set null); each table's
readable form (`__readable=true`) is its name (a task's its title).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import shutil
import sys
import tempfile
from pathlib import Path

from piccolo.columns import Boolean, Date, ForeignKey, Integer, OnDelete, Timestamp, Varchar
from piccolo.columns.readable import Readable
from piccolo.engine.sqlite import SQLiteEngine
from piccolo.table import Table
from piccolo_api.crud.endpoints import PiccoloCRUD
from piccolo_api.crud.hooks import Hook, HookType
from starlette.applications import Starlette
from starlette.routing import Mount

CLOCK = dt.datetime(2026, 12, 6, 9, 30)
FOLDER = Path(tempfile.mkdtemp(prefix="rea-piccolo-"))
DB = SQLiteEngine(path=str(FOLDER / "tracker.sqlite"))


class Person(Table, db=DB, tablename="person"):
    name = Varchar(length=80, required=True)
    email = Varchar(length=120, null=True, default=None)
    role = Varchar(length=20, default="engineer")

    @classmethod
    def get_readable(cls) -> Readable:
        return Readable(template="%s", columns=[cls.name])


class Project(Table, db=DB, tablename="project"):
    code = Varchar(length=8, unique=True, required=True)
    name = Varchar(length=80, required=True)
    budget = Integer(default=0)
    active = Boolean(default=True)

    @classmethod
    def get_readable(cls) -> Readable:
        return Readable(template="%s", columns=[cls.name])


class Task(Table, db=DB, tablename="task"):
    title = Varchar(length=120, required=True)
    status = Varchar(length=8, default="open")
    priority = Integer(default=2)
    due = Date(null=True, default=None)
    project = ForeignKey(references=Project, required=True, on_delete=OnDelete.cascade)
    assignee = ForeignKey(references=Person, null=True, on_delete=OnDelete.set_null)
    created_at = Timestamp(default=CLOCK)

    @classmethod
    def get_readable(cls) -> Readable:
        return Readable(template="%s", columns=[cls.title])


class TrackerCRUD(PiccoloCRUD):
    max_page_size = 20


def stamp(row: Task) -> Task:
    """A created task's `created_at` is the fixed clock (PiccoloCRUD's model sends it as null)."""
    if row.created_at is None:
        row.created_at = CLOCK
    return row


async def seed() -> None:
    """The tables and the seed rows of `seed.py` (explicit ids and clocks)."""
    import seed as S

    for table in (Person, Project, Task):
        await table.create_table().run()
    await Person.insert(*[Person(**p) for p in S.PEOPLE]).run()
    await Project.insert(*[Project(**p) for p in S.PROJECTS]).run()
    await Task.insert(*[Task(**t) for t in S.TASKS]).run()


def application() -> Starlette:
    return Starlette(routes=[
        Mount("/api/projects", TrackerCRUD(Project, read_only=False)),
        Mount("/api/tasks", TrackerCRUD(Task, read_only=False, page_size=6,
                                                hooks=[Hook(hook_type=HookType.pre_save, callable=stamp)])),
        Mount("/api/people", TrackerCRUD(Person, read_only=False)),
    ])


def main() -> None:
    import uvicorn

    port = int(sys.argv[1])
    asyncio.run(seed())
    try:
        uvicorn.run(application(), host="127.0.0.1", port=port, log_level="warning", access_log=False)
    finally:
        shutil.rmtree(FOLDER, ignore_errors=True)


if __name__ == "__main__":
    main()
