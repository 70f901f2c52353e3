"""A small tracker served as JSON:API by safrs (Flask + SQLAlchemy + SQLite).

Run with the app's own .venv Python: `.venv/bin/python app.py DB_PATH PORT`
(record.py starts it; `seed.py` fills the same database before it starts).

Three collections under `/api`: `users`, `projects` and `tasks`. A task has a
`status` and a `priority`, belongs to one project (`project`, many-to-one) and
may have an `assignee` (a user, many-to-one); a project lists its `tasks` and a
user the tasks assigned to it (one-to-many). Project `code` and user `username`
are unique (a second one answers 409). No column holds a clock value, so every
capture answers the same bytes for the same calls.
"""

from __future__ import annotations

import logging
import os
import sys

from flask import Flask
from flask_sqlalchemy import SQLAlchemy
from safrs import SAFRSAPI, SAFRSBase

db = SQLAlchemy()


class Hashed:
    """safrs keeps the instances an `include=` adds in a set and answers them in the set's order;
    hashed by class name length and id (not by memory address) that order is the same each run."""

    def __hash__(self) -> int:
        return hash((len(type(self).__name__), self.id))


class User(Hashed, SAFRSBase, db.Model):
    __tablename__ = "users"
    id = db.Column(db.Integer, primary_key=True)
    username = db.Column(db.String(40), unique=True, nullable=False)
    full_name = db.Column(db.String(80), nullable=False)
    email = db.Column(db.String(80))
    role = db.Column(db.String(20), nullable=False, default="member")
    tasks = db.relationship("Task", back_populates="assignee")


class Project(Hashed, SAFRSBase, db.Model):
    __tablename__ = "projects"
    id = db.Column(db.Integer, primary_key=True)
    code = db.Column(db.String(10), unique=True, nullable=False)
    name = db.Column(db.String(80), nullable=False)
    status = db.Column(db.String(20), nullable=False, default="active")
    tasks = db.relationship("Task", back_populates="project")


class Task(Hashed, SAFRSBase, db.Model):
    __tablename__ = "tasks"
    id = db.Column(db.Integer, primary_key=True)
    title = db.Column(db.String(120), nullable=False)
    status = db.Column(db.String(20), nullable=False, default="todo")
    priority = db.Column(db.Integer, nullable=False, default=2)
    estimate = db.Column(db.Integer)
    project_id = db.Column(db.Integer, db.ForeignKey("projects.id"), nullable=False)
    assignee_id = db.Column(db.Integer, db.ForeignKey("users.id"))
    project = db.relationship("Project", back_populates="tasks")
    assignee = db.relationship("User", back_populates="tasks")


def make_app(db_path: str, port: int) -> Flask:
    # the instance folder (Flask-SQLAlchemy makes it) is the database's folder, under run/
    app = Flask("tracker", instance_path=os.path.dirname(os.path.abspath(db_path)))
    app.config.update(
        SQLALCHEMY_DATABASE_URI=f"sqlite:///{os.path.abspath(db_path)}",
        SQLALCHEMY_TRACK_MODIFICATIONS=False,
    )
    db.init_app(app)
    with app.app_context():
        db.create_all()
        api = SAFRSAPI(app, host="127.0.0.1", port=port, prefix="/api", swaggerui_blueprint=False)
        for model in (User, Project, Task):
            api.expose_object(model)
    return app


def main() -> None:
    db_path, port = sys.argv[1], int(sys.argv[2])
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    make_app(db_path, port).run(host="127.0.0.1", port=port, threaded=False, use_reloader=False)


if __name__ == "__main__":
    main()
