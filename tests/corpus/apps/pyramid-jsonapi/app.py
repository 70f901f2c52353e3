"""A small project tracker served as JSON:API by pyramid-jsonapi (Pyramid, SQLAlchemy, SQLite).

Run with the app's own venv Python: `python app.py PORT` (record.py starts it). The database is a
SQLite file in a temporary folder made at start and removed at exit: at start the app creates the
tables and the seed rows of `seed.py` with explicit ids, so every start holds the same rows and
later creates draw the same next ids. Served by the standard library's `wsgiref` on 127.0.0.1 only.

pyramid-jsonapi builds one collection per model under `/api/` (the collection names are the table
names): `projects`, `people` and `tasks`. A task names its project (required) and its assignee (a
person or none); a project and a person list their tasks. A task's status must be one of `todo`,
`doing`, `done` (a CHECK constraint); SQLite checks foreign keys. The foreign key columns are not
exposed (the package's default) but can be filtered on. Each request gets one SQLAlchemy session;
a tween commits it when the answer is a success and rolls it back otherwise (the role
`pyramid_tm` plays in the package's own examples).
"""

from __future__ import annotations

import logging
import shutil
import sys
import tempfile
from pathlib import Path
from wsgiref.simple_server import WSGIRequestHandler, make_server

import pyramid_jsonapi
from pyramid.config import Configurator
from sqlalchemy import CheckConstraint, Column, ForeignKey, Integer, String, create_engine, event
from sqlalchemy.orm import declarative_base, relationship, sessionmaker

FOLDER = Path(tempfile.mkdtemp(prefix="rea-pyramid-jsonapi-"))
Base = declarative_base()


class Project(Base):
    __tablename__ = "projects"
    id = Column(Integer, primary_key=True)
    code = Column(String(10), unique=True, nullable=False)
    name = Column(String(80), nullable=False)
    status = Column(String(20), nullable=False, default="active")
    budget = Column(Integer)
    tasks = relationship("Task", back_populates="project", order_by="Task.id")


class Person(Base):
    __tablename__ = "people"
    id = Column(Integer, primary_key=True)
    name = Column(String(80), nullable=False)
    email = Column(String(120))
    role = Column(String(20), nullable=False, default="engineer")
    tasks = relationship("Task", back_populates="assignee", order_by="Task.id")


class Task(Base):
    __tablename__ = "tasks"
    __table_args__ = (CheckConstraint("status IN ('todo', 'doing', 'done')", name="task_status"),)
    id = Column(Integer, primary_key=True)
    title = Column(String(120), nullable=False)
    status = Column(String(20), nullable=False, default="todo")
    priority = Column(Integer, nullable=False, default=2)
    estimate = Column(Integer)
    project_id = Column(Integer, ForeignKey("projects.id"), nullable=False)
    assignee_id = Column(Integer, ForeignKey("people.id"))
    project = relationship("Project", back_populates="tasks")
    assignee = relationship("Person", back_populates="tasks")


def make_engine():
    engine = create_engine(f"sqlite:///{FOLDER / 'tracker.sqlite'}")

    @event.listens_for(engine, "connect")
    def enforce_foreign_keys(connection, _record) -> None:
        cursor = connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    return engine


def seed(Session) -> None:
    import seed as S

    with Session() as session:
        session.add_all([Project(**p) for p in S.PROJECTS] + [Person(**p) for p in S.PEOPLE])
        session.flush()
        session.add_all([Task(**t) for t in S.TASKS])
        session.commit()


def session_tween_factory(handler, registry):
    Session = registry.settings["tracker.sessionmaker"]

    def tween(request):
        request.dbsession = Session()
        try:
            response = handler(request)
            if response.status_code < 400:
                request.dbsession.commit()
            else:
                request.dbsession.rollback()
            return response
        except Exception:
            request.dbsession.rollback()
            raise
        finally:
            request.dbsession.close()

    return tween


def make_app(Session):
    settings = {"tracker.sessionmaker": Session}
    config = Configurator(settings=settings)
    config.add_tween("app.session_tween_factory")
    api = pyramid_jsonapi.PyramidJSONAPI(config, [Project, Person, Task],
                                         get_dbsession=lambda view: view.request.dbsession)
    api.create_jsonapi()
    return config.make_wsgi_app()


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args) -> None:
        pass


def main() -> None:
    port = int(sys.argv[1])
    try:
        engine = make_engine()
        Base.metadata.create_all(engine)
        Session = sessionmaker(bind=engine)
        seed(Session)
        app = make_app(Session)
        with make_server("127.0.0.1", port, app, handler_class=QuietHandler) as server:
            server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        shutil.rmtree(FOLDER, ignore_errors=True)


if __name__ == "__main__":
    main()
