"""A small library served by django-tastypie (three ModelResources under `/api/v1/`).

Run with the app's own venv Python: `python app.py PORT` (record.py starts it). The database is
Django's SQLite in memory: at start the app creates the tables and the seed of `seed.py` with
explicit ids and clocks, so every start holds the same rows and later creates draw the same next
ids. The app's clock is frozen (`timezone.now` answers `CLOCK`), so a loan's `created_at` is the
same in every capture. Served by the stdlib's wsgiref on 127.0.0.1 only.

Three tastypie ModelResources on one `Api(api_name="v1")`: `/api/v1/author/` (writes answer
without a body: 201 with a Location header, 204), `/api/v1/book/` and `/api/v1/loan/`
(`always_return_data`: 201 and 202 with the object). A book names its author and a loan its book by
resource URI (`ToOneField`). Authorization is tastypie's permissive `Authorization()` (its default
is read-only), no authentication. Filters are tastypie's `filtering` (`field__lookup=value`, a
relation's fields through `ALL_WITH_RELATIONS`), `order_by=` its `ordering`, pages `limit`/`offset`
in `{meta, objects}`.
"""

from __future__ import annotations

import datetime as dt
import sys

import django
from django.apps import AppConfig
from django.conf import settings

LABEL = "library"
CLOCK = dt.datetime(2026, 12, 6, 9, 30, tzinfo=dt.timezone.utc)


class LibraryConfig(AppConfig):
    name = __name__
    label = LABEL
    default_auto_field = "django.db.models.AutoField"


def configure() -> None:
    settings.configure(
        DEBUG=False,
        SECRET_KEY="corpus-recording-only",
        ALLOWED_HOSTS=["127.0.0.1"],
        ROOT_URLCONF=__name__,
        INSTALLED_APPS=[f"{__name__}.LibraryConfig"],
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}},
        USE_TZ=True,
        TIME_ZONE="UTC",
        MIDDLEWARE=[],
        API_LIMIT_PER_PAGE=20,
        TASTYPIE_DEFAULT_FORMATS=["json"],
    )
    django.setup()
    from django.utils import timezone

    timezone.now = lambda: CLOCK  # the frozen clock: auto_now_add reads it
    define()


def define_models():
    from django.db import models

    class Author(models.Model):
        name = models.CharField(max_length=80)
        country = models.CharField(max_length=2)
        born = models.IntegerField()

        class Meta:
            app_label = LABEL
            ordering = ["id"]

    class Book(models.Model):
        title = models.CharField(max_length=120)
        author = models.ForeignKey(Author, on_delete=models.CASCADE, related_name="books")
        year = models.IntegerField()
        pages = models.IntegerField(default=0)
        genre = models.CharField(max_length=20, default="literary")
        available = models.BooleanField(default=True)
        summary = models.TextField(null=True, blank=True)

        class Meta:
            app_label = LABEL
            ordering = ["id"]

    class Loan(models.Model):
        book = models.ForeignKey(Book, on_delete=models.CASCADE, related_name="loans")
        borrower = models.CharField(max_length=80)
        loaned_on = models.DateField()
        returned_on = models.DateField(null=True, blank=True)
        created_at = models.DateTimeField(auto_now_add=True)

        class Meta:
            app_label = LABEL
            ordering = ["id"]

    return Author, Book, Loan


def define_resources(Author, Book, Loan):
    from tastypie import fields
    from tastypie.authorization import Authorization
    from tastypie.constants import ALL_WITH_RELATIONS
    from tastypie.resources import ModelResource

    class AuthorResource(ModelResource):
        class Meta:
            queryset = Author.objects.all()
            resource_name = "author"
            authorization = Authorization()
            filtering = {"name": ["exact", "icontains", "startswith"], "country": ["exact", "in"],
                         "born": ["exact", "gte", "lte"]}
            ordering = ["name", "born", "country"]

    class BookResource(ModelResource):
        author = fields.ToOneField(AuthorResource, "author")

        class Meta:
            queryset = Book.objects.select_related("author").all()
            resource_name = "book"
            authorization = Authorization()
            always_return_data = True
            limit = 5
            filtering = {"title": ["exact", "icontains", "startswith"], "year": ["exact", "gte", "lte", "in"],
                         "pages": ["gte", "lte"], "genre": ["exact", "in"], "available": ["exact"],
                         "summary": ["isnull"], "author": ALL_WITH_RELATIONS}
            ordering = ["title", "year", "pages", "genre"]

    class LoanResource(ModelResource):
        book = fields.ToOneField(BookResource, "book")

        class Meta:
            queryset = Loan.objects.select_related("book").all()
            resource_name = "loan"
            authorization = Authorization()
            always_return_data = True
            limit = 4
            filtering = {"borrower": ["exact", "icontains"], "loaned_on": ["gte", "lte"],
                         "returned_on": ["isnull"], "book": ALL_WITH_RELATIONS}
            ordering = ["loaned_on", "borrower"]

    return AuthorResource, BookResource, LoanResource


def define() -> None:
    """Models, resources and routes (after django.setup(): the models need the registry)."""
    from django.urls import include, path
    from tastypie.api import Api

    models_ = define_models()
    api = Api(api_name="v1")
    for resource in define_resources(*models_):
        api.register(resource())
    globals().update(Author=models_[0], Book=models_[1], Loan=models_[2],
                     urlpatterns=[path("api/", include(api.urls))])


def seed() -> None:
    """The tables and the seed rows of `seed.py` (explicit ids; `created_at` set after the insert)."""
    from django.db import connection, transaction

    import seed as S

    with connection.schema_editor() as editor:
        for model in (Author, Book, Loan):
            editor.create_model(model)
    with transaction.atomic():
        for a in S.AUTHORS:
            Author.objects.create(**a)
        for b in S.BOOKS:
            Book.objects.create(**b)
        for loan in S.LOANS:
            Loan.objects.create(**{k: v for k, v in loan.items() if k != "created_at"})
            Loan.objects.filter(id=loan["id"]).update(created_at=loan["created_at"])
        with connection.cursor() as cur:  # later creates draw the next number after the seed's
            for model, rows in ((Author, S.AUTHORS), (Book, S.BOOKS), (Loan, S.LOANS)):
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
