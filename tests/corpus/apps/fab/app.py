"""A small project tracker served by Flask-AppBuilder's `ModelRestApi` (Flask + SQLAlchemy, SQLite).

Run with the app's own venv Python: `python app.py PORT` (record.py starts it). The database is a
SQLite file in a temporary folder made at start and removed at exit: at start the app creates the
tables, Flask-AppBuilder's security tables and permissions, the API user of `seed.py` (the Admin
role) and the seed rows with explicit ids, so every start holds the same rows and later creates draw
the same next ids. Served by Werkzeug on 127.0.0.1 only.

Three `ModelRestApi`s under `/api/v1/`: `project`, `person` and `task` (a task names its project,
required, and its assignee, a person or none). Every call needs `Authorization: Bearer <token>`
from `POST /api/v1/security/login`. The tokens are the same in every capture: Flask-JWT-Extended's
clock is frozen (`CLOCK`, tokens never expire) and its token ids are drawn from a counter.
"""

from __future__ import annotations

import datetime as dt
import itertools
import logging
import shutil
import sys
import tempfile
import types
import uuid
from pathlib import Path

import flask_jwt_extended.tokens as jwt_tokens
from flask import Flask
from flask.sessions import SecureCookieSessionInterface
from flask_appbuilder import AppBuilder, Model, SQLA
from flask_appbuilder.api import ModelRestApi
from flask_appbuilder.models.sqla.interface import SQLAInterface
from sqlalchemy import Column, ForeignKey, Integer, String, event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import relationship

CLOCK = dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.timezone.utc)
FOLDER = Path(tempfile.mkdtemp(prefix="rea-fab-"))


class FrozenDatetime(dt.datetime):
    """Flask-JWT-Extended's `datetime`, its `now` the fixed clock."""

    @classmethod
    def now(cls, tz=None):
        return CLOCK


_TOKEN_IDS = itertools.count(1)
jwt_tokens.datetime = FrozenDatetime
jwt_tokens.uuid = types.SimpleNamespace(uuid4=lambda: uuid.UUID(int=next(_TOKEN_IDS)))


@event.listens_for(Engine, "connect")
def enforce_foreign_keys(connection, _record) -> None:
    """SQLite checks foreign keys only when asked: a project or person a task names refuses its
    delete (Flask-AppBuilder answers 422 with the database's message)."""
    cursor = connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


class NoCookieSessions(SecureCookieSessionInterface):
    """No session cookie: the API authenticates by its bearer token, and Flask-AppBuilder's
    locale in the session would set a cookie signed with the server's clock on every answer."""

    def should_set_cookie(self, app, session) -> bool:
        return False


class Project(Model):
    __tablename__ = "project"
    id = Column(Integer, primary_key=True)
    code = Column(String(10), unique=True, nullable=False)
    name = Column(String(80), nullable=False)
    status = Column(String(20), nullable=False, default="active")
    budget = Column(Integer)

    def __repr__(self) -> str:
        return self.name


class Person(Model):
    __tablename__ = "person"
    id = Column(Integer, primary_key=True)
    name = Column(String(80), nullable=False)
    email = Column(String(120))
    role = Column(String(20), nullable=False, default="engineer")

    def __repr__(self) -> str:
        return self.name


class Task(Model):
    __tablename__ = "task"
    id = Column(Integer, primary_key=True)
    title = Column(String(120), nullable=False)
    status = Column(String(20), nullable=False, default="todo")
    priority = Column(Integer, nullable=False, default=2)
    estimate = Column(Integer)
    project_id = Column(Integer, ForeignKey("project.id"), nullable=False)
    project = relationship("Project")
    assignee_id = Column(Integer, ForeignKey("person.id"))
    assignee = relationship("Person")

    def __repr__(self) -> str:
        return self.title


class ProjectApi(ModelRestApi):
    resource_name = "project"
    datamodel = SQLAInterface(Project)
    list_columns = show_columns = ["id", "code", "name", "status", "budget"]


class PersonApi(ModelRestApi):
    resource_name = "person"
    datamodel = SQLAInterface(Person)
    list_columns = show_columns = ["id", "name", "email", "role"]


class TaskApi(ModelRestApi):
    resource_name = "task"
    datamodel = SQLAInterface(Task)
    list_columns = ["id", "title", "status", "priority", "estimate", "project.id", "project.code",
                    "assignee.id", "assignee.name"]
    show_columns = ["id", "title", "status", "priority", "estimate", "project.id", "project.code",
                    "project.name", "assignee.id", "assignee.name"]
    order_columns = ["id", "title", "status", "priority", "estimate"]


def make_app() -> Flask:
    app = Flask("tracker")
    app.config.update(
        SQLALCHEMY_DATABASE_URI=f"sqlite:///{FOLDER / 'tracker.sqlite'}",
        SQLALCHEMY_TRACK_MODIFICATIONS=False,
        SECRET_KEY="tracker-secret-key-for-loopback-only",
        JWT_ACCESS_TOKEN_EXPIRES=False,
        JWT_REFRESH_TOKEN_EXPIRES=False,
        FAB_API_SWAGGER_UI=False,
        FAB_ADD_SECURITY_VIEWS=True,
        WTF_CSRF_ENABLED=False,
    )
    app.session_interface = NoCookieSessions()
    db = SQLA(app)
    appbuilder = AppBuilder(app, db.session)
    for api in (ProjectApi, PersonApi, TaskApi):
        appbuilder.add_api(api)
    seed(appbuilder, db)
    return app


def seed(appbuilder: AppBuilder, db: SQLA) -> None:
    """The API user and the rows of `seed.py` (explicit ids)."""
    import seed as S

    db.create_all()
    sm = appbuilder.sm
    sm.add_user(S.ADMIN["username"], S.ADMIN["first_name"], S.ADMIN["last_name"], S.ADMIN["email"],
                sm.find_role(sm.auth_role_admin), S.ADMIN["password"])
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
