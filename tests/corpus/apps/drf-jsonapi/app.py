"""A small library served as JSON:API by Django REST framework JSON:API (Django + SQLite).

Run with the app's own .venv Python: `.venv/bin/python app.py DB_PATH PORT` (record.py starts it;
`seed.py` fills the same database before it starts, importing this module).

Three collections: `/authors/`, `/books/` and `/members/` (DRF's DefaultRouter, trailing slashes).
A book has a `status` (available, loaned, lost), `pages` and a `rating`, is written by one author
(`author`, many-to-one, PROTECT: an author a book names refuses its delete with 409) and may be lent
to a member (`borrower`, many-to-one, SET_NULL: deleting the member clears it). Member `email` and
book `isbn` are unique (DRF answers 400). Related routes (`/books/1/author/`, `/authors/1/books/`,
RelatedMixin) and relationship views (`/books/1/relationships/borrower`, RelationshipView). The
package's settings are its documented ones (its parser, renderer, exception handler, its
LimitOffset pagination, QueryParameterValidationFilter, OrderingFilter as `sort`, its
DjangoFilterBackend for `filter[...]`). No field holds a clock value, so every capture answers the
same bytes for the same calls. Served by the stdlib's wsgiref on 127.0.0.1 only.
"""

from __future__ import annotations

import sys

import django
from django.apps import AppConfig
from django.conf import settings

LABEL = "library"


class LibraryConfig(AppConfig):
    name = __name__
    label = LABEL
    default_auto_field = "django.db.models.AutoField"


def configure(db_path: str) -> None:
    settings.configure(
        DEBUG=False,
        SECRET_KEY="corpus-recording-only",
        ALLOWED_HOSTS=["127.0.0.1"],
        ROOT_URLCONF=__name__,
        INSTALLED_APPS=["rest_framework", "django_filters", f"{__name__}.LibraryConfig"],
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": db_path}},
        USE_TZ=True,
        MIDDLEWARE=[],
        REST_FRAMEWORK={
            "PAGE_SIZE": 50,
            "EXCEPTION_HANDLER": "rest_framework_json_api.exceptions.exception_handler",
            "DEFAULT_PAGINATION_CLASS": "rest_framework_json_api.pagination.JsonApiLimitOffsetPagination",
            "DEFAULT_PARSER_CLASSES": ("rest_framework_json_api.parsers.JSONParser",),
            "DEFAULT_RENDERER_CLASSES": ("rest_framework_json_api.renderers.JSONRenderer",),
            "DEFAULT_METADATA_CLASS": "rest_framework_json_api.metadata.JSONAPIMetadata",
            "DEFAULT_FILTER_BACKENDS": (
                "rest_framework_json_api.filters.QueryParameterValidationFilter",
                "rest_framework_json_api.filters.OrderingFilter",
                "rest_framework_json_api.django_filters.DjangoFilterBackend",
            ),
            "DEFAULT_AUTHENTICATION_CLASSES": [],
            "DEFAULT_PERMISSION_CLASSES": [],
            "UNAUTHENTICATED_USER": None,
            "TEST_REQUEST_DEFAULT_FORMAT": "vnd.api+json",
        },
    )
    django.setup()
    define()


def define() -> None:
    """Models, serializers, views and routes (after django.setup(): the models need the registry)."""
    from django.db import models
    from django.urls import re_path
    from rest_framework.routers import DefaultRouter
    from rest_framework_json_api import relations, serializers, views
    from rest_framework_json_api.exceptions import Conflict

    g = globals()

    class Author(models.Model):
        name = models.CharField(max_length=80)
        country = models.CharField(max_length=40)
        born = models.IntegerField(null=True)

        class Meta:
            app_label = LABEL
            ordering = ["id"]

    class Member(models.Model):
        name = models.CharField(max_length=80)
        email = models.EmailField(unique=True)

        class Meta:
            app_label = LABEL
            ordering = ["id"]

    class Book(models.Model):
        STATUSES = [("available", "available"), ("loaned", "loaned"), ("lost", "lost")]
        title = models.CharField(max_length=120)
        isbn = models.CharField(max_length=20, unique=True)
        status = models.CharField(max_length=12, choices=STATUSES, default="available")
        pages = models.IntegerField()
        rating = models.IntegerField(default=3)
        author = models.ForeignKey(Author, on_delete=models.PROTECT, related_name="books")
        borrower = models.ForeignKey(Member, on_delete=models.SET_NULL, null=True, blank=True,
                                     related_name="loans")

        class Meta:
            app_label = LABEL
            ordering = ["id"]

    class AuthorSerializer(serializers.ModelSerializer):
        books = relations.ResourceRelatedField(many=True, read_only=True, related_link_view_name="author-related",
                                               self_link_view_name="author-relationships")
        included_serializers = {"books": f"{__name__}.BookSerializer"}

        class Meta:
            model = Author
            fields = ["name", "country", "born", "books", "url"]

    class MemberSerializer(serializers.ModelSerializer):
        loans = relations.ResourceRelatedField(many=True, read_only=True, related_link_view_name="member-related",
                                               self_link_view_name="member-relationships")
        included_serializers = {"loans": f"{__name__}.BookSerializer"}

        class Meta:
            model = Member
            fields = ["name", "email", "loans", "url"]

    class BookSerializer(serializers.ModelSerializer):
        author = relations.ResourceRelatedField(queryset=Author.objects, related_link_view_name="book-related",
                                                self_link_view_name="book-relationships")
        borrower = relations.ResourceRelatedField(queryset=Member.objects, required=False, allow_null=True,
                                                  related_link_view_name="book-related",
                                                  self_link_view_name="book-relationships")
        included_serializers = {"author": f"{__name__}.AuthorSerializer", "borrower": f"{__name__}.MemberSerializer"}

        class Meta:
            model = Book
            fields = ["title", "isbn", "status", "pages", "rating", "author", "borrower", "url"]

    class AuthorViewSet(views.ModelViewSet):
        queryset = Author.objects.all()
        serializer_class = AuthorSerializer
        filterset_fields = {"name": ["exact", "icontains"], "country": ["exact", "in"], "born": ["exact", "lt", "gt"]}
        ordering_fields = ["id", "name", "country", "born"]

        def perform_destroy(self, instance):
            try:
                instance.delete()
            except models.ProtectedError:
                raise Conflict("This author has books and cannot be deleted.")

    class MemberViewSet(views.ModelViewSet):
        queryset = Member.objects.all()
        serializer_class = MemberSerializer
        filterset_fields = {"name": ["exact", "icontains"], "email": ["exact"]}
        ordering_fields = ["id", "name", "email"]

    class BookViewSet(views.ModelViewSet):
        queryset = Book.objects.all()
        serializer_class = BookSerializer
        filterset_fields = {
            "title": ["exact", "icontains"], "status": ["exact", "in"], "pages": ["exact", "gt", "gte", "lt", "lte"],
            "rating": ["exact", "gte", "lte"], "author": ["exact", "in"], "author__name": ["exact", "icontains"],
            "author__country": ["exact"], "borrower": ["exact", "isnull"], "isbn": ["exact"],
        }
        ordering_fields = ["id", "title", "status", "pages", "rating", "author__name"]

    class RelationshipView(views.RelationshipView):
        pass

    def relationship_view(model):
        return type(f"{model.__name__}RelationshipView", (RelationshipView,), {"queryset": model.objects.all()})

    router = DefaultRouter()
    router.register("authors", AuthorViewSet)
    router.register("books", BookViewSet)
    router.register("members", MemberViewSet)
    patterns = []
    for prefix, viewset, model in (("authors", AuthorViewSet, Author), ("books", BookViewSet, Book),
                                   ("members", MemberViewSet, Member)):
        base = model.__name__.lower()
        patterns.append(re_path(rf"^{prefix}/(?P<pk>[^/.]+)/(?P<related_field>[-\w]+)/$",
                                viewset.as_view({"get": "retrieve_related"}), name=f"{base}-related"))
        patterns.append(re_path(rf"^{prefix}/(?P<pk>[^/.]+)/relationships/(?P<related_field>[-\w]+)$",
                                relationship_view(model).as_view(), name=f"{base}-relationships"))
    g.update(Author=Author, Member=Member, Book=Book, AuthorSerializer=AuthorSerializer,
             MemberSerializer=MemberSerializer, BookSerializer=BookSerializer,
             urlpatterns=router.urls + patterns)


def main() -> None:
    from wsgiref.simple_server import WSGIRequestHandler, make_server

    db_path, port = sys.argv[1], int(sys.argv[2])
    configure(db_path)
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
