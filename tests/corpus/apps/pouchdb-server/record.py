"""Record HAR captures of a real PouchDB Server (CouchDB HTTP API, in-memory).

Run through record.sh (it installs the app and the recorder venv). For each
scenario this script starts a fresh pouchdb-server (--in-memory, so every start
is empty) with a fixed config.json under run/, seeds the same data directly
(not recorded), starts mitmdump as a loopback proxy writing the HAR, runs the
scenario through the proxy, stops the proxy (the HAR is written) and the
server, both by PID. Then it validates the HARs and writes README.md.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "kit"))

import httpx  # noqa: E402

from appdriver import AppSpec, npm_version, record_app  # noqa: E402
from harlib import Recorder  # noqa: E402

APP_PORT = 18821
PROXY_PORT = 18921
BASE = f"http://127.0.0.1:{APP_PORT}"
SERVER_UUID = "00000000-0000-4000-8000-000000018821"
JSON_HEADERS = {"Accept": "application/json"}

LIB = "/library"
MEM = "/members"

# ---------------------------------------------------------------- the seed
AUTHORS = [
    ("author:herbert", {"name": "Frank Herbert", "born": 1920, "country": "US"}),
    ("author:le-guin", {"name": "Ursula K. Le Guin", "born": 1929, "country": "US"}),
    ("author:butler", {"name": "Octavia E. Butler", "born": 1947, "country": "US"}),
    ("author:lem", {"name": "Stanisław Lem", "born": 1921, "country": "PL"}),
    ("author:jemisin", {"name": "N. K. Jemisin", "born": 1972, "country": "US"}),
]
BOOKS = [
    ("book:dune", {"title": "Dune", "author": "author:herbert", "year": 1965, "genre": "sf",
                   "pages": 412, "status": "available", "tags": ["desert", "politics"]}),
    ("book:children-of-dune", {"title": "Children of Dune", "author": "author:herbert", "year": 1976,
                               "genre": "sf", "pages": 444, "status": "available", "tags": ["desert"]}),
    ("book:left-hand", {"title": "The Left Hand of Darkness", "author": "author:le-guin", "year": 1969,
                        "genre": "sf", "pages": 304, "status": "on-loan", "tags": ["gender", "winter"]}),
    ("book:earthsea", {"title": "A Wizard of Earthsea", "author": "author:le-guin", "year": 1968,
                       "genre": "fantasy", "pages": 183, "status": "available", "tags": ["magic"]}),
    ("book:kindred", {"title": "Kindred", "author": "author:butler", "year": 1979, "genre": "sf",
                      "pages": 264, "status": "available", "tags": ["time-travel", "history"]}),
    ("book:parable", {"title": "Parable of the Sower", "author": "author:butler", "year": 1993,
                      "genre": "sf", "pages": 345, "status": "on-loan", "tags": ["dystopia"]}),
    ("book:solaris", {"title": "Solaris", "author": "author:lem", "year": 1961, "genre": "sf",
                      "pages": 204, "status": "available", "tags": ["ocean", "contact"]}),
    ("book:fifth-season", {"title": "The Fifth Season", "author": "author:jemisin", "year": 2015,
                           "genre": "fantasy", "pages": 468, "status": "withdrawn", "tags": ["geology"]}),
]
MEMBERS = [
    ("member:0001", {"name": "Ana Lima", "email": "ana@example.test", "joined": "2024-02-11", "active": True}),
    ("member:0002", {"name": "Bo Berg", "email": "bo@example.test", "joined": "2024-06-30", "active": True}),
    ("member:0003", {"name": "Chen Wu", "email": "chen@example.test", "joined": "2025-01-05", "active": False}),
    ("member:0004", {"name": "Dara Kim", "email": "dara@example.test", "joined": "2025-03-19", "active": True}),
]
VALIDATE = """function (newDoc, oldDoc, userCtx) {
  if (newDoc._deleted) { return; }
  if (newDoc.type === 'book') {
    if (typeof newDoc.title !== 'string' || newDoc.title.length === 0) {
      throw({forbidden: 'a book needs a non-empty title'});
    }
    if (typeof newDoc.year !== 'number') { throw({forbidden: 'a book needs a numeric year'}); }
    if (['available', 'on-loan', 'withdrawn'].indexOf(newDoc.status) < 0) {
      throw({forbidden: 'status must be available, on-loan or withdrawn'});
    }
  }
}"""
DESIGN = {
    "language": "javascript",
    "validate_doc_update": VALIDATE,
    "views": {
        "by_author": {"map": "function (doc) { if (doc.type === 'book') { emit(doc.author, doc.title); } }"},
        "by_year": {"map": "function (doc) { if (doc.type === 'book') { emit(doc.year, doc.title); } }"},
        "by_genre": {"map": "function (doc) { if (doc.type === 'book') { emit(doc.genre, 1); } }",
                     "reduce": "_count"},
    },
}
COVER_TEXT = "A wizard's tale from the islands of Earthsea.\n"


def seed() -> None:
    """Seed directly (no proxy): two databases, a design doc, two Mango indexes, the documents."""
    with httpx.Client(base_url=BASE, timeout=30, trust_env=False, headers=JSON_HEADERS) as c:
        for db in (LIB, MEM):
            c.put(db).raise_for_status()
        c.put(f"{LIB}/_design/catalog", json=DESIGN).raise_for_status()
        for fields, name in ((["year"], "by-year"), (["title"], "by-title")):
            c.post(f"{LIB}/_index", json={"index": {"fields": fields}, "name": name,
                                          "ddoc": f"idx-{name}"}).raise_for_status()
        for did, data in AUTHORS:
            c.put(f"{LIB}/{did}", json={"type": "author", **data}).raise_for_status()
        for did, data in BOOKS:
            c.put(f"{LIB}/{did}", json={"type": "book", **data}).raise_for_status()
        rev = c.get(f"{LIB}/book:earthsea").json()["_rev"]
        c.put(f"{LIB}/book:earthsea/cover.txt", params={"rev": rev}, content=COVER_TEXT.encode(),
              headers={"Content-Type": "text/plain"}).raise_for_status()
        for did, data in MEMBERS:
            c.put(f"{MEM}/{did}", json={"type": "member", **data}).raise_for_status()


# ---------------------------------------------------------------- helpers
def key(value) -> str:
    """A CouchDB key query parameter is JSON."""
    return json.dumps(value, ensure_ascii=False)


def rev_of(rec: Recorder, doc_path: str, why: str) -> str:
    return rec.call("GET", doc_path, why, expect=200).json()["_rev"]


BOOKS_RANGE = {"startkey": key("book:"), "endkey": key("book:\ufff0")}


# ---------------------------------------------------------------- scenarios
def scenario_build(rec: Recorder) -> None:
    rec.section("Discover the server and its databases")
    rec.call("GET", "/", "server welcome: version, vendor, uuid", expect=200)
    rec.call("GET", "/_all_dbs", "list databases", expect=200)
    rec.call("GET", LIB, "database info of `library`: doc_count, update_seq", expect=200)
    rec.call("GET", MEM, "database info of `members`", expect=200)

    rec.section("List reads: _all_docs with keys ranges, pages and order")
    rec.call("GET", f"{LIB}/_all_docs", "every document id and rev (sorted by id)", expect=200)
    rec.call("GET", f"{LIB}/_all_docs", "page 1: include_docs, limit 3",
             params={"include_docs": "true", "limit": "3"}, expect=200)
    rec.call("GET", f"{LIB}/_all_docs", "page 2: include_docs, limit 3, skip 3",
             params={"include_docs": "true", "limit": "3", "skip": "3"}, expect=200)
    rec.call("GET", f"{LIB}/_all_docs", "only books: id range book: … book:\\ufff0, with docs",
             params={"include_docs": "true", **BOOKS_RANGE}, expect=200)
    rec.call("GET", f"{LIB}/_all_docs", "only authors: id range author: … author:\\ufff0",
             params={"startkey": key("author:"), "endkey": key("author:\ufff0")}, expect=200)
    rec.call("GET", f"{LIB}/_all_docs", "last two ids: descending, limit 2",
             params={"descending": "true", "limit": "2"}, expect=200)
    rec.call("GET", f"{MEM}/_all_docs", "every member with its document", params={"include_docs": "true"},
             expect=200)

    rec.section("Entity reads by id (ids carry a type prefix: book:…, author:…)")
    rec.call("GET", f"{LIB}/book:dune", "book Dune", expect=200)
    rec.call("GET", f"{LIB}/author:herbert", "its author", expect=200)
    rec.call("GET", f"{LIB}/book:left-hand", "book The Left Hand of Darkness", expect=200)
    rec.call("GET", f"{LIB}/book:earthsea", "book A Wizard of Earthsea (has an attachment stub)", expect=200)
    rec.call("GET", f"{LIB}/book:earthsea/cover.txt", "its attachment cover.txt (text/plain)", expect=200)
    rec.call("GET", f"{MEM}/member:0002", "member 0002", expect=200)

    rec.section("Queries: Mango _find (operators in a POST body) and map/reduce views")
    rec.call("POST", f"{LIB}/_find", "books after 1970, sorted by year ($gt)",
             json={"selector": {"type": "book", "year": {"$gt": 1970}}, "sort": [{"year": "asc"}]}, expect=200)
    rec.call("POST", f"{LIB}/_find", "fantasy books ($in), fields _id,title,year",
             json={"selector": {"type": "book", "genre": {"$in": ["fantasy"]}},
                   "fields": ["_id", "title", "year"]}, expect=200)
    rec.call("POST", f"{LIB}/_find", "books by Octavia Butler (equality)",
             json={"selector": {"type": "book", "author": "author:butler"}}, expect=200)
    rec.call("POST", f"{LIB}/_find", "books on loan",
             json={"selector": {"type": "book", "status": "on-loan"}}, expect=200)
    rec.call("POST", f"{LIB}/_find", "books sorted by title, limit 3 (page 1)",
             json={"selector": {"type": "book", "title": {"$gt": ""}}, "sort": [{"title": "asc"}],
                   "limit": 3}, expect=200)
    rec.call("POST", f"{LIB}/_find", "books sorted by title, limit 3, skip 3 (page 2)",
             json={"selector": {"type": "book", "title": {"$gt": ""}}, "sort": [{"title": "asc"}],
                   "limit": 3, "skip": 3}, expect=200)
    rec.call("GET", f"{LIB}/_index", "the Mango indexes", expect=200)
    rec.call("GET", f"{LIB}/_design/catalog/_view/by_author", "view by_author, key=\"author:le-guin\"",
             params={"key": key("author:le-guin")}, expect=200)
    rec.call("GET", f"{LIB}/_design/catalog/_view/by_year", "view by_year, 1960…1969",
             params={"startkey": "1960", "endkey": "1969"}, expect=200)
    rec.call("GET", f"{LIB}/_design/catalog/_view/by_genre", "view by_genre reduced per genre (_count)",
             params={"group": "true"}, expect=200)

    rec.section("Changes feed: a keyset cursor (since=<last_seq>)")
    r = rec.call("GET", f"{LIB}/_changes", "first 5 changes", params={"limit": "5"}, expect=200)
    rec.call("GET", f"{LIB}/_changes", "next 5 changes after that page's last_seq",
             params={"since": str(r.json()["last_seq"]), "limit": "5"}, expect=200)
    before_writes = rec.call("GET", LIB, "database info before the writes (update_seq)",
                             expect=200).json()["update_seq"]

    rec.section("Create at a chosen id (PUT), then read it and the lists it belongs to")
    rec.call("PUT", f"{LIB}/author:dick", "create author Philip K. Dick at id author:dick",
             json={"type": "author", "name": "Philip K. Dick", "born": 1928, "country": "US"}, expect=201)
    rec.call("GET", f"{LIB}/author:dick", "read the new author", expect=200)
    rec.call("GET", f"{LIB}/_all_docs", "authors again: author:dick listed",
             params={"startkey": key("author:"), "endkey": key("author:\ufff0")}, expect=200)
    ubik = {"type": "book", "title": "Ubik", "author": "author:dick", "year": 1969, "genre": "sf",
            "pages": 202, "status": "available", "tags": ["entropy"]}
    rec.call("PUT", f"{LIB}/book:ubik", "create book Ubik at id book:ubik", json=ubik, expect=201)
    rec.call("GET", f"{LIB}/book:ubik", "read the new book", expect=200)
    rec.call("GET", f"{LIB}/_all_docs", "books again with docs: book:ubik listed",
             params={"include_docs": "true", **BOOKS_RANGE}, expect=200)
    rec.call("GET", f"{LIB}/_design/catalog/_view/by_author", "view by_author key=\"author:dick\"",
             params={"key": key("author:dick")}, expect=200)

    rec.section("Create with a server-generated id (POST to the database)")
    r = rec.call("POST", LIB, "create book The Dispossessed (no _id: the answer carries a generated id)",
                 json={"type": "book", "title": "The Dispossessed", "author": "author:le-guin", "year": 1974,
                       "genre": "sf", "pages": 387, "status": "available", "tags": ["anarchism"]}, expect=201)
    gen_id = r.json()["id"]
    rec.call("GET", f"{LIB}/{gen_id}", "read it by the generated id", expect=200)
    rec.call("POST", f"{LIB}/_find", "books by Le Guin: the new one included",
             json={"selector": {"type": "book", "author": "author:le-guin"}}, expect=200)

    rec.section("Update with the current _rev (PUT of the whole document)")
    dune = rec.call("GET", f"{LIB}/book:dune", "read Dune for its _rev", expect=200).json()
    dune.update({"status": "on-loan", "pages": 617})
    rec.call("PUT", f"{LIB}/book:dune", "PUT Dune with _rev: status on-loan, pages 617", json=dune, expect=201)
    rec.call("GET", f"{LIB}/book:dune", "read Dune back (rev 2-…)", expect=200)
    rec.call("POST", f"{LIB}/_find", "books on loan: Dune now included",
             json={"selector": {"type": "book", "status": "on-loan"}}, expect=200)

    rec.section("Soft delete: withdraw a book by its status field")
    sol = rec.call("GET", f"{LIB}/book:solaris", "read Solaris for its _rev", expect=200).json()
    sol["status"] = "withdrawn"
    rec.call("PUT", f"{LIB}/book:solaris", "PUT Solaris with status withdrawn", json=sol, expect=201)
    rec.call("GET", f"{LIB}/book:solaris", "Solaris still readable, status withdrawn", expect=200)
    rec.call("POST", f"{LIB}/_find", "available books: Solaris gone from this list",
             json={"selector": {"type": "book", "status": "available"}}, expect=200)
    rec.call("POST", f"{LIB}/_find", "withdrawn books: Solaris and The Fifth Season",
             json={"selector": {"type": "book", "status": "withdrawn"}}, expect=200)

    rec.section("Attachment: a document's file (a folder-like sub-path with a file name)")
    rev = rev_of(rec, f"{LIB}/book:kindred", "read Kindred for its _rev")
    rec.call("PUT", f"{LIB}/book:kindred/blurb.txt", "attach blurb.txt to Kindred (?rev=)",
             params={"rev": rev}, content=b"Dana is pulled back in time to antebellum Maryland.\n",
             headers={"Content-Type": "text/plain"}, expect=201)
    rec.call("GET", f"{LIB}/book:kindred/blurb.txt", "read the attachment", expect=200)
    rec.call("GET", f"{LIB}/book:kindred", "Kindred now lists blurb.txt under _attachments", expect=200)

    rec.section("Bulk write: _bulk_docs (RPC body; generated ids nested in the array answer)")
    m3 = rec.call("GET", f"{MEM}/member:0003", "read member 0003 (inactive) for its _rev", expect=200).json()
    r = rec.call("POST", f"{MEM}/_bulk_docs", "two new members without ids, one update of member:0003",
                 json={"docs": [
                     {"type": "member", "name": "Eli Moss", "email": "eli@example.test", "joined": "2026-01-08",
                      "active": True},
                     {"type": "member", "name": "Fay Ono", "email": "fay@example.test", "joined": "2026-01-09",
                      "active": True},
                     {**m3, "active": True},
                 ]}, expect=201)
    for row in r.json():
        if row.get("ok") and not row["id"].startswith("member:"):
            rec.call("GET", f"{MEM}/{row['id']}", "read a bulk-created member by its generated id", expect=200)
    rec.call("GET", f"{MEM}/member:0003", "member 0003 after the bulk update (active)", expect=200)
    rec.call("GET", f"{MEM}/_all_docs", "members with docs: six now", params={"include_docs": "true"},
             expect=200)

    rec.section("Delete with ?rev=, read 404, list again")
    rev = rev_of(rec, f"{LIB}/book:children-of-dune", "read Children of Dune for its _rev")
    rec.call("DELETE", f"{LIB}/book:children-of-dune", "DELETE with ?rev=", params={"rev": rev}, expect=200)
    rec.call("GET", f"{LIB}/book:children-of-dune", "read it back: 404", expect=404)
    rec.call("GET", f"{LIB}/_all_docs", "books: children-of-dune gone", params=BOOKS_RANGE, expect=200)
    rec.call("GET", f"{LIB}/_design/catalog/_view/by_author", "view by_author key=\"author:herbert\": only Dune",
             params={"key": key("author:herbert")}, expect=200)

    rec.section("A new database (a folder of documents)")
    rec.call("PUT", "/loans", "create database `loans`", expect=201)
    rec.call("GET", "/_all_dbs", "databases: loans listed", expect=200)
    rec.call("PUT", "/loans/loan:0001", "record a loan at id loan:0001",
             json={"type": "loan", "book": "book:dune", "member": "member:0001", "due": "2027-01-15"}, expect=201)
    rec.call("GET", "/loans/loan:0001", "read the loan", expect=200)
    rec.call("GET", "/loans/_all_docs", "loans listed", params={"include_docs": "true"}, expect=200)

    rec.section("What changed: the changes feed since the update_seq before the writes, db info")
    rec.call("GET", f"{LIB}/_changes", "changes since the writes began (deleted:true for the delete)",
             params={"since": str(before_writes)}, expect=200)
    rec.call("GET", LIB, "database info after the writes (doc_count, update_seq)", expect=200)


def scenario_probe_reads(rec: Recorder) -> None:
    rec.section("_all_docs: other ranges, keys, pages and orders")
    rec.call("GET", f"{LIB}/_all_docs", "ids from book:k on, limit 3", params={"startkey": key("book:k"),
                                                                              "limit": "3"}, expect=200)
    rec.call("GET", f"{LIB}/_all_docs", "one key: book:kindred, with doc",
             params={"key": key("book:kindred"), "include_docs": "true"}, expect=200)
    rec.call("GET", f"{LIB}/_all_docs", "skip 6, limit 4",
             params={"skip": "6", "limit": "4"}, expect=200)
    rec.call("GET", f"{LIB}/_all_docs", "descending from book:kindred, limit 3",
             params={"descending": "true", "startkey": key("book:kindred"), "limit": "3"}, expect=200)
    rec.call("GET", f"{LIB}/_all_docs", "authors up to author:lem, inclusive_end=false",
             params={"startkey": key("author:"), "endkey": key("author:lem"), "inclusive_end": "false"},
             expect=200)
    rec.call("POST", f"{LIB}/_all_docs", "keys in a POST body (one missing id)",
             json={"keys": ["book:solaris", "author:lem", "book:missing"]}, expect=200)
    rec.call("GET", f"{MEM}/_all_docs", "members: no docs, limit 2", params={"limit": "2"}, expect=200)

    rec.section("Entities the build never read")
    rec.call("GET", f"{LIB}/book:kindred", "book Kindred", expect=200)
    rec.call("GET", f"{LIB}/book:fifth-season", "book The Fifth Season (withdrawn)", expect=200)
    rec.call("GET", f"{LIB}/author:lem", "author Lem", expect=200)
    rec.call("GET", f"{LIB}/author:jemisin", "author Jemisin", expect=200)
    rec.call("GET", f"{MEM}/member:0004", "member 0004", expect=200)
    r = rec.call("GET", f"{LIB}/book:solaris", "book Solaris", expect=200)
    rec.call("GET", f"{LIB}/book:solaris", "If-None-Match with its ETag: 304",
             headers={"If-None-Match": r.headers["ETag"]}, expect=304)
    rec.call("GET", f"{LIB}/book:parable", "book Parable with revs_info", params={"revs_info": "true"}, expect=200)
    rec.call("GET", f"{LIB}/_design/catalog", "the design document", expect=200)

    rec.section("Mango _find: other operators, fields and values")
    rec.call("POST", f"{LIB}/_find", "books before 1970 ($lt), sorted by year descending",
             json={"selector": {"type": "book", "year": {"$lt": 1970}}, "sort": [{"year": "desc"}]}, expect=200)
    rec.call("POST", f"{LIB}/_find", "books with at least 400 pages ($gte)",
             json={"selector": {"type": "book", "pages": {"$gte": 400}}}, expect=200)
    rec.call("POST", f"{LIB}/_find", "titles starting with The ($regex)",
             json={"selector": {"type": "book", "title": {"$regex": "^The"}}, "fields": ["_id", "title"]},
             expect=200)
    rec.call("POST", f"{LIB}/_find", "fantasy or withdrawn ($or)",
             json={"selector": {"type": "book", "$or": [{"genre": "fantasy"}, {"status": "withdrawn"}]}},
             expect=200)
    rec.call("POST", f"{LIB}/_find", "not available ($ne)",
             json={"selector": {"type": "book", "status": {"$ne": "available"}}, "fields": ["_id", "status"]},
             expect=200)
    rec.call("POST", f"{LIB}/_find", "tagged desert ($all on an array)",
             json={"selector": {"type": "book", "tags": {"$all": ["desert"]}}}, expect=200)
    rec.call("POST", f"{LIB}/_find", "authors not from the US ($nin)",
             json={"selector": {"type": "author", "country": {"$nin": ["US"]}}}, expect=200)
    rec.call("POST", f"{LIB}/_find", "books sorted by title, limit 2, skip 6",
             json={"selector": {"type": "book", "title": {"$gt": ""}}, "sort": [{"title": "asc"}],
                   "limit": 2, "skip": 6}, expect=200)
    rec.call("POST", f"{MEM}/_find", "inactive members",
             json={"selector": {"active": False}}, expect=200)

    rec.section("Views: other keys, ranges, reduce")
    rec.call("GET", f"{LIB}/_design/catalog/_view/by_author", "by_author key=\"author:butler\"",
             params={"key": key("author:butler")}, expect=200)
    rec.call("GET", f"{LIB}/_design/catalog/_view/by_year", "by_year descending, limit 3",
             params={"descending": "true", "limit": "3"}, expect=200)
    rec.call("GET", f"{LIB}/_design/catalog/_view/by_year", "by_year 1970…1999",
             params={"startkey": "1970", "endkey": "1999"}, expect=200)
    rec.call("GET", f"{LIB}/_design/catalog/_view/by_genre", "by_genre fully reduced (one total)",
             expect=200)
    rec.call("GET", f"{LIB}/_design/catalog/_view/by_genre", "by_genre not reduced, key=\"fantasy\", with docs",
             params={"reduce": "false", "key": key("fantasy"), "include_docs": "true"}, expect=200)

    rec.section("Changes feed: another cursor position")
    rec.call("GET", f"{LIB}/_changes", "changes since 10, limit 3", params={"since": "10", "limit": "3"},
             expect=200)
    rec.call("GET", f"{MEM}/_changes", "members' changes", expect=200)

    rec.section("Errors")
    rec.call("GET", f"{LIB}/book:neuromancer", "a missing document: 404 not_found", expect=404)
    rec.call("GET", f"{LIB}/member:0001", "a member id asked for in library: 404", expect=404)
    rec.call("GET", f"{LIB}/book:dune/blurb.txt", "a missing attachment: 404", expect=404)
    rec.call("GET", "/catalogue", "a missing database: 404 no_db_file", expect=404)
    rec.call("GET", "/catalogue/_all_docs", "_all_docs of a missing database: 404", expect=404)
    rec.call("GET", f"{LIB}/_design/catalog/_view/by_color", "a missing view: 404", expect=404)
    rec.call("POST", f"{LIB}/_find", "an unknown operator $like: 400 bad_request",
             json={"selector": {"title": {"$like": "Dune"}}}, expect=400)
    rec.call("POST", f"{LIB}/_find", "sort on an unindexed field: 400",
             json={"selector": {"type": "book"}, "sort": [{"pages": "asc"}]}, expect=400)


def scenario_probe_crud(rec: Recorder) -> None:
    rec.section("Create at a chosen id in members, read it and the list")
    rec.call("PUT", f"{MEM}/member:0005", "create member 0005",
             json={"type": "member", "name": "Gil Sá", "email": "gil@example.test", "joined": "2026-02-01",
                   "active": True}, expect=201)
    rec.call("GET", f"{MEM}/member:0005", "read it", expect=200)
    rec.call("GET", f"{MEM}/_all_docs", "members listed with docs", params={"include_docs": "true"}, expect=200)
    rec.call("PUT", f"{MEM}/member:0005", "PUT the same id again without _rev: 409 conflict",
             json={"type": "member", "name": "Someone else"}, expect=409)
    rec.call("GET", f"{MEM}/member:0005", "unchanged after the conflict", expect=200)

    rec.section("Create with a generated id, then validation refusals")
    r = rec.call("POST", LIB, "create book Bloodchild (generated id)",
                 json={"type": "book", "title": "Bloodchild", "author": "author:butler", "year": 1995,
                       "genre": "sf", "pages": 214, "status": "available", "tags": ["stories"]}, expect=201)
    gen = r.json()["id"]
    rec.call("GET", f"{LIB}/{gen}", "read it by the generated id", expect=200)
    rec.call("POST", f"{LIB}/_find", "books by Butler: three now",
             json={"selector": {"type": "book", "author": "author:butler"}}, expect=200)
    rec.call("PUT", f"{LIB}/book:untitled", "a book without title: 403 forbidden (validate_doc_update)",
             json={"type": "book", "year": 2000, "status": "available"}, expect=403)
    rec.call("POST", LIB, "a book with an unknown status: 403 forbidden",
             json={"type": "book", "title": "Lost", "year": 2001, "status": "lost"}, expect=403)
    rec.call("PUT", f"{LIB}/book:bad-field", "a document with a reserved _field: doc_validation (PouchDB answers 500)",
             json={"type": "note", "_color": "red"}, expect=500)
    rec.call("GET", f"{LIB}/book:untitled", "the refused book does not exist: 404", expect=404)
    rec.call("GET", f"{LIB}/_all_docs", "books unchanged by the refusals", params=BOOKS_RANGE, expect=200)

    rec.section("Update: stale _rev refused, current _rev applied")
    doc = rec.call("GET", f"{LIB}/book:parable", "read Parable (rev 1)", expect=200).json()
    doc["status"] = "available"
    rec.call("PUT", f"{LIB}/book:parable", "update with the current _rev: status available", json=doc, expect=201)
    rec.call("GET", f"{LIB}/book:parable", "read Parable back (rev 2)", expect=200)
    doc["pages"] = 999
    rec.call("PUT", f"{LIB}/book:parable", "update again with the old _rev: 409 conflict", json=doc, expect=409)
    rec.call("GET", f"{LIB}/book:parable", "unchanged by the conflict", expect=200)
    rec.call("POST", f"{LIB}/_find", "available books: Parable included",
             json={"selector": {"type": "book", "status": "available"}, "fields": ["_id", "status"]},
             expect=200)
    rec.call("GET", f"{LIB}/_design/catalog/_view/by_genre", "by_genre counts (unchanged)",
             params={"group": "true"}, expect=200)

    rec.section("Delete, read 404, list; stale delete refused; re-create by PUT (upsert over a tombstone)")
    rev = rev_of(rec, f"{LIB}/book:earthsea", "read Earthsea for its _rev")
    rec.call("DELETE", f"{LIB}/book:earthsea", "DELETE Earthsea with ?rev=", params={"rev": rev}, expect=200)
    rec.call("GET", f"{LIB}/book:earthsea", "read it: 404", expect=404)
    rec.call("GET", f"{LIB}/book:earthsea/cover.txt", "its attachment: 404", expect=404)
    rec.call("GET", f"{LIB}/_all_docs", "books: earthsea gone", params=BOOKS_RANGE, expect=200)
    rec.call("DELETE", f"{LIB}/book:earthsea", "DELETE again with the old rev: 409", params={"rev": rev},
             expect=409)
    rec.call("DELETE", f"{LIB}/book:kindred", "DELETE Kindred without any rev: PouchDB deletes it (CouchDB answers 409)",
             expect=200)
    rec.call("GET", f"{LIB}/book:kindred", "read it: 404", expect=404)
    rec.call("GET", f"{LIB}/_design/catalog/_view/by_author", "by_author key=\"author:butler\": Kindred gone",
             params={"key": key("author:butler")}, expect=200)
    rec.call("PUT", f"{LIB}/book:earthsea", "PUT Earthsea again without _rev: re-created over the tombstone",
             json={"type": "book", "title": "A Wizard of Earthsea", "author": "author:le-guin", "year": 1968,
                   "genre": "fantasy", "pages": 205, "status": "available", "tags": ["magic", "reissue"]},
             expect=201)
    rec.call("GET", f"{LIB}/book:earthsea", "read it: rev 3-…, no attachment", expect=200)

    rec.section("Bulk: one new document and one conflicting update in one call")
    r = rec.call("POST", f"{LIB}/_bulk_docs", "bulk: new author without id + stale update of book:dune",
                 json={"docs": [{"type": "author", "name": "Iain M. Banks", "born": 1954, "country": "GB"},
                                {"_id": "book:dune", "_rev": "1-00000000000000000000000000000000",
                                 "type": "book", "title": "Dune", "year": 1965, "status": "available"}]},
                 expect=201)
    for row in r.json():
        if row.get("ok"):
            rec.call("GET", f"{LIB}/{row['id']}", "read the bulk-created author by its generated id", expect=200)
    rec.call("GET", f"{LIB}/book:dune", "Dune unchanged (its bulk row was a conflict)", expect=200)

    rec.section("Attachments: add, read, delete")
    rev = rev_of(rec, f"{LIB}/book:solaris", "read Solaris for its _rev")
    r = rec.call("PUT", f"{LIB}/book:solaris/notes.txt", "attach notes.txt", params={"rev": rev},
                 content=b"First published in Polish in 1961.\n", headers={"Content-Type": "text/plain"},
                 expect=201)
    rec.call("GET", f"{LIB}/book:solaris/notes.txt", "read the attachment", expect=200)
    rec.call("DELETE", f"{LIB}/book:solaris/notes.txt", "delete the attachment with ?rev=",
             params={"rev": r.json()["rev"]}, expect=200)
    rec.call("GET", f"{LIB}/book:solaris/notes.txt", "read it: 404", expect=404)
    rec.call("GET", f"{LIB}/book:solaris", "Solaris without _attachments (rev 3-…)", expect=200)

    rec.section("Databases: create, conflict, write, delete")
    rec.call("PUT", "/reviews", "create database `reviews`", expect=201)
    rec.call("PUT", "/reviews", "create it again: 412 file_exists", expect=412)
    rec.call("POST", "/reviews", "add a review (generated id)",
             json={"type": "review", "book": "book:kindred", "stars": 5, "by": "member:0002"}, expect=201)
    rec.call("GET", "/reviews/_all_docs", "reviews listed", params={"include_docs": "true"}, expect=200)
    rec.call("GET", "/_all_dbs", "databases: reviews listed", expect=200)
    rec.call("DELETE", "/reviews", "delete database `reviews`", expect=200)
    rec.call("GET", "/reviews", "read it: 404", expect=404)
    rec.call("GET", "/_all_dbs", "databases: reviews gone", expect=200)


SCENARIOS = [
    ("build", scenario_build),
    ("probe-reads", scenario_probe_reads),
    ("probe-crud", scenario_probe_crud),
]


def prepare(run: Path) -> None:
    """The server keeps its settings (and its uuid) in config.json; a fixed one makes `GET /` stable."""
    (run / "config.json").write_text(json.dumps({"couchdb": {"uuid": SERVER_UUID}}, indent=2) + "\n")


def command(run: Path) -> list:
    return [HERE / "node_modules" / ".bin" / "pouchdb-server", "--in-memory", "--no-stdout-logs",
            "--host", "127.0.0.1", "--port", str(APP_PORT), "--config", run / "config.json"]


def main() -> None:
    import readme  # the prose of README.md, next to this file

    record_app(AppSpec(name="pouchdb-server", here=HERE, dist="", app_port=APP_PORT, proxy_port=PROXY_PORT,
                       command=command, scenarios=SCENARIOS, render_readme=readme.render, prepare=prepare,
                       seed_live=lambda base: seed(), headers=JSON_HEADERS,
                       version=lambda: npm_version(HERE, "pouchdb-server")))


if __name__ == "__main__":
    main()
