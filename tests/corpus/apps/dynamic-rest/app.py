"""A small project tracker served by Django REST framework with dynamic-rest (DREST).

Run with the app's own venv Python: `python app.py PORT` (record.py starts it). The database is
Django's SQLite in memory: at start the app creates the tables and the seed of `seed.py` with
explicit ids and clocks, so every start holds the same rows and later creates draw the same next
ids. The app's clock is frozen (`timezone.now` answers `CLOCK`), so a create's `created_at` is the
same in every capture. Served by the stdlib's wsgiref on 127.0.0.1 only.

Three `DynamicModelViewSet`s on a `DynamicRouter` (trailing slashes) under `/api/`:
`/api/projects/`, `/api/people/`, `/api/tasks/`, every list paged by `DynamicPageNumberPagination`
(`page`/`per_page`, 10 a page, at most 50) in an envelope keyed by the resource's plural name with a
`meta` object (`page`, `per_page`, `total_results`, `total_pages`); an item is keyed by the singular
name (`{"task": {...}}`). Relations are `DynamicRelationField`s: a task's `project` and `assignee`
answer the related id unless included (`include[]=project.` or `include[]=project.*` sideloads the
project under a top-level `projects` key); a project's and a person's `tasks` are deferred (a
`links` object names their relation route, `/api/projects/{id}/tasks/`, served by DREST's
`list_related`). Filters are `filter{field}=v`, `filter{field.op}=v`, `filter{-field}=v`
(negation) on any serializer field, also across a relation (`filter{project.code}=OPS`); sorts are
`sort[]=-priority&sort[]=title`; `include[]`/`exclude[]` choose fields.
"""

from __future__ import annotations

import datetime as dt
import sys

import django
from django.apps import AppConfig
from django.conf import settings

LABEL = "tracker"
CLOCK = dt.datetime(2026, 12, 6, 9, 30, tzinfo=dt.timezone.utc)


class TrackerConfig(AppConfig):
    name = __name__
    label = LABEL
    default_auto_field = "django.db.models.AutoField"


def configure() -> None:
    settings.configure(
        DEBUG=False,
        SECRET_KEY="corpus-recording-only",
        ALLOWED_HOSTS=["127.0.0.1"],
        ROOT_URLCONF=__name__,
        INSTALLED_APPS=["django.contrib.contenttypes", "rest_framework", "dynamic_rest", f"{__name__}.TrackerConfig"],
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}},
        USE_TZ=True,
        TIME_ZONE="UTC",
        MIDDLEWARE=[],
        REST_FRAMEWORK={
            "DEFAULT_RENDERER_CLASSES": ("rest_framework.renderers.JSONRenderer",),
            "DEFAULT_PARSER_CLASSES": ("rest_framework.parsers.JSONParser",),
            "DEFAULT_AUTHENTICATION_CLASSES": [],
            "DEFAULT_PERMISSION_CLASSES": [],
            "UNAUTHENTICATED_USER": None,
        },
        DYNAMIC_REST={
            "ENABLE_BROWSABLE_API": False,
            "PAGE_SIZE": 10,
            "MAX_PAGE_SIZE": 50,
        },
    )
    django.setup()
    from django.utils import timezone

    timezone.now = lambda: CLOCK  # the frozen clock: auto_now_add reads it
    define()


def define_models():
    from django.db import models

    class Person(models.Model):
        name = models.CharField(max_length=80)
        email = models.EmailField(null=True, blank=True)
        role = models.CharField(max_length=20, default="engineer")

        class Meta:
            app_label = LABEL
            ordering = ["id"]

    class Project(models.Model):
        code = models.CharField(max_length=8, unique=True)
        name = models.CharField(max_length=80)
        budget = models.IntegerField(default=0)
        active = models.BooleanField(default=True)

        class Meta:
            app_label = LABEL
            ordering = ["id"]

    class Task(models.Model):
        STATUSES = [("todo", "todo"), ("doing", "doing"), ("done", "done")]
        title = models.CharField(max_length=120)
        status = models.CharField(max_length=8, choices=STATUSES, default="todo")
        priority = models.IntegerField(default=2)
        estimate = models.IntegerField(null=True, blank=True)  # hours
        due = models.DateField(null=True, blank=True)
        project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="tasks")
        assignee = models.ForeignKey(Person, on_delete=models.SET_NULL, null=True, blank=True,
                                     related_name="tasks")
        created_at = models.DateTimeField(auto_now_add=True)

        class Meta:
            app_label = LABEL
            ordering = ["id"]

    return Person, Project, Task


def define_serializers(Person, Project, Task):
    """The serializers, named in module globals: DynamicRelationField resolves a class named by a
    string in the module of its parent serializer (this module)."""
    from dynamic_rest.fields import DynamicRelationField
    from dynamic_rest.serializers import DynamicModelSerializer

    class PersonSerializer(DynamicModelSerializer):
        tasks = DynamicRelationField("TaskSerializer", many=True, deferred=True, read_only=True)

        class Meta:
            model = Person
            name = "person"
            plural_name = "people"
            fields = ("id", "name", "email", "role", "tasks")

    class ProjectSerializer(DynamicModelSerializer):
        tasks = DynamicRelationField("TaskSerializer", many=True, deferred=True, read_only=True)

        class Meta:
            model = Project
            name = "project"
            fields = ("id", "code", "name", "budget", "active", "tasks")

    class TaskSerializer(DynamicModelSerializer):
        project = DynamicRelationField("ProjectSerializer")
        assignee = DynamicRelationField("PersonSerializer", required=False, allow_null=True)

        class Meta:
            model = Task
            name = "task"
            fields = ("id", "title", "status", "priority", "estimate", "due", "project", "assignee",
                      "created_at")
            read_only_fields = ("created_at",)

    globals().update(PersonSerializer=PersonSerializer, ProjectSerializer=ProjectSerializer,
                     TaskSerializer=TaskSerializer)
    return PersonSerializer, ProjectSerializer, TaskSerializer


def define_views(models_, serializers_):
    from dynamic_rest.viewsets import DynamicModelViewSet

    Person, Project, Task = models_
    PersonSerializer, ProjectSerializer, TaskSerializer = serializers_

    class PersonViewSet(DynamicModelViewSet):
        queryset = Person.objects.all()
        serializer_class = PersonSerializer

    class ProjectViewSet(DynamicModelViewSet):
        queryset = Project.objects.all()
        serializer_class = ProjectSerializer

    class TaskViewSet(DynamicModelViewSet):
        queryset = Task.objects.all()
        serializer_class = TaskSerializer

    return PersonViewSet, ProjectViewSet, TaskViewSet


def define() -> None:
    """Models, serializers, views and routes (after django.setup(): the models need the registry)."""
    from django.urls import include, path
    from dynamic_rest.routers import DynamicRouter

    models_ = define_models()
    people, projects, tasks = define_views(models_, define_serializers(*models_))
    router = DynamicRouter()
    router.register("projects", projects)
    router.register("people", people)
    router.register("tasks", tasks)
    globals().update(Person=models_[0], Project=models_[1], Task=models_[2],
                     urlpatterns=[path("api/", include(router.urls))])


def seed() -> None:
    """The tables and the seed rows of `seed.py` (explicit ids; `created_at` set after the insert)."""
    from django.db import connection, transaction

    import seed as S

    with connection.schema_editor() as editor:
        for model in (Person, Project, Task):
            editor.create_model(model)
    with transaction.atomic():
        for p in S.PEOPLE:
            Person.objects.create(**p)
        for p in S.PROJECTS:
            Project.objects.create(**p)
        for t in S.TASKS:
            Task.objects.create(**{k: v for k, v in t.items() if k != "created_at"})
            Task.objects.filter(id=t["id"]).update(created_at=t["created_at"])
        with connection.cursor() as cur:  # later creates draw the next number after the seed's
            for model, rows in ((Person, S.PEOPLE), (Project, S.PROJECTS), (Task, S.TASKS)):
                cur.execute("UPDATE sqlite_sequence SET seq = %s WHERE name = %s",
                            [max(r["id"] for r in rows), model._meta.db_table])


def main() -> None:
    from wsgiref.simple_server import WSGIRequestHandler, make_server

    port = int(sys.argv[1])
    configure()
    seed()
    from django.core.wsgi import get_wsgi_application

    class QuietHandler(WSGIRequestHandler):
        def log_message(self, format, *args):  # noqa: A002 - the stdlib's signature
            sys.stderr.write("%s\n" % (format % args))

    server = make_server("127.0.0.1", port, get_wsgi_application(), handler_class=QuietHandler)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
