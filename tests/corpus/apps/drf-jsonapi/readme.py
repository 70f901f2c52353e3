"""The captures' README for the DRF JSON:API library (written by record.py after each recording)."""

from appdriver import CAPTURE_FILES
from harlib import app_version, producer_notes, render_steps, render_summary_table

import record as R
import seed as S

PINNED = ["djangorestframework-jsonapi", "djangorestframework", "Django", "django-filter", "inflection"]


def seed_tables() -> str:
    rows = ["| type (collection) | id | what | other attributes |", "| --- | ---: | --- | --- |"]
    for i, (name, country, born) in enumerate(S.AUTHORS, 1):
        rows.append(f"| Author (`authors`) | {i} | {name} | country={country}, born={born} |")
    for i, (name, email) in enumerate(S.MEMBERS, 1):
        rows.append(f"| Member (`members`) | {i} | {name} | email={email} |")
    for i, (title, isbn, status, pages, rating, author, borrower) in enumerate(S.BOOKS, 1):
        who = f"{borrower} ({S.MEMBERS[borrower - 1][0]})" if borrower else "null"
        rows.append(f"| Book (`books`) | {i} | {title} | isbn={isbn}, status={status}, pages={pages}, "
                    f"rating={rating}, author={author} ({S.AUTHORS[author - 1][0]}), borrower={who} |")
    return "\n".join(rows)


STYLES = """| style | here |
| --- | --- |
| `next` links, Link headers, page numbers | `page[offset]` + `page[limit]` (the package's `JsonApiLimitOffsetPagination`, default 50, at most 100); a list answers top-level `links` `first`, `last`, `next`, `prev` (null when absent), absolute URLs whose query is re-encoded in sorted order (`?include=author&page%5Blimit%5D=2&page%5Boffset%5D=2&sort=-rating%2Ctitle`); `last` is `(count // limit) * limit` (past the end when the count is a multiple of the limit); `meta.pagination` holds `count`, `limit`, `offset` |
| sort and filter parameters | `filter[field]=v` and Django lookups through the package's `DjangoFilterBackend` (`filter[status.in]=a,b`, `filter[title.icontains]=x`, `filter[rating.gte]=5`, `filter[pages.lt]=200`, `filter[borrower.isnull]=true`), a relationship by id (`filter[author]=2`, `filter[author.in]=1,4`) or by a related attribute (`filter[author.name]=…`); an unknown filter or sort field answers 400; `sort=-a,b` (also `author.name`); `fields[Book]=a,b`; `include=author,borrower` (compound documents: `included`) |
| action routes, RPC bodies naming the targets | related routes (`GET /books/<id>/author/`, `/books/<id>/borrower/`, `/authors/<id>/books/`, `/members/<id>/loans/`, RelatedMixin) and relationship views (`GET /books/<id>/relationships/author`, `PATCH` with `{data: {type, id}}`, RelationshipView) |
| generated ids nested in created objects | `POST` answers 201 with the created resource (`data.id` a string) and `Location` |
| cascading deletes | deleting a member clears the `borrower` of its books (SET_NULL); deleting an author a book names is refused (409, PROTECT) |
| validation errors and conflicts | `{"errors": [{"detail", "status", "source": {"pointer"}, "code"}]}`: 404 (missing item), 400 (a unique email or isbn that exists, a required attribute missing, a value not a choice, no `id` in a `PATCH` body, an unknown filter or sort), 409 (a type not the collection's, an author's delete while a book names them) |
| fused ids, operator query languages, keyset cursors, upserts, ETag, documents, soft delete | no |"""


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    venv = R.HERE / ".venv"
    pins = ", ".join(f"`{d}=={app_version(venv, d)}`" for d in PINNED)
    return f"""# Django REST framework JSON:API captures

Real HTTP traffic of a small library served as JSON:API by **djangorestframework-jsonapi {ver}**
(Django REST framework, django-filter, Django with SQLite), the one-file app of `app.py` in this
folder: three models with the package's `ModelSerializer`, `ModelViewSet` (with `RelatedMixin`)
and `RelationshipView`, the package's documented settings (parser, renderer, exception handler,
`JsonApiLimitOffsetPagination`, `QueryParameterValidationFilter`, `OrderingFilter`,
`DjangoFilterBackend`). Recorded on loopback by `record.sh` in this folder: it installs {pins} from
PyPI into `.venv`, and for each capture removes `run/{R.DB}`, runs `seed.py`, starts
`.venv/bin/python app.py run/{R.DB} {R.APP_PORT}` (the stdlib's wsgiref server, 127.0.0.1 only,
`PYTHONHASHSEED=0`), records through mitmdump on port {R.PROXY_PORT}, and stops both by PID with
SIGINT.

{CAPTURE_FILES}

{render_summary_table(summaries)}

## The app (`app.py`)

| collection | type | attributes | relationships |
| --- | --- | --- | --- |
| `/authors/` | `Author` | `name`, `country`, `born` | `books` (to-many, read-only: the books written) |
| `/members/` | `Member` | `name`, `email` (unique) | `loans` (to-many, read-only: the books borrowed) |
| `/books/` | `Book` | `title` (required), `isbn` (unique, required), `status` (a choice of available, loaned, lost; default available), `pages` (required), `rating` (default 3) | `author` (to-one, required, PROTECT), `borrower` (to-one, optional, SET_NULL) |

Every collection is ordered by id. No attribute holds a clock value.

## Seed (the same before every capture; not recorded)

`seed.py` (the app's own Python) creates the tables and, in this order (so the ids are the same in
every capture):

{seed_tables()}

Every recorded request sends `Accept: {R.JSONAPI}`; writes send `Content-Type: {R.JSONAPI}`.
Query strings are written with their brackets unencoded (`filter[status]=available`); a value
holding a space is percent-encoded. Pages are followed through the server's own `links.next`,
which spells the query percent-encoded and sorted by name.

{render_steps(steps)}
## What each capture tests

- **build.har** — the three collections; filters on an attribute, a `.in` comma list, a
  relationship id (`filter[author]=2`), two filters at once, lookups (`.gte`, `.icontains`,
  `.isnull`) and a related attribute (`filter[author.name]`); sorts (`-rating,title`, `pages`,
  authors by `-name`, books by `author.name,title`); sparse fields (`fields[Book]=title,status`);
  pages of 4 and of 2 (filtered) followed through `links.next`; `include=author` and
  `include=author,borrower` on lists and `include=books` on an item; items; related routes
  (`/books/4/author/`, `/books/4/borrower/`, `/authors/2/books/`, `/members/1/loans/`) and
  relationship views; missing book and member (404); an unknown filter and sort (400). Then the
  writes, each followed by reads: create a book (201 with the generated id), `PATCH` two
  attributes, `PATCH /books/<id>/relationships/author`, pass a lent book to another member through
  its relationship view; create an author and change them, a book by them, the author's delete
  refused while the book names them (409), the book and the author deleted (204, then 404); a
  member created, lent a book by a `relationships` member in a `PATCH` body, deleted (the book's
  borrower becomes null); refusals (an email that exists, a missing title, a status not a choice,
  a `PATCH` without `id`: 400; a type not the collection's: 409; a missing book: 404); the newest
  books, 5 a page, followed.
- **probe-reads.har** — filter values the build never used (loaned, `available,lost`, author 3,
  authors `1,4`, Noor, rating 4 with available, an exact title, `OF` in any case, another author's
  name, rating 4 or more, fewer than 200 pages, borrowed books, PL authors, a country no author
  has, a member by email), other sorts and sparse fields, filter + sort + fields together; a page
  asked directly, an offset off a page boundary, pages of 5 and a filtered sorted paging of 3
  followed to the end, members 2 a page, an offset past the end; other includes, items, related
  routes (an empty to-one answers `data: null`) and relationship views; missing book, author and
  member (404), another unknown filter (400); items the build read, asked with `fields[Book]` and
  with `include`.
- **probe-crud.har** — a book created by author 2, read in filtered lists and its author's
  related route, `PATCH`ed (title, rating) and moved by `PATCH /books/<id>/relationships/author`;
  a seeded book set lost and another deleted, the lists and pages of 4 read after; an author
  created, renamed, their delete refused while a book names them (409), then deleted; a member
  created, handed a book through its relationship view, deleted (the book's borrower becomes
  null); refusals (an email and an isbn that exist: 400; a type not the collection's: 409; a
  missing book and member: 404); books the build read by id (1 and 4) changed and one deleted,
  each read back.

## API styles this app shows (corpus checklist)

{STYLES}

## What a faithful environment should do

**Envelopes.** A list answers `{{"links": {{"first", "last", "next", "prev"}}, "data": [...],
"included"?, "meta": {{"pagination": {{"count", "limit", "offset"}}}}}}`; an item `{{"data": ...}}`
(with `included` when asked). A resource is `{{"type", "id" (a string), "attributes",
"relationships", "links": {{"self": "http://127.0.0.1:{R.APP_PORT}/books/1/"}}}}`; every relationship
carries its identifiers (`data`: an object or null to-one, a list to-many with `meta.count`) and
absolute `links` `self` (`/books/1/relationships/author`) and `related` (`/books/1/author/`);
`fields[Type]` drops attributes and relationships not named. A related route answers the related
resource(s) (`data: null` for an empty to-one), a relationship view the identifiers only. A
`PATCH` answers the whole updated resource, a `DELETE` 204 with no body.

**Not deterministic across captures.** Only the `Date` headers. Ids, bodies, links and
`included` order are the same in every capture.

## What the captures cannot show

- `PATCH /books/<id>/relationships/borrower` on a book with no borrower answers 400 in this
  package version (`Incorrect model type. Expected <class 'NoneType'>`: the view takes the type
  from the current value), so the recorded relationship-view writes change a set relationship; a
  borrower is set from null by a `relationships` member in a `PATCH` of the book.
- To-many relationship writes (`POST`/`DELETE` on `/authors/<id>/relationships/books`), bulk
  creates and the `page[number]` pagination are not recorded.

## HAR producer notes

{producer_notes(summaries)}
- The stdlib's wsgiref server answers HTTP/1.0 (`Server: WSGIServer/0.2 CPython/3.11.7`); answers
  are compact JSON (`application/vnd.api+json`), errors `{{"errors": [...]}}`.
"""
