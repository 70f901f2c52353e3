"""The captures' README for the tastypie library (written by record.py after each recording)."""

from appdriver import CAPTURE_FILES
from harlib import app_version, producer_notes, render_steps, render_summary_table

import record as R
import seed as S

PINNED = ["Django", "django-tastypie"]


def seed_tables() -> str:
    names = {a["id"]: a["name"] for a in S.AUTHORS}
    titles = {b["id"]: b["title"] for b in S.BOOKS}
    rows = ["| route | id | what | other fields |", "| --- | ---: | --- | --- |"]
    for a in S.AUTHORS:
        rows.append(f"| `/api/v1/author/` | {a['id']} | {a['name']} | country={a['country']}, born={a['born']} |")
    for b in S.BOOKS:
        rows.append(f"| `/api/v1/book/` | {b['id']} | {b['title']} | author={b['author_id']} "
                    f"({names[b['author_id']]}), year={b['year']}, pages={b['pages']}, genre={b['genre']}, "
                    f"available={str(b['available']).lower()}, summary={'set' if b['summary'] else 'null'} |")
    for loan in S.LOANS:
        back = loan["returned_on"] or "null"
        made = loan["created_at"].isoformat().replace("+00:00", "")
        rows.append(f"| `/api/v1/loan/` | {loan['id']} | {loan['borrower']} | book={loan['book_id']} "
                    f"({titles[loan['book_id']]}), loaned_on={loan['loaned_on']}, returned_on={back}, "
                    f"created_at={made} |")
    return "\n".join(rows)


STYLES = """| style | here |
| --- | --- |
| `next` links, Link headers, page numbers | `limit`/`offset` in `{meta: {limit, next, offset, previous, total_count}, objects}`; `next`/`previous` are paths (the query kept, `limit` and `offset` appended); books 5 a page, loans 4, authors 20 (`API_LIMIT_PER_PAGE`); `limit=0` answers every row; an offset past the end an empty page |
| sort and filter parameters | tastypie `filtering` lookups `field__lookup=value`: exact (the field's own name, a relation's primary key `author=2`), `__gte`, `__lte`, `__icontains`, `__startswith`, `__in` (a comma list), `__isnull` (`true`/`false`), a related resource's fields across the relation (`author__country=SE`, `book__author=1`); `order_by=-year`, repeated for a second key (ties by id); a filter or ordering not allowed answers 400 `{"error": …}` |
| action routes, RPC bodies naming the targets | `/api/v1/` lists each resource's `list_endpoint` and `schema`; `/api/v1/<r>/schema/` describes its fields, filtering and ordering |
| generated ids nested in created objects | `POST` answers 201 with a `Location` path; books and loans (`always_return_data`) also answer the created object, authors answer no body |
| updates | `PATCH` answers 202: books and loans with the object, authors without a body; `PUT` answers 202 with the object (books, loans) or 204 (authors); `DELETE` answers 204; an author's delete deletes their books and those books' loans (CASCADE) |
| relation fields | a book's `author` and a loan's `book` are resource URIs (`/api/v1/author/3/`), written the same way; every object carries its own `resource_uri` |
| validation errors and conflicts | 400 `{"error": "The 'book' field has no data and doesn't allow a default or null value."}`; a missing row answers 404 with an empty body |
| fused ids, keyset cursors, upserts, documents, soft delete, ETags | no; a loan's `created_at` is a clock (the app's clock is frozen, written without a zone) |"""


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    pins = ", ".join(f"`{d}=={app_version(R.VENV, d)}`" for d in PINNED)
    return f"""# django-tastypie captures

Real HTTP traffic of a small library served by **django-tastypie** ({ver}): the app is `app.py`
in this folder, its seed `seed.py` (authors, books naming an author, loans naming a book).
Django's SQLite is in memory; every start creates the tables and the seed with explicit ids and
clocks, and the app's clock is frozen at {R.APP_CLOCK}, so every capture starts from the same rows
and writes the same clocks. Recorded by `record.sh` in this folder: it makes a venv under `/tmp`
and installs {pins}
(the `==` pins of `requirements.txt`, PyPI), and for each capture starts `python app.py {R.APP_PORT}`
(wsgiref, 127.0.0.1 only), records through mitmdump on port {R.PROXY_PORT}, and stops both by PID
with SIGINT.

{CAPTURE_FILES}

{render_summary_table(summaries)}

## The app (`app.py`): three ModelResources on `Api(api_name="v1")` under `/api/v1/`

| route | fields | filtering | ordering | writes answer | page |
| --- | --- | --- | --- | --- | --- |
| `/api/v1/author/` | `id`, `name`, `country`, `born` (all required), `resource_uri` | `name` (exact, icontains, startswith), `country` (exact, in), `born` (exact, gte, lte) | `name`, `born`, `country` | no body (201 with a Location, 202, 204) | 20 |
| `/api/v1/book/` | `id`, `title`, `author` (a resource URI, required), `year` (required), `pages` (default 0), `genre` (default literary), `available` (default true), `summary` (may be null), `resource_uri` | `title` (exact, icontains, startswith), `year` (exact, gte, lte, in), `pages` (gte, lte), `genre` (exact, in), `available`, `summary` (isnull), `author` with its fields | `title`, `year`, `pages`, `genre` | the object (`always_return_data`) | 5 |
| `/api/v1/loan/` | `id`, `book` (a resource URI, required), `borrower`, `loaned_on` (required), `returned_on` (may be null), `created_at` (the clock), `resource_uri` | `borrower` (exact, icontains), `loaned_on` (gte, lte), `returned_on` (isnull), `book` with its fields | `loaned_on`, `borrower` | the object (`always_return_data`) | 4 |

Authorization is tastypie's permissive `Authorization()`, no authentication. Lists are in id order
unless `order_by` says otherwise.

## Seed (the same before every capture; not recorded)

{seed_tables()}

Every recorded request sends `Accept: application/json`; writes with a body send `Content-Type:
application/json`. Query values are percent-encoded, commas kept.

{render_steps(steps)}
## What each capture tests

- **build.har** — the API root and two schemas; the three collections (books and loans walked by
  `meta.next`); equality on a string, a relation's primary key, a boolean, two fields; `__gte`,
  `__lte` and both, `__icontains`, `__startswith`, `__in` on numbers and strings, `__isnull`,
  a related author's country and name, a loan's book's genre, a date `__gte`; orderings by
  one key both ways and by two; pages of 3 and of 2 (filtered) walked by `next`, pages asked by
  offset, an offset past the end, `limit=0`, `format=json`; items and 404s. Then the writes, each
  followed by reads: a book created, patched, put (another author), deleted; an author created
  (no body, a Location), patched, put, given a book, deleted (the book with them); a loan created
  and another returned; refusals (400 for a missing field, a filter not allowed, an unknown
  ordering, a value that is not a number; 404s).
- **probe-reads.har** — other values; `pages__gte`/`__lte` (never in the build), an exact title,
  `__in` with one value, `__isnull=false`, an author's year of birth across the relation (with a genre), a
  loan's book's author (two relations), a borrower `__icontains`, a date `__lte`; other orderings;
  other pages; other items, the loan schema, 404s.
- **probe-crud.har** — a book created, patched, put to another author, seeded books changed and
  deleted, all books walked; an author created, patched, put, deleted, a seeded author deleted
  (their books and loans go too); loans created, returned, put, deleted, all walked; refusals.

## API styles this app shows (corpus checklist)

{STYLES}

## What a faithful environment should do

**Envelopes.** Lists answer `{{meta, objects}}` with `next`/`previous` paths and `total_count`; an
item and the writes of books and loans the object; the author writes no body. A 400 is
`{{"error": …}}`; a 404 has an empty body.

**Not deterministic across captures.** The `Date` headers only (the clock is frozen).

## What the captures cannot show

- The clock a write sets is frozen; a live app's would move.

## HAR producer notes

{producer_notes(summaries)}
- wsgiref answers HTTP/1.0 (`Server: WSGIServer/0.2`), one connection per request.
"""
