"""Record HAR captures of a JSON:API library served by Django REST framework JSON:API (SQLite).

Run through record.sh (it makes the venvs). For each capture `run/library.db` is removed,
`seed.py` (the app's own Python) creates the tables and the seed rows, and `app.py` serves the
library with the stdlib's wsgiref on 127.0.0.1. Query strings are written as a JSON:API client
writes them, brackets unencoded (`filter[status]=available`); a value with a space is
percent-encoded. Pages are followed through the server's own `links.next`, which it spells
percent-encoded (`page%5Blimit%5D=4`). Writes send `application/vnd.api+json`.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from urllib.parse import quote

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "kit"))

import httpx  # noqa: E402

from appdriver import AppSpec, record_app  # noqa: E402
from harlib import Recorder  # noqa: E402
from jsonapi_client import JSONAPI, follow, read, rel, send, sqlite_app  # noqa: E402

APP_PORT = 18853
PROXY_PORT = 18953
DB = "library.db"
prepare, command = sqlite_app(HERE, DB, APP_PORT)
B, A, M = "/books", "/authors", "/members"


# ---------------------------------------------------------------- helpers
def q(path: str, *pairs: tuple) -> str:
    """`path/?k=v&…` with the names' brackets as written and the values percent-encoded
    (`,` kept: it separates the values of one filter and of a sort)."""
    path = path + "/"
    if not pairs:
        return path
    return path + "?" + "&".join(f"{k}={quote(str(v), safe=',-')}" for k, v in pairs)


def resource(typ: str, attrs: dict, rels: dict | None, id_: str | None = None) -> dict:
    data: dict = {"type": typ}
    if id_ is not None:
        data["id"] = id_
    if attrs:
        data["attributes"] = attrs
    if rels:
        data["relationships"] = rels
    return {"data": data}


def create(rec: Recorder, coll: str, typ: str, attrs: dict, why: str, rels: dict | None = None,
           expect: int = 201) -> httpx.Response:
    return send(rec, "POST", f"{coll}/", why, resource(typ, attrs, rels), expect)


def update(rec: Recorder, coll: str, typ: str, id_: str, attrs: dict, why: str, rels: dict | None = None,
           expect: int = 200) -> httpx.Response:
    return send(rec, "PATCH", f"{coll}/{id_}/", why, resource(typ, attrs, rels, id_), expect)


def delete(rec: Recorder, path: str, why: str, expect: int = 204) -> httpx.Response:
    return rec.call("DELETE", path, why, expect=expect)


def by(author: int) -> dict:
    return {"author": rel("Author", author)}


# ---------------------------------------------------------------- build
def build_lists(rec: Recorder) -> None:
    rec.section("Collections")
    read(rec, q(A), "all authors")
    read(rec, q(M), "all members")
    read(rec, q(B), "all books (the default page of 50)")

    rec.section("Filters, sorts, sparse fields")
    read(rec, q(B, ("filter[status]", "available")), "books whose status is available")
    read(rec, q(B, ("filter[status.in]", "loaned,lost")), "status loaned or lost (`.in`, a comma list)")
    read(rec, q(B, ("filter[author]", "2")), "the books of author 2 (by the relationship)")
    read(rec, q(B, ("filter[borrower]", "1"), ("filter[status]", "loaned")), "Maya's loaned books (two filters)")
    read(rec, q(B, ("filter[rating.gte]", "5")), "rating 5 or more (`.gte`)")
    read(rec, q(B, ("filter[title.icontains]", "the")), "titles containing `the`, any case (`.icontains`)")
    read(rec, q(B, ("filter[author.name]", "Octavia E. Butler")), "by the author's name (a related attribute)")
    read(rec, q(B, ("filter[borrower.isnull]", "true")), "books nobody borrowed (`.isnull`)")
    read(rec, q(A, ("filter[country]", "US")), "authors from the US")
    read(rec, q(M, ("filter[name.icontains]", "o")), "members whose name holds an `o`")
    read(rec, q(B, ("sort", "-rating,title")), "books by rating descending, then title")
    read(rec, q(B, ("sort", "pages")), "books by pages")
    read(rec, q(A, ("sort", "-name")), "authors by name descending")
    read(rec, q(B, ("sort", "author.name,title")), "books by their author's name, then title")
    read(rec, q(B, ("fields[Book]", "title,status")), "only title and status (`fields[Book]`)")

    rec.section("Pages (`page[limit]`, `page[offset]`, `links`)")
    r = read(rec, q(B, ("sort", "title"), ("page[limit]", "4")), "books by title, 4 a page: page 1")
    follow(rec, r, "books by title, 4 a page")
    r = read(rec, q(B, ("filter[status]", "available"), ("page[limit]", "2")), "available books, 2 a page: page 1")
    follow(rec, r, "available books, 2 a page")


def build_items(rec: Recorder) -> None:
    rec.section("Included resources, related routes and relationships")
    read(rec, q(B, ("include", "author"), ("filter[status]", "loaned")), "loaned books with their authors")
    read(rec, q(B, ("include", "author,borrower"), ("page[limit]", "3")), "3 books with their authors and borrowers")
    read(rec, q(f"{A}/1", ("include", "books")), "author 1 with their books")
    read(rec, q(f"{B}/1"), "book 1")
    read(rec, q(f"{B}/4"), "book 4")
    read(rec, q(f"{A}/2"), "author 2")
    read(rec, q(f"{M}/3"), "member 3 (Oskar)")
    read(rec, q(f"{B}/4/author"), "book 4's author (a related route, to-one)")
    read(rec, q(f"{B}/4/borrower"), "book 4's borrower")
    read(rec, q(f"{A}/2/books"), "author 2's books (a related route, to-many)")
    read(rec, q(f"{M}/1/loans"), "Maya's loans")
    read(rec, f"{B}/4/relationships/author", "book 4's author relationship (identifiers only)")
    read(rec, f"{A}/2/relationships/books", "author 2's books relationship")
    read(rec, q(f"{B}/99"), "a book that does not exist: 404", expect=404)
    read(rec, q(f"{M}/42"), "a member that does not exist: 404", expect=404)
    read(rec, q(B, ("filter[colour]", "red")), "a filter on a field the books lack: 400", expect=400)
    read(rec, q(B, ("sort", "colour")), "a sort on a field the books lack: 400", expect=400)


def build_book_writes(rec: Recorder) -> None:
    rec.section("Create a book, change it, lend it, read it back")
    r = create(rec, B, "Book", {"title": "The Lathe of Heaven", "isbn": "978-1416556961", "status": "available",
                                "pages": 184, "rating": 4},
               "create a book by author 1; answers 201 with the generated id", by(1))
    bid = r.json()["data"]["id"]
    read(rec, q(f"{B}/{bid}"), "read it")
    read(rec, q(B, ("filter[author]", "1")), "author 1's books: the new one is listed")
    read(rec, q(f"{A}/1/books"), "author 1's related route lists it too")
    update(rec, B, "Book", bid, {"rating": 5, "pages": 192}, "PATCH rating and pages")
    read(rec, q(f"{B}/{bid}"), "read it: rating 5, 192 pages")
    read(rec, q(B, ("filter[rating.gte]", "5")), "rating 5 or more: the new one is listed")
    send(rec, "PATCH", f"{B}/{bid}/relationships/author", "PATCH the to-one relationship: credit author 3",
         rel("Author", 3), 200)
    read(rec, q(f"{B}/{bid}"), "read it: author 3")
    read(rec, q(f"{A}/3/books"), "author 3's books list it")
    send(rec, "PATCH", f"{B}/1/relationships/borrower", "PATCH a set to-one relationship: book 1 passes to Noor",
         rel("Member", 2), 200)
    read(rec, q(f"{M}/2/loans"), "Noor's loans list book 1")


def build_author_writes(rec: Recorder) -> None:
    rec.section("An author: create, update, a book by them, delete both")
    r = create(rec, A, "Author", {"name": "Ted Chiang", "country": "US", "born": 1967}, "create author Ted Chiang")
    aid = r.json()["data"]["id"]
    read(rec, q(f"{A}/{aid}"), "read it")
    update(rec, A, "Author", aid, {"country": "CA"}, "change the country")
    read(rec, q(A, ("filter[country]", "CA")), "authors from CA: the new one")
    r = create(rec, B, "Book", {"title": "Story of Your Life", "isbn": "978-1101972120", "pages": 281},
               "a book by them (status and rating default)", by(int(aid)))
    b2 = r.json()["data"]["id"]
    read(rec, q(f"{A}/{aid}/books"), "their books")
    delete(rec, f"{A}/{aid}/", "delete the author while a book names them: 409", expect=409)
    delete(rec, f"{B}/{b2}/", "delete that book")
    read(rec, q(f"{B}/{b2}"), "it is gone: 404", expect=404)
    read(rec, q(f"{A}/{aid}/books"), "the author has no books")
    delete(rec, f"{A}/{aid}/", "delete the author")
    read(rec, q(f"{A}/{aid}"), "it is gone: 404", expect=404)
    read(rec, q(A), "authors: four again")


def build_member_writes(rec: Recorder) -> None:
    rec.section("A member: create, lend a book, delete (the book's borrower is cleared)")
    r = create(rec, M, "Member", {"name": "Pia Rossi", "email": "pia@example.test"}, "create member Pia")
    mid = r.json()["data"]["id"]
    read(rec, q(f"{M}/{mid}"), "read Pia")
    update(rec, B, "Book", "6", {"status": "loaned"}, "lend book 6 to Pia (a relationship in the PATCH body)",
           {"borrower": rel("Member", mid)})
    read(rec, q(B, ("filter[borrower]", mid)), "Pia's books: book 6")
    delete(rec, f"{M}/{mid}/", "delete Pia")
    read(rec, q(f"{B}/6"), "book 6: the borrower is null again")
    read(rec, q(M, ("sort", "-name")), "members: Pia is gone")


def build_refusals(rec: Recorder) -> None:
    rec.section("Refusals")
    create(rec, M, "Member", {"name": "Maya Again", "email": "maya@example.test"},
           "an email that exists (unique): 400", expect=400)
    create(rec, B, "Author", {"title": "Wrong type"}, "a type that is not the collection's: 409", by(1), expect=409)
    create(rec, B, "Book", {"isbn": "978-0000000001", "pages": 10}, "a book without a title: 400", by(1),
           expect=400)
    create(rec, B, "Book", {"title": "Burnt", "isbn": "978-0000000002", "pages": 10, "status": "burned"},
           "a status that is not a choice: 400", by(1), expect=400)
    send(rec, "PATCH", f"{B}/3/", "a PATCH without the id in the body: 400",
         {"data": {"type": "Book", "attributes": {"status": "lost"}}}, 400)
    update(rec, B, "Book", "99", {"status": "lost"}, "PATCH a book that does not exist: 404", expect=404)
    delete(rec, f"{B}/99/", "DELETE a book that does not exist: 404", expect=404)
    r = read(rec, q(B, ("sort", "-id"), ("page[limit]", "5")), "the newest books, 5 a page")
    follow(rec, r, "the newest books, 5 a page")


def scenario_build(rec: Recorder) -> None:
    build_lists(rec)
    build_items(rec)
    build_book_writes(rec)
    build_author_writes(rec)
    build_member_writes(rec)
    build_refusals(rec)


# ---------------------------------------------------------------- probe-reads
def probe_lists(rec: Recorder) -> None:
    rec.section("Other filter values")
    read(rec, q(B, ("filter[status]", "loaned")), "status loaned")
    read(rec, q(B, ("filter[status.in]", "available,lost")), "status available or lost")
    read(rec, q(B, ("filter[author]", "3")), "author 3's books")
    read(rec, q(B, ("filter[author.in]", "1,4")), "authors 1 or 4")
    read(rec, q(B, ("filter[borrower]", "2")), "Noor's books")
    read(rec, q(B, ("filter[rating]", "4"), ("filter[status]", "available")), "rating 4 and available")
    read(rec, q(B, ("filter[title]", "Invisible Cities")), "a title (exact)")
    read(rec, q(B, ("filter[title.icontains]", "OF")), "titles containing `OF`, any case")
    read(rec, q(B, ("filter[author.name]", "Italo Calvino")), "by another author's name")
    read(rec, q(B, ("filter[rating.gte]", "4")), "rating 4 or more")
    read(rec, q(B, ("filter[pages.lt]", "200")), "fewer than 200 pages (`.lt`)")
    read(rec, q(B, ("filter[borrower.isnull]", "false")), "books someone borrowed")
    read(rec, q(B, ("filter[status]", "available"), ("filter[author]", "4")), "author 4's available books")
    read(rec, q(A, ("filter[country]", "PL")), "authors from PL")
    read(rec, q(A, ("filter[country]", "FR")), "a country no author has: empty")
    read(rec, q(M, ("filter[email]", "noor@example.test")), "a member by email")

    rec.section("Other sorts and fields")
    read(rec, q(B, ("sort", "-pages,title")), "by pages descending, then title")
    read(rec, q(B, ("sort", "status,-rating")), "by status, then rating descending")
    read(rec, q(B, ("sort", "title")), "by title")
    read(rec, q(A, ("sort", "-born")), "authors by birth year descending")
    read(rec, q(M, ("sort", "email")), "members by email")
    read(rec, q(B, ("sort", "-author.name,title")), "by author name descending, then title")
    read(rec, q(B, ("fields[Book]", "title,pages")), "only title and pages")
    read(rec, q(A, ("fields[Author]", "name")), "authors: only the name")
    read(rec, q(B, ("filter[status]", "available"), ("sort", "-rating,title"), ("fields[Book]", "title")),
         "available books by rating, titles only")

    rec.section("Other pages")
    read(rec, q(B, ("page[offset]", "4"), ("page[limit]", "2")), "offset 4, 2 a page (asked directly)")
    read(rec, q(B, ("page[offset]", "3"), ("page[limit]", "4")), "offset 3, 4 a page (not a page boundary)")
    r = read(rec, q(B, ("page[limit]", "5")), "5 a page: page 1")
    follow(rec, r, "5 a page")
    r = read(rec, q(B, ("filter[status]", "available"), ("sort", "-rating,title"), ("page[limit]", "3")),
             "available books by rating, 3 a page: page 1")
    follow(rec, r, "available books by rating, 3 a page")
    read(rec, q(M, ("sort", "name"), ("page[limit]", "2")), "members by name, 2 a page")
    read(rec, q(B, ("page[offset]", "20"), ("page[limit]", "4")), "an offset past the end")


def probe_items(rec: Recorder) -> None:
    rec.section("Other includes, items, related routes and relationships")
    read(rec, q(B, ("include", "author"), ("filter[author]", "2")), "author 2's books with the author")
    read(rec, q(B, ("include", "borrower"), ("sort", "title"), ("page[limit]", "3")),
         "3 books by title with their borrowers")
    read(rec, q(f"{A}/3", ("include", "books")), "author 3 with their books")
    read(rec, q(f"{B}/7", ("include", "borrower")), "book 7 with its borrower")
    for bid in ("2", "5", "9"):
        read(rec, q(f"{B}/{bid}"), f"book {bid}")
    read(rec, q(f"{A}/3"), "author 3")
    read(rec, q(f"{M}/2"), "member 2 (Noor)")
    read(rec, q(f"{B}/9/author"), "book 9's author")
    read(rec, q(f"{B}/3/borrower"), "book 3's borrower: it has none, `data: null`")
    read(rec, q(f"{A}/3/books"), "author 3's books")
    read(rec, q(f"{M}/3/loans"), "Oskar's loans")
    read(rec, f"{B}/7/relationships/borrower", "book 7's borrower relationship")
    read(rec, f"{A}/4/relationships/books", "author 4's books relationship")

    rec.section("Errors")
    read(rec, q(f"{B}/42"), "a book that does not exist: 404", expect=404)
    read(rec, q(f"{A}/7"), "an author that does not exist: 404", expect=404)
    read(rec, q(f"{M}/99"), "a member that does not exist: 404", expect=404)
    read(rec, q(B, ("filter[weight]", "1")), "a filter on another field the books lack: 400", expect=400)

    rec.section("Items the build read, asked otherwise")
    read(rec, q(f"{B}/1", ("fields[Book]", "title,status")), "book 1, only title and status")
    read(rec, q(f"{B}/4", ("include", "author")), "book 4 with its author")
    read(rec, q(f"{A}/2", ("include", "books")), "author 2 with their books")


def scenario_probe_reads(rec: Recorder) -> None:
    probe_lists(rec)
    probe_items(rec)


# ---------------------------------------------------------------- probe-crud
def probe_crud_books(rec: Recorder) -> None:
    rec.section("A book created, changed, moved")
    r = create(rec, B, "Book", {"title": "Fiasco", "isbn": "978-0156306300", "status": "available", "pages": 322,
                                "rating": 3}, "create a book by author 2", by(2))
    bid = r.json()["data"]["id"]
    read(rec, q(f"{B}/{bid}"), "read it")
    read(rec, q(B, ("filter[author]", "2")), "author 2's books: four")
    read(rec, q(B, ("filter[status]", "available")), "available books: listed")
    read(rec, q(f"{A}/2/books"), "author 2's related route")
    update(rec, B, "Book", bid, {"title": "Fiasco (1986)", "rating": 4}, "PATCH title and rating")
    read(rec, q(f"{B}/{bid}"), "read it")
    read(rec, q(B, ("filter[rating]", "4"), ("sort", "title")), "rating 4 by title: listed")
    send(rec, "PATCH", f"{B}/{bid}/relationships/author", "PATCH the to-one relationship: move it to author 4",
         rel("Author", 4), 200)
    read(rec, q(f"{B}/{bid}"), "read it: author 4")
    read(rec, q(f"{A}/4/books"), "author 4's books: three")

    rec.section("Seeded books changed and deleted")
    update(rec, B, "Book", "3", {"status": "lost"}, "book 3 lost")
    read(rec, q(f"{B}/3"), "read it")
    read(rec, q(B, ("filter[status]", "lost")), "lost books: 3 and 6")
    delete(rec, f"{B}/6/", "delete book 6")
    read(rec, q(f"{B}/6"), "it is gone: 404", expect=404)
    read(rec, q(B, ("filter[author]", "2")), "author 2's books: 4 and 5")
    r = read(rec, q(B, ("sort", "title"), ("page[limit]", "4")), "books by title, 4 a page, after the writes")
    follow(rec, r, "books by title, 4 a page")


def probe_crud_authors(rec: Recorder) -> None:
    rec.section("An author created, renamed, refused, deleted")
    r = create(rec, A, "Author", {"name": "N. K. Jemisin", "country": "US", "born": 1972}, "create an author")
    aid = r.json()["data"]["id"]
    read(rec, q(f"{A}/{aid}"), "read it")
    update(rec, A, "Author", aid, {"name": "Nora K. Jemisin"}, "rename them")
    read(rec, q(A, ("sort", "name")), "authors by name")
    r = create(rec, B, "Book", {"title": "The Fifth Season", "isbn": "978-0316229296", "pages": 512},
               "a book by them, lent to Noor", {"author": rel("Author", aid), "borrower": rel("Member", 2)})
    b2 = r.json()["data"]["id"]
    delete(rec, f"{A}/{aid}/", "delete the author while a book names them: 409", expect=409)
    delete(rec, f"{B}/{b2}/", "delete the book")
    delete(rec, f"{A}/{aid}/", "delete the author")
    read(rec, q(A), "authors: four")
    read(rec, q(B, ("filter[borrower]", "2")), "Noor's books: the deleted book is gone")


def probe_crud_members(rec: Recorder) -> None:
    rec.section("A member created, lent a book, deleted")
    r = create(rec, M, "Member", {"name": "Quinn Adler", "email": "quinn@example.test"}, "create a member")
    mid = r.json()["data"]["id"]
    read(rec, q(f"{M}/{mid}"), "read them")
    send(rec, "PATCH", f"{B}/10/relationships/borrower", "book 10 passes from Oskar to them (the relationship view)",
         rel("Member", mid), 200)
    read(rec, q(f"{M}/{mid}/loans"), "their loans: book 10")
    read(rec, q(B, ("filter[borrower]", mid)), "books they borrowed: book 10")
    delete(rec, f"{M}/{mid}/", "delete them")
    read(rec, q(f"{B}/10"), "book 10: nobody borrowed it")
    read(rec, q(B, ("filter[borrower.isnull]", "true")), "books nobody borrowed: book 10 is listed")
    read(rec, q(M), "members: three")

    rec.section("Refusals")
    create(rec, M, "Member", {"name": "Noor Again", "email": "noor@example.test"}, "an email that exists: 400",
           expect=400)
    create(rec, B, "Book", {"title": "Solaris again", "isbn": "978-0156027601", "pages": 204},
           "an isbn that exists: 400", by(2), expect=400)
    create(rec, M, "Book", {"name": "Rae"}, "a type that is not the collection's: 409", expect=409)
    update(rec, B, "Book", "42", {"status": "lost"}, "PATCH a book that does not exist: 404", expect=404)
    delete(rec, f"{M}/42/", "DELETE a member that does not exist: 404", expect=404)
    send(rec, "PATCH", f"{B}/7/relationships/borrower", "book 7 passes from Maya to Noor (the relationship view)",
         rel("Member", 2), 200)
    read(rec, q(f"{M}/1/loans"), "Maya's loans: book 1 only")

    rec.section("Books the build read by id, changed and deleted")
    update(rec, B, "Book", "4", {"status": "available"}, "book 4 returned: available, no borrower",
           {"borrower": rel("Member", None)})
    read(rec, q(f"{B}/4"), "read it")
    update(rec, B, "Book", "1", {"title": "The Left Hand of Darkness (50th)"}, "retitle book 1")
    read(rec, q(f"{B}/1"), "read it")
    delete(rec, f"{B}/4/", "delete book 4")
    read(rec, q(f"{B}/4"), "it is gone: 404", expect=404)
    read(rec, q(f"{M}/3"), "member 3 (Oskar): no loans since book 10 passed on")


def scenario_probe_crud(rec: Recorder) -> None:
    probe_crud_books(rec)
    probe_crud_authors(rec)
    probe_crud_members(rec)


SCENARIOS = [("build", scenario_build), ("probe-reads", scenario_probe_reads), ("probe-crud", scenario_probe_crud)]


def main() -> None:
    import readme

    spec = AppSpec(
        name="drf-jsonapi", here=HERE, dist="djangorestframework-jsonapi", app_port=APP_PORT,
        proxy_port=PROXY_PORT, command=command, scenarios=SCENARIOS, render_readme=readme.render,
        prepare=prepare, headers={"Accept": JSONAPI}, ready_path=f"{A}/", stop_signal=signal.SIGINT, settle=0.3,
        env={"PATH": "/usr/bin:/bin", "PYTHONHASHSEED": "0"},
    )
    record_app(spec)


if __name__ == "__main__":
    main()
