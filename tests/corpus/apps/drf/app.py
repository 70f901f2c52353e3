"""A small project tracker served by plain Django REST framework with django-filter (no JSON:API).

Run with the app's own venv Python: `python app.py PORT` (record.py starts it). The database is
Django's SQLite in memory: at start the app creates the tables and the seed of `seed.py` with
explicit ids and clocks, so every start holds the same rows and later creates draw the same next
ids. The app's clock is frozen (`timezone.now` answers `CLOCK`), so a create's `created_at` and the
close action's `closed_at` are the same in every capture. Served by the stdlib's wsgiref on
127.0.0.1 only.

Three ModelViewSets on a DefaultRouter (trailing slashes) under `/api/`: `/api/projects/`
(LimitOffsetPagination, default limit 10), `/api/tasks/` (PageNumberPagination, 10 a page,
`page_size` up to 50), `/api/people/` (no pagination: a plain array). Filters are django-filter's
`filterset_fields` lookups, `search=` is SearchFilter, `ordering=` OrderingFilter. A task names its
project by primary key (`project`) and shows its assignee as a nested read-only object
(`assignee`), written through `assignee_id`. `GET /api/projects/{id}/tasks/` is a detail action
listing a project's tasks; `POST /api/tasks/{id}/close/` sets `status` done and `closed_at`.
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
        INSTALLED_APPS=["rest_framework", "django_filters", f"{__name__}.TrackerConfig"],
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}},
        USE_TZ=True,
        TIME_ZONE="UTC",
        MIDDLEWARE=[],
        REST_FRAMEWORK={
            "DEFAULT_RENDERER_CLASSES": ("rest_framework.renderers.JSONRenderer",),
            "DEFAULT_PARSER_CLASSES": ("rest_framework.parsers.JSONParser",),
            "DEFAULT_FILTER_BACKENDS": (
                "django_filters.rest_framework.DjangoFilterBackend",
                "rest_framework.filters.SearchFilter",
                "rest_framework.filters.OrderingFilter",
            ),
            "DEFAULT_AUTHENTICATION_CLASSES": [],
            "DEFAULT_PERMISSION_CLASSES": [],
            "UNAUTHENTICATED_USER": None,
        },
    )
    django.setup()
    from django.utils import timezone

    timezone.now = lambda: CLOCK  # the frozen clock: auto_now_add and the close action read it
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
        STATUSES = [("open", "open"), ("doing", "doing"), ("done", "done")]
        title = models.CharField(max_length=120)
        status = models.CharField(max_length=8, choices=STATUSES, default="open")
        priority = models.IntegerField(default=2)
        due = models.DateField(null=True, blank=True)
        project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="tasks")
        assignee = models.ForeignKey(Person, on_delete=models.SET_NULL, null=True, blank=True,
                                     related_name="tasks")
        created_at = models.DateTimeField(auto_now_add=True)
        closed_at = models.DateTimeField(null=True, blank=True)

        class Meta:
            app_label = LABEL
            ordering = ["id"]

    return Person, Project, Task


def define_serializers(Person, Project, Task):
    from rest_framework import serializers

    class PersonSerializer(serializers.ModelSerializer):
        class Meta:
            model = Person
            fields = ["id", "name", "email", "role"]

    class ProjectSerializer(serializers.ModelSerializer):
        class Meta:
            model = Project
            fields = ["id", "code", "name", "budget", "active"]

    class AssigneeSerializer(serializers.ModelSerializer):
        class Meta:
            model = Person
            fields = ["id", "name"]

    class TaskSerializer(serializers.ModelSerializer):
        assignee = AssigneeSerializer(read_only=True)
        assignee_id = serializers.PrimaryKeyRelatedField(queryset=Person.objects.all(), source="assignee",
                                                         write_only=True, allow_null=True, required=False)

        class Meta:
            model = Task
            fields = ["id", "title", "status", "priority", "due", "project", "assignee", "assignee_id",
                      "created_at", "closed_at"]
            read_only_fields = ["created_at", "closed_at"]

    return PersonSerializer, ProjectSerializer, TaskSerializer


def define_views(models_, serializers_):
    from rest_framework import pagination, viewsets
    from rest_framework.decorators import action
    from rest_framework.response import Response

    Person, Project, Task = models_
    PersonSerializer, ProjectSerializer, TaskSerializer = serializers_

    class TaskPages(pagination.PageNumberPagination):
        page_size = 10
        page_size_query_param = "page_size"
        max_page_size = 50

    class ProjectPages(pagination.LimitOffsetPagination):
        default_limit = 10
        max_limit = 50

    class PersonViewSet(viewsets.ModelViewSet):
        queryset = Person.objects.all()
        serializer_class = PersonSerializer
        pagination_class = None
        filterset_fields = {"role": ["exact"], "name": ["icontains"], "email": ["isnull"]}
        search_fields = ["name", "email"]
        ordering_fields = ["id", "name", "email"]

    class ProjectViewSet(viewsets.ModelViewSet):
        queryset = Project.objects.all()
        serializer_class = ProjectSerializer
        pagination_class = ProjectPages
        filterset_fields = {"code": ["exact", "in"], "active": ["exact"], "budget": ["exact", "gte", "lte"]}
        search_fields = ["name", "code"]
        ordering_fields = ["id", "name", "code", "budget"]

        @action(detail=True, methods=["get"])
        def tasks(self, request, pk=None):
            project = self.get_object()
            return Response(TaskSerializer(project.tasks.all(), many=True).data)

    class TaskViewSet(viewsets.ModelViewSet):
        queryset = Task.objects.select_related("assignee").all()
        serializer_class = TaskSerializer
        pagination_class = TaskPages
        filterset_fields = {
            "status": ["exact", "in"], "priority": ["exact", "gte", "gt", "lte", "lt"],
            "title": ["icontains", "startswith"], "due": ["isnull", "gte", "lte"],
            "project": ["exact"], "project__code": ["exact"], "assignee": ["exact", "isnull"],
        }
        search_fields = ["title"]
        ordering_fields = ["id", "title", "priority", "due", "status"]

        @action(detail=True, methods=["post"])
        def close(self, request, pk=None):
            from django.utils import timezone

            task = self.get_object()
            task.status = "done"
            task.closed_at = timezone.now()
            task.save()
            return Response(TaskSerializer(task).data)

    return PersonViewSet, ProjectViewSet, TaskViewSet


def define() -> None:
    """Models, serializers, views and routes (after django.setup(): the models need the registry)."""
    from django.urls import include, path
    from rest_framework.routers import DefaultRouter

    models_ = define_models()
    people, projects, tasks = define_views(models_, define_serializers(*models_))
    router = DefaultRouter()
    router.register("projects", projects)
    router.register("tasks", tasks)
    router.register("people", people)
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
