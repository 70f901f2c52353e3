"""Record HAR captures of a real Roundup issue tracker's REST API (classic template, SQLite).

Run through record.sh (it makes the venvs). For each capture `run/t/` is
emptied, `roundup-admin install classic sqlite` writes a tracker there with a
fixed web URL and secret key (mail goes to a debug file, never out),
`roundup-admin initialise` sets the admin password, `seed.py` adds keywords,
users, issues and messages with the app's own Python (not recorded), and
`roundup-server` serves it on 127.0.0.1. Every recorded request authenticates
with HTTP basic auth as `admin` and sends the `Origin`, `Referer` and
`X-Requested-With` headers Roundup's CSRF checks ask of REST clients.
"""

from __future__ import annotations

import base64
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "kit"))

import httpx  # noqa: E402

from appdriver import AppSpec, record_app  # noqa: E402
from harlib import Recorder  # noqa: E402

APP_PORT = 18841
PROXY_PORT = 18941
TRACKER = "rt"
ORIGIN = f"http://127.0.0.1:{APP_PORT}"
WEB = f"{ORIGIN}/{TRACKER}/"
ADMIN_PASSWORD = "corpus-admin-pw-2026"
SECRET_KEY = "corpus-fixed-secret-key-2026"
R = f"/{TRACKER}/rest"
D = f"{R}/data"
BIN = HERE / ".venv" / "bin"


def basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


HEADERS = {"Authorization": basic("admin", ADMIN_PASSWORD), "Origin": ORIGIN, "Referer": WEB,
           "X-Requested-With": "rest"}


# ---------------------------------------------------------------- the seed
def as_server_user() -> list:
    """roundup-server refuses to run as root; as root it is started as `nobody`."""
    return ["-u", "nobody", "-g", "nogroup"] if os.getuid() == 0 else []


def prepare(run: Path) -> None:
    """A fresh classic tracker in run/t with the admin password and the seed of seed.py."""
    home = run / "t"
    shutil.rmtree(home, ignore_errors=True)
    opts = ",".join([f"tracker_web={WEB}", f"web_secret_key={SECRET_KEY}", f"mail_debug={run / 'mail.log'}",
                     "mail_domain=example.test", "tracker_email=issues"])
    quiet = {"check": True, "stdout": subprocess.DEVNULL}
    subprocess.run([BIN / "roundup-admin", "-i", home, "install", "classic", "sqlite", opts], **quiet)
    subprocess.run([BIN / "roundup-admin", "-i", home, "initialise", ADMIN_PASSWORD], **quiet)
    subprocess.run([BIN / "python", HERE / "seed.py", home], check=True)
    (run / "mail.log").touch()
    if os.getuid() == 0:
        for path in [run / "mail.log", home, *home.rglob("*")]:
            shutil.chown(path, "nobody", "nogroup")


def command(run: Path) -> list:
    return [BIN / "roundup-server", *as_server_user(), "-t", "none", "-n", "127.0.0.1", "-p", str(APP_PORT),
            f"{TRACKER}={run / 't'}"]


# ---------------------------------------------------------------- helpers
def etag_of(r: httpx.Response) -> str:
    return r.headers["ETag"]


def read(rec: Recorder, path: str, why: str, **kw) -> httpx.Response:
    return rec.call("GET", path, why, expect=200, **kw)


def follow_pages(rec: Recorder, r: httpx.Response, what: str) -> None:
    """Follow `@links.next` of a paged collection to its last page."""
    page = 2
    while "next" in r.json()["data"].get("@links", {}):
        nxt = httpx.URL(r.json()["data"]["@links"]["next"][0]["uri"])
        r = read(rec, nxt.raw_path.decode(), f"{what}: page {page} from `@links.next`")
        page += 1


def write(rec: Recorder, method: str, path: str, why: str, etag: str | None, expect: int, **kw) -> httpx.Response:
    headers = {"If-Match": etag} if etag else {}
    return rec.call(method, path, why, expect=expect, headers=headers, **kw)


# ---------------------------------------------------------------- build
def build_reads(rec: Recorder) -> None:
    rec.section("Discover the classes and the lookup tables")
    read(rec, f"{R}/", "the REST root: the routes it offers")
    read(rec, f"{D}", "the classes with their collection links")
    read(rec, f"{D}/status", "statuses with their names (@verbose=2 adds the label property)",
         params={"@verbose": "2"})
    read(rec, f"{D}/priority", "priorities with names and order", params={"@fields": "name,order"})
    read(rec, f"{D}/keyword", "keywords with names", params={"@verbose": "2"})
    read(rec, f"{D}/user", "users with their usernames and real names",
         params={"@fields": "username,realname"})

    rec.section("Issues: filters, sorts, fields, pages")
    read(rec, f"{D}/issue", "all issues (ids and links only)")
    read(rec, f"{D}/issue", "all issues with title, status and priority",
         params={"@fields": "title,status,priority"})
    read(rec, f"{D}/issue", "status=in-progress (a link filtered by its name)",
         params={"status": "in-progress", "@fields": "title,status"})
    read(rec, f"{D}/issue", "status=1,3 (two ids: unread or chatting)", params={"status": "1,3", "@fields": "title"})
    read(rec, f"{D}/issue", "title=page (a substring match)", params={"title": "page", "@fields": "title"})
    read(rec, f"{D}/issue", "assignedto=alice", params={"assignedto": "alice", "@fields": "title,assignedto"})
    read(rec, f"{D}/issue", "keyword=ui (a multilink)", params={"keyword": "ui", "@fields": "title,keyword"})
    read(rec, f"{D}/issue", "sorted by -activity (newest first)", params={"@sort": "-activity", "@fields": "title"})
    read(rec, f"{D}/issue", "sorted by priority then title", params={"@sort": "priority,title",
                                                                        "@fields": "title,priority"})
    r = read(rec, f"{D}/issue", "page 1 of 2 a page, by title",
             params={"@sort": "title", "@page_size": "2", "@page_index": "1", "@fields": "title"})
    follow_pages(rec, r, "issues by title, 2 a page")

    rec.section("Items and properties")
    read(rec, f"{D}/issue/1", "issue 1 (attributes with links, @etag)")
    read(rec, f"{D}/issue/1", "issue 1 at @verbose=2 (links carry their labels)", params={"@verbose": "2"})
    read(rec, f"{D}/issue/1/title", "issue 1's title as a property document")
    read(rec, f"{D}/issue/1/messages", "issue 1's messages (a multilink property)")
    read(rec, f"{D}/msg/1", "message 1 (author, date, content link)")
    read(rec, f"{D}/user/3", "user 3 (alice)")
    read(rec, f"{D}/status/5", "status 5")
    rec.call("GET", f"{D}/issue/99", "an issue that does not exist: 404", expect=404)
    rec.call("GET", f"{D}/nosuchclass", "a class that does not exist: 404", expect=404)


def build_issue_writes(rec: Recorder) -> None:
    rec.section("Create an issue and a message")
    r = rec.call("POST", f"{D}/issue", "create an issue (links given by name); answers the new id and link",
                 json={"title": "Export to CSV drops the last row", "priority": "bug", "status": "unread",
                       "assignedto": "carol", "keyword": ["backend"]}, expect=201)
    iid = r.json()["data"]["id"]
    r = read(rec, f"{D}/issue/{iid}", "read it")
    read(rec, f"{D}/issue", "status=unread: the new issue is listed", params={"status": "unread", "@fields": "title"})
    r2 = rec.call("POST", f"{D}/msg", "create a message by bob",
                  json={"content": "Happens with any export over 100 rows.", "author": "4"}, expect=201)
    mid = r2.json()["data"]["id"]
    read(rec, f"{D}/msg/{mid}", "read the message")

    rec.section("Change it: PUT, PATCH operations, a property document; ETag / If-Match")
    r = write(rec, "PATCH", f"{D}/issue/{iid}", "PATCH @op=add: attach the message", etag_of(r), 200,
              json={"@op": "add", "messages": [mid]})
    r = read(rec, f"{D}/issue/{iid}", "read it: one message")
    write(rec, "PUT", f"{D}/issue/{iid}", "PUT without If-Match: 412", None, 412, json={"priority": "urgent"})
    old = etag_of(r)
    r = write(rec, "PUT", f"{D}/issue/{iid}", "PUT priority=urgent, status=in-progress with the current ETag",
              old, 200, json={"priority": "urgent", "status": "in-progress"})
    write(rec, "PUT", f"{D}/issue/{iid}", "PUT again with the old ETag: 412", old, 412, json={"priority": "wish"})
    r = read(rec, f"{D}/issue/{iid}", "read it: urgent, in-progress")
    r = write(rec, "PATCH", f"{D}/issue/{iid}", "PATCH @op=add keyword ui", etag_of(r), 200,
              json={"@op": "add", "keyword": ["ui"]})
    r = read(rec, f"{D}/issue/{iid}", "read it: keywords backend and ui")
    write(rec, "PATCH", f"{D}/issue/{iid}", "PATCH @op=remove keyword backend", etag_of(r), 200,
          json={"@op": "remove", "keyword": ["backend"]})
    r = read(rec, f"{D}/issue/{iid}/title", "the title document with its @etag")
    write(rec, "PUT", f"{D}/issue/{iid}/title", "PUT the title document", r.json()["data"]["@etag"], 200,
          json={"data": "Export to CSV drops the last row of every page"})
    read(rec, f"{D}/issue/{iid}/title", "read the title back")
    r = read(rec, f"{D}/issue/{iid}", "read the issue")
    r = write(rec, "PATCH", f"{D}/issue/{iid}", "PATCH @op=replace assignedto alice (default op)", etag_of(r), 200,
              json={"assignedto": "alice"})
    read(rec, f"{D}/issue", "assignedto=alice: the issue is listed", params={"assignedto": "alice",
                                                                             "@fields": "title"})
    read(rec, f"{D}/issue", "status=in-progress sorted by -activity",
         params={"status": "in-progress", "@sort": "-activity", "@fields": "title,status"})


def build_other_writes(rec: Recorder) -> None:
    rec.section("Refusals")
    rec.call("POST", f"{D}/issue", "a status that does not exist: 400",
             json={"title": "Bad status", "status": "nosuch"}, expect=400)
    rec.call("POST", f"{D}/issue", "a property the class does not have: 400",
             json={"title": "Bad field", "colour": "red"}, expect=400)
    rec.call("POST", f"{D}/keyword", "a keyword name that exists: 409", json={"name": "ui"}, expect=409)

    rec.section("A keyword, an issue retired")
    r = rec.call("POST", f"{D}/keyword", "create keyword security", json={"name": "security"}, expect=201)
    kid = r.json()["data"]["id"]
    read(rec, f"{D}/keyword/{kid}", "read it")
    read(rec, f"{D}/keyword", "keywords: security added", params={"@verbose": "2"})
    r = rec.call("POST", f"{D}/issue", "create a throwaway issue", json={"title": "Duplicate of issue 2",
                                                                          "priority": "wish"}, expect=201)
    tid = r.json()["data"]["id"]
    r = read(rec, f"{D}/issue/{tid}", "read it")
    write(rec, "DELETE", f"{D}/issue/{tid}", "DELETE without If-Match: 412", None, 412)
    write(rec, "DELETE", f"{D}/issue/{tid}", "DELETE (retire) it with the ETag", etag_of(r), 200)
    read(rec, f"{D}/issue", "all issues: the retired one is gone", params={"@fields": "title"})
    read(rec, f"{D}/issue", "priority=wish: only issue 5", params={"priority": "wish", "@fields": "title"})


def scenario_build(rec: Recorder) -> None:
    build_reads(rec)
    build_issue_writes(rec)
    build_other_writes(rec)


# ---------------------------------------------------------------- probe-reads
def scenario_probe_reads(rec: Recorder) -> None:
    rec.section("Other filter values, sorts, fields and pages")
    read(rec, f"{D}/issue", "status=resolved", params={"status": "resolved", "@fields": "title,status"})
    read(rec, f"{D}/issue", "status=unread,deferred (two names)", params={"status": "unread,deferred",
                                                                          "@fields": "title"})
    read(rec, f"{D}/issue", "title=export (substring, any case)", params={"title": "export", "@fields": "title"})
    read(rec, f"{D}/issue", "assignedto=bob", params={"assignedto": "bob", "@fields": "title"})
    read(rec, f"{D}/issue", "assignedto=-1 (nobody)", params={"assignedto": "-1", "@fields": "title"})
    read(rec, f"{D}/issue", "keyword=backend", params={"keyword": "backend", "@fields": "title,keyword"})
    read(rec, f"{D}/issue", "priority=critical,urgent", params={"priority": "critical,urgent",
                                                                "@fields": "title,priority"})
    read(rec, f"{D}/issue", "priority=urgent and status=testing", params={"priority": "urgent", "status": "testing",
                                                                          "@fields": "title"})
    read(rec, f"{D}/issue", "a filter that matches nothing", params={"title": "zeppelin"})
    read(rec, f"{D}/issue", "sorted by -id", params={"@sort": "-id", "@fields": "title"})
    read(rec, f"{D}/issue", "sorted by status", params={"@sort": "status", "@fields": "title,status"})
    read(rec, f"{D}/issue", "fields assignedto and keyword", params={"@fields": "assignedto,keyword"})
    read(rec, f"{D}/issue", "@verbose=2 with title", params={"@verbose": "2", "@fields": "title,status"})
    read(rec, f"{D}/issue", "page 2 of 4 a page", params={"@page_size": "4", "@page_index": "2", "@fields": "title"})
    r = read(rec, f"{D}/issue", "page 1 of 3 a page by -id", params={"@sort": "-id", "@page_size": "3",
                                                                     "@fields": "title"})
    follow_pages(rec, r, "issues by -id, 3 a page")
    read(rec, f"{D}/issue", "page 5 of 2 a page (past the end)", params={"@page_size": "2", "@page_index": "5"})

    rec.section("Other items and properties")
    for iid in (2, 4, 6):
        read(rec, f"{D}/issue/{iid}", f"issue {iid}")
    read(rec, f"{D}/issue/3/status", "issue 3's status property")
    read(rec, f"{D}/issue/4/priority", "issue 4's priority property")
    read(rec, f"{D}/issue/6/keyword", "issue 6's keywords")
    read(rec, f"{D}/issue/5/assignedto", "issue 5's assignee (none)")
    read(rec, f"{D}/msg/5", "message 5")
    read(rec, f"{D}/msg", "messages with author", params={"@fields": "author"})
    read(rec, f"{D}/user/4", "user 4 (bob)")
    read(rec, f"{D}/user", "users filtered by username=carol", params={"username": "carol",
                                                                        "@fields": "username,organisation"})
    read(rec, f"{D}/priority/1", "priority 1")
    read(rec, f"{D}/keyword/3", "keyword 3")

    rec.section("Errors")
    rec.call("GET", f"{D}/issue/42", "an issue that does not exist: 404", expect=404)
    rec.call("GET", f"{D}/issue/1/colour", "a property that does not exist: 400", expect=400)
    rec.call("GET", f"{D}/issue", "a filter on a property that does not exist: 400", params={"colour": "red"},
             expect=400)
    rec.call("GET", f"{D}/issue", "a bad page size: 400", params={"@page_size": "many"}, expect=400)
    rec.call("GET", f"{D}/msg/99", "a message that does not exist: 404", expect=404)


# ---------------------------------------------------------------- probe-crud
def probe_crud_issue(rec: Recorder) -> None:
    rec.section("Create an issue; read it in lists")
    r = rec.call("POST", f"{D}/issue", "create an issue by ids (priority 1, status 2, assignedto 5, keyword 3)",
                 json={"title": "Password reset mail never arrives", "priority": "1", "status": "2",
                       "assignedto": "5", "keyword": ["3"]}, expect=201)
    iid = r.json()["data"]["id"]
    r = read(rec, f"{D}/issue/{iid}", "read it")
    read(rec, f"{D}/issue", "status=deferred: issues 5 and the new one", params={"status": "deferred",
                                                                                 "@fields": "title"})
    read(rec, f"{D}/issue", "title=password", params={"title": "password", "@fields": "title"})

    rec.section("Change it: PATCH replace, property PUT, PATCH remove, a stale ETag")
    old = etag_of(r)
    r = write(rec, "PATCH", f"{D}/issue/{iid}", "PATCH @op=replace title and status", old, 200,
              json={"@op": "replace", "title": "Password reset mail is never sent", "status": "chatting"})
    write(rec, "PATCH", f"{D}/issue/{iid}", "PATCH with the old ETag: 412", old, 412,
          json={"@op": "replace", "status": "resolved"})
    r = read(rec, f"{D}/issue/{iid}", "read it: new title, chatting")
    read(rec, f"{D}/issue", "status=chatting: issue 3 and the new one", params={"status": "chatting",
                                                                                "@fields": "title,status"})
    r = read(rec, f"{D}/issue/{iid}/priority", "its priority document with @etag")
    write(rec, "PUT", f"{D}/issue/{iid}/priority", "PUT the priority document: feature",
          r.json()["data"]["@etag"], 200, json={"data": "feature"})
    read(rec, f"{D}/issue/{iid}/priority", "read it back")
    r = read(rec, f"{D}/issue/{iid}", "read the issue")
    r = write(rec, "PATCH", f"{D}/issue/{iid}", "PATCH @op=add keyword backend and ui", etag_of(r), 200,
              json={"@op": "add", "keyword": ["backend", "ui"]})
    r = read(rec, f"{D}/issue/{iid}", "read it: three keywords")
    write(rec, "PATCH", f"{D}/issue/{iid}", "PATCH @op=remove keyword docs", etag_of(r), 200,
          json={"@op": "remove", "keyword": ["docs"]})
    read(rec, f"{D}/issue", "keyword=docs: issue 3 only", params={"keyword": "docs", "@fields": "title"})
    r = read(rec, f"{D}/issue/{iid}", "read it")
    write(rec, "DELETE", f"{D}/issue/{iid}/assignedto", "DELETE the assignedto property", etag_of(r), 200)
    read(rec, f"{D}/issue/{iid}", "read it: nobody assigned")
    read(rec, f"{D}/issue", "assignedto=-1: issue 5 and the new one", params={"assignedto": "-1",
                                                                              "@fields": "title"})


def probe_crud_seeded(rec: Recorder) -> None:
    rec.section("Change seeded issues")
    r = read(rec, f"{D}/issue/2", "issue 2")
    write(rec, "PUT", f"{D}/issue/2", "PUT status=resolved, assignedto=carol", etag_of(r), 200,
          json={"status": "resolved", "assignedto": "carol"})
    read(rec, f"{D}/issue/2", "read it")
    read(rec, f"{D}/issue", "status=resolved: issues 2 and 4", params={"status": "resolved", "@fields": "title"})
    read(rec, f"{D}/issue", "assignedto=bob: issue 4 only", params={"assignedto": "bob", "@fields": "title"})
    r = read(rec, f"{D}/issue/5/title", "issue 5's title document")
    write(rec, "PUT", f"{D}/issue/5/title", "PUT a new title", r.json()["data"]["@etag"], 200,
          json={"data": "Dark mode for every page"})
    read(rec, f"{D}/issue/5", "read issue 5")
    r2 = rec.call("POST", f"{D}/msg", "a message by carol", json={"content": "Reopened after the 2.6 upgrade.",
                                                                   "author": "5"}, expect=201)
    mid = r2.json()["data"]["id"]
    r = read(rec, f"{D}/issue/4", "issue 4")
    write(rec, "PATCH", f"{D}/issue/4", "PATCH @op=add the message to issue 4", etag_of(r), 200,
          json={"@op": "add", "messages": [mid]})
    read(rec, f"{D}/issue/4/messages", "issue 4's messages: two")
    r = read(rec, f"{D}/issue/6", "issue 6")
    write(rec, "DELETE", f"{D}/issue/6", "retire issue 6", etag_of(r), 200)
    read(rec, f"{D}/issue", "all issues: 6 gone", params={"@fields": "title"})
    read(rec, f"{D}/issue", "status=testing: none left", params={"status": "testing"})
    rec.call("PUT", f"{D}/issue/42", "PUT an issue that does not exist: 409", json={"title": "x"},
             headers={"If-Match": '"0"'}, expect=409)

    rec.section("Keywords and users")
    r = rec.call("POST", f"{D}/keyword", "create keyword performance", json={"name": "performance"}, expect=201)
    read(rec, f"{D}/keyword", "keywords", params={"@verbose": "2"})
    rec.call("POST", f"{D}/keyword", "the same name again: 409", json={"name": "performance"}, expect=409)
    r = rec.call("POST", f"{D}/user", "create user dave",
                 json={"username": "dave", "realname": "Dave Doe", "address": "dave@example.test",
                       "roles": "User", "password": "corpus-user-pw-2026"}, expect=201)
    uid = r.json()["data"]["id"]
    read(rec, f"{D}/user/{uid}", "read dave")
    read(rec, f"{D}/user", "users with usernames", params={"@fields": "username"})
    rec.call("POST", f"{D}/issue", "assignedto a user that does not exist: 400",
             json={"title": "Nobody", "assignedto": "zed"}, expect=400)


def scenario_probe_crud(rec: Recorder) -> None:
    probe_crud_issue(rec)
    probe_crud_seeded(rec)


SCENARIOS = [("build", scenario_build), ("probe-reads", scenario_probe_reads), ("probe-crud", scenario_probe_crud)]


def main() -> None:
    import readme

    spec = AppSpec(
        name="roundup", here=HERE, dist="roundup", app_port=APP_PORT, proxy_port=PROXY_PORT, command=command,
        scenarios=SCENARIOS, render_readme=readme.render, prepare=prepare, headers=HEADERS,
        ready_path=f"{D}/status", stop_signal=signal.SIGTERM, settle=0.5,
    )
    record_app(spec)


if __name__ == "__main__":
    main()
