"""A small project tracker served as JSON:API by flask-rest-jsonapi-next (Flask + SQLAlchemy, SQLite).

Usage: .venv/bin/python app.py DB_PATH PORT

Three resources in the package's documented style (marshmallow-jsonapi schemas, `ResourceList`,
`ResourceDetail`, `ResourceRelationship` and the SQLAlchemy data layer): projects, people and
tasks. A task names its project and its assignee (to-one, both nullable: deleting the project or
the person clears the task's link, SQLAlchemy's default for a loaded relationship); a project and a
person list their tasks (to-many). Every relationship shows its identifiers
(`include_resource_linkage`). The server is the stdlib's wsgiref on 127.0.0.1 only.
"""

from __future__ import annotations

import sys
from wsgiref.simple_server import WSGIRequestHandler, make_server

from flask import Flask
from flask_rest_jsonapi_next import Api, ResourceDetail, ResourceList, ResourceRelationship
from marshmallow import validate
from marshmallow_jsonapi import fields
from marshmallow_jsonapi.flask import Relationship, Schema
from sqlalchemy import ForeignKey, Integer, String, create_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship, scoped_session, sessionmaker


class Base(DeclarativeBase):
    pass


class Project(Base):
    __tablename__ = "project"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String, nullable=False)
    code: Mapped[str] = mapped_column(String, nullable=False, unique=True)
    budget: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    tasks = relationship("Task", back_populates="project", order_by="Task.id")


class Person(Base):
    __tablename__ = "person"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String, nullable=False)
    role: Mapped[str] = mapped_column(String, nullable=False)
    email: Mapped[str] = mapped_column(String, nullable=False, unique=True)
    tasks = relationship("Task", back_populates="assignee", order_by="Task.id")


class Task(Base):
    __tablename__ = "task"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    title: Mapped[str] = mapped_column(String, nullable=False)
    status: Mapped[str] = mapped_column(String, nullable=False, default="todo")
    priority: Mapped[int] = mapped_column(Integer, nullable=False, default=2)
    estimate: Mapped[int] = mapped_column(Integer, nullable=False, default=1)
    project_id: Mapped[int | None] = mapped_column(ForeignKey("project.id"), nullable=True)
    assignee_id: Mapped[int | None] = mapped_column(ForeignKey("person.id"), nullable=True)
    project = relationship("Project", back_populates="tasks")
    assignee = relationship("Person", back_populates="tasks")


class ProjectSchema(Schema):
    class Meta:
        type_ = "project"
        self_view = "project_detail"
        self_view_kwargs = {"id": "<id>"}
        self_view_many = "project_list"

    id = fields.Integer(as_string=True)
    name = fields.Str(required=True)
    code = fields.Str(required=True)
    budget = fields.Integer()
    tasks = Relationship(self_view="project_tasks", self_view_kwargs={"id": "<id>"},
                         related_view="task_list", related_view_kwargs={"project_id": "<id>"},
                         include_resource_linkage=True, type_="task", schema="TaskSchema", many=True)


class PersonSchema(Schema):
    class Meta:
        type_ = "person"
        self_view = "person_detail"
        self_view_kwargs = {"id": "<id>"}
        self_view_many = "person_list"

    id = fields.Integer(as_string=True)
    name = fields.Str(required=True)
    role = fields.Str(required=True)
    email = fields.Email(required=True)
    tasks = Relationship(self_view="person_tasks", self_view_kwargs={"id": "<id>"},
                         related_view="task_list", related_view_kwargs={"person_id": "<id>"},
                         include_resource_linkage=True, type_="task", schema="TaskSchema", many=True)


class TaskSchema(Schema):
    class Meta:
        type_ = "task"
        self_view = "task_detail"
        self_view_kwargs = {"id": "<id>"}
        self_view_many = "task_list"

    id = fields.Integer(as_string=True)
    title = fields.Str(required=True)
    status = fields.Str(validate=validate.OneOf(["todo", "doing", "done"]))
    priority = fields.Integer()
    estimate = fields.Integer()
    project = Relationship(self_view="task_project", self_view_kwargs={"id": "<id>"},
                           include_resource_linkage=True, type_="project", schema="ProjectSchema", allow_none=True)
    assignee = Relationship(self_view="task_assignee", self_view_kwargs={"id": "<id>"},
                            include_resource_linkage=True, type_="person", schema="PersonSchema", allow_none=True)


def make_app(db_path: str) -> Flask:
    engine = create_engine(f"sqlite:///{db_path}")
    session = scoped_session(sessionmaker(bind=engine))
    app = Flask(__name__)

    def task_query(self, view_kwargs):
        """Tasks, or one project's or one person's tasks on their related routes."""
        query = self.session.query(Task)
        if view_kwargs.get("project_id") is not None:
            query = query.filter(Task.project_id == view_kwargs["project_id"])
        if view_kwargs.get("person_id") is not None:
            query = query.filter(Task.assignee_id == view_kwargs["person_id"])
        return query

    class ProjectList(ResourceList):
        schema = ProjectSchema
        data_layer = {"session": session, "model": Project}

    class ProjectDetail(ResourceDetail):
        patch_schema_kwargs = {"partial": True}
        schema = ProjectSchema
        data_layer = {"session": session, "model": Project}

    class PersonList(ResourceList):
        schema = PersonSchema
        data_layer = {"session": session, "model": Person}

    class PersonDetail(ResourceDetail):
        patch_schema_kwargs = {"partial": True}
        schema = PersonSchema
        data_layer = {"session": session, "model": Person}

    class TaskList(ResourceList):
        schema = TaskSchema
        data_layer = {"session": session, "model": Task, "methods": {"query": task_query}}

    class TaskDetail(ResourceDetail):
        patch_schema_kwargs = {"partial": True}
        schema = TaskSchema
        data_layer = {"session": session, "model": Task}

    class ProjectRelationship(ResourceRelationship):
        schema = ProjectSchema
        data_layer = {"session": session, "model": Project}

    class PersonRelationship(ResourceRelationship):
        schema = PersonSchema
        data_layer = {"session": session, "model": Person}

    class TaskRelationship(ResourceRelationship):
        schema = TaskSchema
        data_layer = {"session": session, "model": Task}

    api = Api(app)
    api.route(ProjectList, "project_list", "/projects")
    api.route(ProjectDetail, "project_detail", "/projects/<int:id>")
    api.route(ProjectRelationship, "project_tasks", "/projects/<int:id>/relationships/tasks")
    api.route(PersonList, "person_list", "/people")
    api.route(PersonDetail, "person_detail", "/people/<int:id>")
    api.route(PersonRelationship, "person_tasks", "/people/<int:id>/relationships/tasks")
    api.route(TaskList, "task_list", "/tasks", "/projects/<int:project_id>/tasks", "/people/<int:person_id>/tasks")
    api.route(TaskDetail, "task_detail", "/tasks/<int:id>")
    api.route(TaskRelationship, "task_project", "/tasks/<int:id>/relationships/project")
    api.route(TaskRelationship, "task_assignee", "/tasks/<int:id>/relationships/assignee")

    @app.teardown_appcontext
    def remove_session(_exc):
        session.remove()

    return app


class QuietHandler(WSGIRequestHandler):
    def log_message(self, fmt, *args):
        sys.stderr.write("%s\n" % (fmt % args))


def main() -> None:
    db_path, port = sys.argv[1], int(sys.argv[2])
    app = make_app(db_path)
    with make_server("127.0.0.1", port, app, handler_class=QuietHandler) as server:
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
