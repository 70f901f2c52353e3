"""A small project tracker served as JSON:API by Flask-Restless-NG's `APIManager` (Flask,
Flask-SQLAlchemy, SQLite).

Run with the app's own venv Python: `python app.py PORT` (record.py starts it). The database is a
SQLite file in a temporary folder made at start and removed at exit: at start the app creates the
tables and the seed rows of `seed.py` with explicit ids, so every start holds the same rows and
later creates draw the same next ids. Served by Werkzeug on 127.0.0.1 only.

Three APIs under `/api/` (the collection names are the table names): `project`, `person` and
`task`, each with GET, POST, PATCH and DELETE. A task names its project (required) and its
assignee (a person or none); a project and a person list their tasks. A task's status must be one
of `todo`, `doing`, `done` and its title not empty (a SQLAlchemy validator raising the
`validation_exceptions` the API is given: 400 with one error object per field). SQLite checks
foreign keys, so a project or person a task names refuses its delete.

Flask-Restless-NG gathers a compound document's `included` resources in a Python set of model
instances, so their order follows the instances' memory addresses and changes from one run to the
next; a postprocessor on every read (the package's documented hook) sorts them by type and id, so
re-recording answers the same bytes.
"""

from __future__ import annotations

import logging
import shutil
import sys
import tempfile
from pathlib import Path

from flask import Flask
from flask_restless import APIManager
from flask_sqlalchemy import SQLAlchemy
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import validates

FOLDER = Path(tempfile.mkdtemp(prefix="rea-restless-"))
db = SQLAlchemy()
STATUSES = ("todo", "doing", "done")


class ValidationError(Exception):
    """A model validator's refusal; Flask-Restless reads `errors` ({field: message})."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.errors = {field: message}


@event.listens_for(Engine, "connect")
def enforce_foreign_keys(connection, _record) -> None:
    """SQLite checks foreign keys only when asked."""
    cursor = connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


class Project(db.Model):
    __tablename__ = "project"
    id = db.Column(db.Integer, primary_key=True)
    code = db.Column(db.String(10), unique=True, nullable=False)
    name = db.Column(db.String(80), nullable=False)
    status = db.Column(db.String(20), nullable=False, default="active")
    budget = db.Column(db.Integer)
    tasks = db.relationship("Task", back_populates="project", order_by="Task.id")


class Person(db.Model):
    __tablename__ = "person"
    id = db.Column(db.Integer, primary_key=True)
    name = db.Column(db.String(80), nullable=False)
    email = db.Column(db.String(120))
    role = db.Column(db.String(20), nullable=False, default="engineer")
    tasks = db.relationship("Task", back_populates="assignee", order_by="Task.id")


class Task(db.Model):
    __tablename__ = "task"
    id = db.Column(db.Integer, primary_key=True)
    title = db.Column(db.String(120), nullable=False)
    status = db.Column(db.String(20), nullable=False, default="todo")
    priority = db.Column(db.Integer, nullable=False, default=2)
    estimate = db.Column(db.Integer)
    project_id = db.Column(db.Integer, db.ForeignKey("project.id"), nullable=False)
    assignee_id = db.Column(db.Integer, db.ForeignKey("person.id"))
    project = db.relationship("Project", back_populates="tasks")
    assignee = db.relationship("Person", back_populates="tasks")

    @validates("status")
    def validate_status(self, _key, value):
        if value not in STATUSES:
            raise ValidationError("status", f"must be one of {', '.join(STATUSES)}")
        return value

    @validates("title")
    def validate_title(self, _key, value):
        if not value or not str(value).strip():
            raise ValidationError("title", "must not be empty")
        return value


def sort_included(result: dict, **_kw) -> None:
    """Order a compound document's `included` resources by type, then numeric id."""
    if "included" in result:
        result["included"].sort(key=lambda r: (r["type"], int(r["id"])))


READ_POSTPROCESSORS = {"GET_COLLECTION": [sort_included], "GET_RESOURCE": [sort_included]}


def make_app() -> Flask:
    app = Flask("tracker")
    app.config.update(SQLALCHEMY_DATABASE_URI=f"sqlite:///{FOLDER / 'tracker.sqlite'}",
                      SQLALCHEMY_TRACK_MODIFICATIONS=False)
    db.init_app(app)
    with app.app_context():
        seed()
        manager = APIManager(app, session=db.session, postprocessors=READ_POSTPROCESSORS)
        for model in (Project, Person, Task):
            manager.create_api(model, methods=["GET", "POST", "PATCH", "DELETE"], page_size=10,
                               max_page_size=50, validation_exceptions=[ValidationError])
    return app


def seed() -> None:
    """The tables and the rows of `seed.py` (explicit ids)."""
    import seed as S

    db.create_all()
    db.session.add_all([Project(**p) for p in S.PROJECTS] + [Person(**p) for p in S.PEOPLE])
    db.session.flush()
    db.session.add_all([Task(**t) for t in S.TASKS])
    db.session.commit()


def main() -> None:
    port = int(sys.argv[1])
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    try:
        make_app().run(host="127.0.0.1", port=port, threaded=False, use_reloader=False)
    finally:
        shutil.rmtree(FOLDER, ignore_errors=True)


if __name__ == "__main__":
    main()
