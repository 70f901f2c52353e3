"""Record HAR captures of a small library served by django-tastypie; the app is `app.py` in this
folder, its seed `seed.py`.

Run through record.sh (it makes the app's venv from requirements.txt and the recorder's venv). For
each capture `app.py` starts fresh on 127.0.0.1 with Django's SQLite in memory and creates the seed
(explicit ids and clocks, a frozen clock for the writes), the scenario runs through the kit's
mitmdump proxy, and both are stopped by PID. Query strings are written as a tastypie client writes
them: `filtering` lookups as `field__lookup=value` (`year__gte=2000`, `year__in=1968,1983` with the
commas unencoded, `summary__isnull=true`, `author__country=SE` across the relation),
`order_by=-year` (repeated for a second key), `limit`/`offset`; a value with a space is
percent-encoded. Pages are followed through the server's own `meta.next` path.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "kit"))

import httpx  # noqa: E402

from harlib import Recorder  # noqa: E402
from json_client import bare, item, q, read, record_venv_app, send  # noqa: E402

APP_PORT = 18875
PROXY_PORT = 18975
VENV = Path(os.environ.get("REA_TASTYPIE_VENV", "/tmp/rea-tastypie-venv"))
APP_CLOCK = "2026-12-06T09:30:00Z"  # app.CLOCK, the frozen clock
A, B, L = "/api/v1/author/", "/api/v1/book/", "/api/v1/loan/"


# ---------------------------------------------------------------- helpers


def follow(rec: Recorder, path: str, what: str) -> None:
    """Read `path`, then follow the answer's `meta.next` path to the last page."""
    r = read(rec, path, f"{what}: the first page")
    page = 2
    while r.json()["meta"].get("next"):
        r = read(rec, r.json()["meta"]["next"], f"{what}: page {page} from `meta.next`")
        page += 1


def created_id(r: httpx.Response) -> int:
    """The new row's id from the Location header (`/api/v1/<r>/<id>/`): authors answer no body."""
    return int(r.headers["location"].rstrip("/").rsplit("/", 1)[1])


# ---------------------------------------------------------------- build
def build_lists(rec: Recorder) -> None:
    rec.section("The API root, schemas and collections (books 5 a page, loans 4, authors 20)")
    read(rec, "/api/v1/", "the API root: each resource's list endpoint and schema")
    read(rec, item(B, "schema"), "the book schema (fields, filtering, ordering)")
    read(rec, item(A, "schema"), "the author schema")
    follow(rec, B, "all 14 books")
    read(rec, A, "all authors (`meta` and `objects`)")
    follow(rec, L, "all 8 loans")

    rec.section("tastypie filtering: equality and lookups")
    read(rec, q(B, ("genre", "crime")), "crime books")
    read(rec, q(B, ("author", 2)), "Tomas Berg's books (the relation by primary key)")
    read(rec, q(B, ("genre", "fantasy"), ("available", "true")), "available fantasy books (two fields)")
    read(rec, q(B, ("available", "false")), "books out of stock (a boolean)")
    read(rec, q(B, ("year__gte", 2000)), "books from 2000 on (`__gte`)")
    read(rec, q(B, ("year__lte", 1975)), "books up to 1975 (`__lte`)")
    read(rec, q(B, ("year__gte", 1980), ("year__lte", 2000)), "books from 1980 to 2000")
    read(rec, q(B, ("title__icontains", "the")), "titles containing `the`, any case (`__icontains`)")
    read(rec, q(B, ("title__startswith", "The")), "titles starting `The` (`__startswith`)")
    read(rec, q(B, ("year__in", "1968,1983,2009")), "books of 1968, 1983 or 2009 (`__in`, a comma list)")
    read(rec, q(B, ("genre__in", "poetry,crime")), "poetry or crime")
    read(rec, q(B, ("summary__isnull", "true")), "books without a summary (`__isnull`)")
    read(rec, q(B, ("author__country", "SE")), "books by Swedish authors (across the relation)")
    read(rec, q(B, ("author__name", "Hiro Tanaka")), "books by the author named Hiro Tanaka")
    read(rec, q(A, ("country", "NG")), "authors from Nigeria")
    read(rec, q(A, ("born__lte", 1950)), "authors born by 1950")
    read(rec, q(A, ("name__icontains", "ar")), "authors whose name contains `ar`")
    read(rec, q(A, ("country__in", "US,JP")), "authors from the US or Japan")
    read(rec, q(L, ("returned_on__isnull", "true")), "loans not yet returned")
    read(rec, q(L, ("borrower", "Nadia Roy")), "Nadia's loans")
    read(rec, q(L, ("book", 1)), "the loans of book 1")
    read(rec, q(L, ("book__genre", "fantasy")), "loans of fantasy books (across the relation)")
    read(rec, q(L, ("loaned_on__gte", "2026-11-10")), "loans from 10 November on (dates compare)")


def build_orders(rec: Recorder) -> None:
    rec.section("Ordering (`order_by`, `-` descending, repeated for a second key)")
    read(rec, q(B, ("order_by", "year")), "books by year")
    read(rec, q(B, ("order_by", "-pages")), "books by pages descending")
    read(rec, q(B, ("order_by", "title")), "books by title")
    read(rec, q(B, ("order_by", "genre"), ("order_by", "-year")), "by genre, then year descending")
    read(rec, q(A, ("order_by", "-born")), "authors youngest first")
    read(rec, q(L, ("order_by", "-loaned_on")), "loans newest first")
    read(rec, q(B, ("genre", "literary"), ("order_by", "-year")), "literary books, newest first")


def build_pages(rec: Recorder) -> None:
    rec.section("Pages: `limit`/`offset`, `meta.next`/`previous`/`total_count`")
    follow(rec, q(B, ("limit", 3)), "books 3 at a time")
    follow(rec, q(B, ("genre", "fantasy"), ("limit", 2)), "fantasy books 2 at a time")
    read(rec, q(B, ("limit", 4), ("offset", 8)), "books: 4 from the ninth")
    read(rec, q(B, ("order_by", "title"), ("limit", 5), ("offset", 5)), "by title, the second page of 5")
    read(rec, q(A, ("limit", 2), ("offset", 4)), "authors: 2 from the fifth")
    read(rec, q(B, ("offset", 20)), "an offset past the end: an empty page")
    read(rec, q(B, ("limit", 0)), "`limit=0`: every book in one page")
    read(rec, q(B, ("format", "json"), ("limit", 2)), "`format=json` (kept in `meta.next`)")


def build_items(rec: Recorder) -> None:
    rec.section("Items and errors")
    read(rec, item(B, 1), "book 1 (its author a resource URI)")
    read(rec, item(B, 2), "book 2 (no summary: `null`)")
    read(rec, item(A, 3), "author 3")
    read(rec, item(L, 2), "loan 2 (not returned)")
    read(rec, item(L, 4), "loan 4 (returned)")
    read(rec, item(B, 99), "a book that does not exist: 404", expect=404)
    read(rec, item(A, 42), "an author who does not exist: 404", expect=404)
    read(rec, item(L, 77), "a loan that does not exist: 404", expect=404)
    read(rec, "/api/v1/shelf/", "a resource the API does not have: 404", expect=404)


def build_book_writes(rec: Recorder) -> None:
    rec.section("Books (`always_return_data`): create, PATCH, PUT, delete")
    r = send(rec, "POST", B, "create a book by Amara Okafor: 201 with the created book and a Location",
             {"title": "The Reed Boat", "author": "/api/v1/author/3/", "year": 2024, "pages": 210,
              "genre": "literary", "summary": "A boat built from river reeds."}, 201)
    bid = r.json()["id"]
    read(rec, item(B, bid), "read it")
    read(rec, q(B, ("author", 3)), "Amara's books: the new one listed")
    read(rec, q(B, ("year__gte", 2000)), "books from 2000 on: one more")
    send(rec, "PATCH", item(B, bid), "PATCH the pages: 202 with the updated book", {"pages": 230}, 202)
    read(rec, item(B, bid), "read it: 230 pages")
    send(rec, "PUT", item(B, bid), "PUT: another author, out of stock, no summary: 202 with the book",
         {"title": "The Reed Boats", "author": "/api/v1/author/5/", "year": 2023, "pages": 230,
          "genre": "fantasy", "available": False, "summary": None})
    read(rec, item(B, bid), "read it")
    read(rec, q(B, ("author", 5)), "Clara's books: listed")
    read(rec, q(B, ("author", 3)), "Amara's: no longer")
    bare(rec, "DELETE", item(B, bid), "DELETE it: 204", 204)
    read(rec, item(B, bid), "it is gone: 404", expect=404)
    read(rec, q(B, ("limit", 1)), "books: total_count 14 again")


def build_author_writes(rec: Recorder) -> None:
    rec.section("Authors (no `always_return_data`): create, PATCH, PUT, delete with a book")
    r = send(rec, "POST", A, "create an author: 201 without a body, the Location names the new row",
             {"name": "Rosa Kim", "country": "KR", "born": 1990}, 201)
    aid = created_id(r)
    read(rec, item(A, aid), "read Rosa")
    read(rec, q(A, ("country", "KR")), "authors from Korea: Rosa")
    send(rec, "PATCH", item(A, aid), "PATCH the year of birth: 202 without a body", {"born": 1991}, 202)
    read(rec, item(A, aid), "read it: born 1991")
    send(rec, "PUT", item(A, aid), "PUT the whole author: 204", {"name": "Rosa Kim-Lee", "country": "KR", "born": 1991},
         204)
    read(rec, item(A, aid), "read it: the new name")
    send(rec, "POST", B, "a book by Rosa (pages, genre, available default)",
         {"title": "Ink and Snow", "author": f"/api/v1/author/{aid}/", "year": 2025}, 201)
    read(rec, q(B, ("author__country", "KR")), "books by Korean authors")
    bare(rec, "DELETE", item(A, aid), "delete Rosa (her book goes with her: CASCADE)", 204)
    read(rec, item(A, aid), "Rosa is gone: 404", expect=404)
    read(rec, q(B, ("author", aid)), "no books by her any more")
    read(rec, A, "authors: six again")


def build_loan_writes(rec: Recorder) -> None:
    rec.section("Loans: lend a book, return another")
    send(rec, "POST", L, "lend book 4 to Sam: 201 with the loan (`created_at` the clock)",
         {"book": "/api/v1/book/4/", "borrower": "Sam Idris", "loaned_on": "2026-12-05"}, 201)
    read(rec, q(L, ("returned_on__isnull", "true")), "loans not returned: the new one listed")
    send(rec, "PATCH", item(L, 2), "return loan 2: 202 with the loan", {"returned_on": "2026-12-04"}, 202)
    read(rec, item(L, 2), "read it")
    read(rec, q(L, ("borrower", "Owen Park")), "Owen's loans")


def build_refusals(rec: Recorder) -> None:
    rec.section("Refusals")
    send(rec, "POST", L, "a loan without a book: 400 naming the field", {"borrower": "Nobody",
                                                                         "loaned_on": "2026-12-01"}, 400)
    read(rec, q(B, ("pages", 300)), "a filter the resource does not allow (`pages` exact): 400", expect=400)
    read(rec, q(B, ("order_by", "isbn")), "an ordering on a field that does not exist: 400", expect=400)
    read(rec, q(B, ("year__gte", "abc")), "a lookup value that is not a number: 400", expect=400)
    send(rec, "PATCH", item(B, 99), "PATCH a book that does not exist: 404", {"pages": 1}, 404)
    bare(rec, "DELETE", item(A, 99), "DELETE an author who does not exist: 404", 404)


def scenario_build(rec: Recorder) -> None:
    build_lists(rec)
    build_orders(rec)
    build_pages(rec)
    build_items(rec)
    build_book_writes(rec)
    build_author_writes(rec)
    build_loan_writes(rec)
    build_refusals(rec)


# ---------------------------------------------------------------- probe-reads
def probe_filters(rec: Recorder) -> None:
    rec.section("Other values, fields, lookups and combinations")
    read(rec, q(B, ("genre", "poetry")), "poetry")
    read(rec, q(B, ("author", 1)), "Ursula Vance's books")
    read(rec, q(B, ("author", 4), ("available", "true")), "Hiro's available books")
    read(rec, q(B, ("available", "true")), "books in stock")
    read(rec, q(B, ("year__gte", 2015)), "books from 2015 on")
    read(rec, q(B, ("year__lte", 1990), ("genre", "fantasy")), "fantasy up to 1990")
    read(rec, q(B, ("pages__gte", 300)), "300 pages or more (`pages__gte`)")
    read(rec, q(B, ("pages__lte", 200)), "200 pages or fewer")
    read(rec, q(B, ("title__icontains", "LIGHT")), "titles containing `LIGHT`, any case")
    read(rec, q(B, ("title__startswith", "Night")), "titles starting `Night`")
    read(rec, q(B, ("title", "Tidewater")), "a book by its exact title")
    read(rec, q(B, ("year__in", "2019")), "`__in` with one value")
    read(rec, q(B, ("genre__in", "literary,fantasy")), "literary or fantasy")
    read(rec, q(B, ("summary__isnull", "false")), "books with a summary")
    read(rec, q(B, ("author__country", "BG")), "books by Bulgarian authors")
    read(rec, q(B, ("author__born", 1929), ("genre", "fantasy")), "fantasy by the author born in 1929")
    read(rec, q(A, ("country", "PT")), "authors from Portugal")
    read(rec, q(A, ("country", "FR")), "a country nobody is from: empty")
    read(rec, q(A, ("born__gte", 1960)), "authors born from 1960")
    read(rec, q(A, ("name__startswith", "T")), "authors whose name starts `T`")
    read(rec, q(L, ("returned_on__isnull", "false")), "returned loans")
    read(rec, q(L, ("borrower__icontains", "park")), "borrowers containing `park`")
    read(rec, q(L, ("book", 12)), "the loans of book 12")
    read(rec, q(L, ("book__author", 1)), "loans of Ursula's books (two relations)")
    read(rec, q(L, ("loaned_on__lte", "2026-11-05")), "loans up to 5 November")


def probe_orders(rec: Recorder) -> None:
    rec.section("Other orderings")
    read(rec, q(B, ("order_by", "-year")), "books newest first")
    read(rec, q(B, ("order_by", "pages")), "books by pages")
    read(rec, q(B, ("order_by", "-title")), "books by title descending")
    read(rec, q(B, ("order_by", "-genre"), ("order_by", "title")), "by genre descending, then title")
    read(rec, q(A, ("order_by", "name")), "authors by name")
    read(rec, q(A, ("order_by", "country")), "authors by country")
    read(rec, q(L, ("order_by", "borrower"), ("order_by", "-loaned_on")), "loans by borrower, then newest")
    read(rec, q(B, ("available", "true"), ("order_by", "pages")), "books in stock by pages")


def probe_pages(rec: Recorder) -> None:
    rec.section("Other pages")
    read(rec, q(B, ("offset", 5)), "books: the second page of 5 (asked directly)")
    read(rec, q(B, ("limit", 4), ("offset", 4)), "books: 4 from the fifth")
    follow(rec, q(B, ("order_by", "-year"), ("limit", 6)), "newest first, 6 at a time")
    follow(rec, q(B, ("genre__in", "crime,poetry"), ("limit", 2)), "crime or poetry, 2 at a time")
    read(rec, q(L, ("offset", 4)), "loans: the second page")
    read(rec, q(A, ("limit", 3)), "authors: the first 3")
    read(rec, q(A, ("order_by", "-born"), ("limit", 2), ("offset", 2)), "youngest first, 2 from the third")
    read(rec, q(L, ("offset", 50)), "an offset past the end")
    read(rec, q(A, ("format", "json")), "authors with `format=json`")


def probe_items(rec: Recorder) -> None:
    rec.section("Other items and errors")
    for bid in (5, 9, 12, 14):
        read(rec, item(B, bid), f"book {bid}")
    read(rec, item(A, 1), "author 1")
    read(rec, item(A, 6), "author 6")
    read(rec, item(L, 8), "loan 8")
    read(rec, item(L, 1), "loan 1")
    read(rec, item(L, 6), "loan 6")
    read(rec, item(L, "schema"), "the loan schema")
    read(rec, item(B, 42), "a book that does not exist: 404", expect=404)
    read(rec, item(A, 7), "an author who does not exist: 404", expect=404)
    read(rec, item(L, 99), "a loan that does not exist: 404", expect=404)


def scenario_probe_reads(rec: Recorder) -> None:
    probe_filters(rec)
    probe_orders(rec)
    probe_pages(rec)
    probe_items(rec)


# ---------------------------------------------------------------- probe-crud
def probe_crud_books(rec: Recorder) -> None:
    rec.section("A book created, patched, put and deleted; seeded books changed")
    r = send(rec, "POST", B, "create a poetry book by Ivo Petrov",
             {"title": "Field Hymns", "author": "/api/v1/author/6/", "year": 1979, "pages": 88, "genre": "poetry"}, 201)
    bid = r.json()["id"]
    read(rec, item(B, bid), "read it")
    read(rec, q(B, ("genre", "poetry")), "poetry: three books")
    read(rec, q(B, ("author", 6)), "Ivo's books")
    send(rec, "PATCH", item(B, bid), "give it a summary", {"summary": "Songs of the harvest."}, 202)
    read(rec, q(B, ("summary__isnull", "true")), "books without a summary: not listed")
    send(rec, "PUT", item(B, bid), "PUT it to another author and genre",
         {"title": "Field Hymns", "author": "/api/v1/author/4/", "year": 1999, "pages": 96, "genre": "literary",
          "available": True, "summary": None})
    read(rec, item(B, bid), "read it")
    read(rec, q(B, ("author__country", "JP")), "books by Japanese authors: listed")
    read(rec, q(B, ("year__gte", 1995), ("year__lte", 2000)), "books from 1995 to 2000")
    send(rec, "PATCH", item(B, 7), "book 7 back in stock", {"available": True}, 202)
    read(rec, item(B, 7), "read it: available")
    read(rec, q(B, ("available", "false")), "books out of stock: 3 and 12")
    bare(rec, "DELETE", item(B, 13), "delete book 13", 204)
    read(rec, item(B, 13), "it is gone: 404", expect=404)
    read(rec, q(B, ("genre", "poetry")), "poetry without it")
    follow(rec, B, "all books")


def probe_crud_authors(rec: Recorder) -> None:
    rec.section("An author created, patched, put, deleted; a seeded author deleted")
    r = send(rec, "POST", A, "create an author (201, a Location)", {"name": "Lea Moreau", "country": "FR", "born": 1958},
             201)
    aid = created_id(r)
    read(rec, item(A, aid), "read Lea")
    read(rec, q(A, ("country", "FR")), "authors from France")
    send(rec, "PATCH", item(A, aid), "change the country (202, no body)", {"country": "BE"}, 202)
    read(rec, q(A, ("born__gte", 1955), ("born__lte", 1965)), "authors born 1955 to 1965")
    send(rec, "PUT", item(A, aid), "PUT the whole author (204)", {"name": "Lea Moreau", "country": "BE", "born": 1957},
         204)
    read(rec, item(A, aid), "read it")
    bare(rec, "DELETE", item(A, aid), "delete Lea", 204)
    read(rec, item(A, aid), "Lea is gone: 404", expect=404)
    bare(rec, "DELETE", item(A, 2), "delete Tomas Berg (his books and their loans go too)", 204)
    read(rec, q(B, ("genre", "crime")), "crime books: none left")
    read(rec, item(B, 4), "his book 4 is gone: 404", expect=404)
    read(rec, q(L, ("borrower", "Pia Lund")), "Pia's loans: the Winter Harbour loan gone")
    read(rec, A, "authors: five")


def probe_crud_loans(rec: Recorder) -> None:
    rec.section("Loans created, returned, deleted; refusals")
    r = send(rec, "POST", L, "lend book 10 to Owen", {"book": "/api/v1/book/10/", "borrower": "Owen Park",
                                                      "loaned_on": "2026-12-03"}, 201)
    lid = r.json()["id"]
    read(rec, item(L, lid), "read it")
    read(rec, q(L, ("borrower", "Owen Park")), "Owen's loans: three")
    send(rec, "PATCH", item(L, 3), "return loan 3", {"returned_on": "2026-12-02"}, 202)
    read(rec, item(L, 3), "read it: returned")
    read(rec, q(L, ("returned_on__isnull", "true")), "loans not returned")
    send(rec, "PUT", item(L, lid), "PUT the loan: another book, returned",
         {"book": "/api/v1/book/11/", "borrower": "Owen Park", "loaned_on": "2026-12-03", "returned_on": "2026-12-05"})
    read(rec, q(L, ("book", 11)), "loans of book 11")
    read(rec, item(L, lid), "read the put loan")
    bare(rec, "DELETE", item(L, 8), "delete loan 8", 204)
    read(rec, q(L, ("book", 1)), "loans of book 1: one")
    read(rec, item(L, 8), "loan 8 is gone: 404", expect=404)
    follow(rec, L, "all loans")
    send(rec, "POST", B, "a book without an author: 400", {"title": "Orphan Pages", "year": 2020}, 400)
    send(rec, "PATCH", item(A, 42), "PATCH an author who does not exist: 404", {"born": 1}, 404)
    bare(rec, "DELETE", item(L, 99), "DELETE a loan that does not exist: 404", 404)


def scenario_probe_crud(rec: Recorder) -> None:
    probe_crud_books(rec)
    probe_crud_authors(rec)
    probe_crud_loans(rec)


SCENARIOS = [("build", scenario_build), ("probe-reads", scenario_probe_reads), ("probe-crud", scenario_probe_crud)]


def main() -> None:
    import readme

    record_venv_app("tastypie", HERE, VENV, (APP_PORT, PROXY_PORT), A, SCENARIOS, readme.render,
                    "django-tastypie")


if __name__ == "__main__":
    main()
