"""Record HAR captures of a real FlexGet daemon's REST API (lists, series, tasks, variables).

Run through record.sh (it makes the venvs). For each capture `run/fg/` is
emptied, `config.yml` is copied there, `flexget web passwd` creates the
database and the web user, the user's API token is set to a fixed value in
that database, and the daemon is started on 127.0.0.1. The seed lists, entries,
movies and series are then created through the API without the proxy (not
recorded), and the scenario runs through the proxy with
`Authorization: Token <fixed token>`.
"""

from __future__ import annotations

import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "kit"))

import httpx  # noqa: E402

from appdriver import AppSpec, record_app  # noqa: E402
from harlib import Recorder  # noqa: E402

APP_PORT = 18814
PROXY_PORT = 18914
PASSWORD = "corpus-s3cret-2026"  # FlexGet refuses weak passwords; a local dummy all the same
TOKEN = "s3cret-token-for-the-corpus-recorder"
FLEXGET = HERE / ".venv" / "bin" / "flexget"
A = "/api"
EL = f"{A}/entry_list"
PL = f"{A}/pending_list"
ML = f"{A}/movie_list"

# ---------------------------------------------------------------- the seed
def entry(title: str, **extra) -> dict:
    slug = title.lower().replace(" ", "-")
    return {"title": title, "url": f"http://example.test/{slug}.torrent",
            "original_url": f"http://example.test/{slug}.torrent", **extra}


WATCHLIST = [  # entry_list 1; entry ids 1-7
    entry("Dune Part Two 2024 1080p", imdb_id="tt15239678", quality="1080p"),
    entry("Arrival 2016 720p", imdb_id="tt2543164", quality="720p"),
    entry("Heat 1995 1080p", imdb_id="tt0113277", quality="1080p"),
    entry("Sicario 2015 2160p", imdb_id="tt3397884", quality="2160p"),
    entry("Blade Runner 2049 2017 1080p", imdb_id="tt1856101", quality="1080p"),
    entry("Prisoners 2013 720p", quality="720p"),
    entry("Enemy 2013 480p", quality="480p"),
]
ARCHIVE = [  # entry_list 2; entry ids 8-9
    entry("Incendies 2010 1080p", quality="1080p"),
    entry("Polytechnique 2009 720p", quality="720p"),
]
PENDING = [  # pending_list 1; entry ids 1-4 (the first is approved)
    entry("Alien Romulus 2024 1080p"),
    entry("Civil War 2024 1080p"),
    entry("The Substance 2024 720p"),
    entry("Furiosa 2024 2160p"),
]
MOVIE_LISTS = {  # movie_list 1 and 2
    "classics": [("Heat", 1995, "tt0113277"), ("Alien", 1979, "tt0078748"), ("Chinatown", 1974, "tt0071315"),
                 ("Ran", 1985, "tt0089881")],
    "releases-2026": [("Mickey 17", 2025, "tt12299608"), ("Sinners", 2025, "tt31193180")],
}
SERIES = [  # series ids 1-3
    {"name": "Severance", "begin_episode": "S02E01"},
    {"name": "The Bear", "alternate_names": ["Bear"]},
    {"name": "Slow Horses", "begin_episode": "S04E01"},
]


def prepare(run: Path) -> None:
    """Fresh run/fg with the config, a database with the web user and a fixed API token."""
    fg = run / "fg"
    shutil.rmtree(fg, ignore_errors=True)
    fg.mkdir(parents=True)
    shutil.copy(HERE / "config.yml", fg / "config.yml")
    subprocess.run([FLEXGET, "-c", fg / "config.yml", "web", "passwd", PASSWORD], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    con = sqlite3.connect(fg / "db-config.sqlite")
    con.execute("UPDATE users SET token = ? WHERE name = 'flexget'", (TOKEN,))
    con.commit()
    con.close()


def command(run: Path) -> list:
    return [FLEXGET, "-c", run / "fg" / "config.yml", "--loglevel", "info", "daemon", "start"]


def seed_live(base: str) -> None:
    with httpx.Client(base_url=base, headers={"Authorization": f"Token {TOKEN}"}, timeout=30,
                      trust_env=False) as c:
        for name, rows in (("watchlist", WATCHLIST), ("archive", ARCHIVE)):
            lid = c.post(f"{EL}/", json={"name": name}).raise_for_status().json()["id"]
            for row in rows:
                c.post(f"{EL}/{lid}/entries/", json=row).raise_for_status()
        lid = c.post(f"{PL}/", json={"name": "to-review"}).raise_for_status().json()["id"]
        ids = [c.post(f"{PL}/{lid}/entries/", json=row).raise_for_status().json()["id"] for row in PENDING]
        c.put(f"{PL}/{lid}/entries/{ids[0]}/", json={"operation": "approve"}).raise_for_status()
        for name, movies in MOVIE_LISTS.items():
            lid = c.post(f"{ML}/", json={"name": name}).raise_for_status().json()["id"]
            for title, year, imdb in movies:
                c.post(f"{ML}/{lid}/movies/", json={"movie_name": title, "movie_year": year,
                                                    "movie_identifiers": [{"imdb_id": imdb}]}).raise_for_status()
        for show in SERIES:
            c.post(f"{A}/series/", json=show).raise_for_status()


# ---------------------------------------------------------------- helpers
def follow_links(rec: Recorder, r: httpx.Response, what: str) -> None:
    """Follow the Link header's rel="next" to the last page."""
    page = 2
    while "next" in r.links:
        nxt = httpx.URL(r.links["next"]["url"])
        r = rec.call("GET", nxt.raw_path.decode(), f"{what}: page {page} from the Link header", expect=200)
        page += 1


def run_task(rec: Recorder, name: str, why: str) -> None:
    """Execute a task, then wait (unrecorded, straight to the app) until its execution is stored."""
    before = executions(rec.base_url, name)
    rec.call("POST", f"{A}/tasks/execute/", why, json={"tasks": [name], "progress": False, "summary": False,
                                                          "entry_dump": False}, expect=200)
    deadline = time.time() + 60
    while executions(rec.base_url, name) == before:
        if time.time() > deadline:
            raise RuntimeError(f"task {name} did not finish")
        time.sleep(0.5)
    rec.note(f"waited (unrecorded, polling the app directly) until task `{name}` finished")


def executions(base: str, name: str) -> int:
    r = httpx.get(f"{base}{A}/tasks/status/", headers={"Authorization": f"Token {TOKEN}"}, trust_env=False)
    for t in r.json():
        if t["name"] == name:
            return t["last_execution"]["id"] if t.get("last_execution") else 0
    return 0


# ---------------------------------------------------------------- scenarios
def build_reads(rec: Recorder) -> None:
    rec.section("Discover")
    rec.call("GET", f"{A}/server/version/", "FlexGet and API versions", expect=200)
    rec.call("GET", f"{A}/tasks/", "configured tasks with their config", expect=200)
    rec.call("GET", f"{A}/variables/", "config variables: {} (the seed sets none)", expect=200)

    rec.section("Entry lists and their entries: sort, order, pages (Link and Total-Count headers)")
    rec.call("GET", f"{EL}/", "list entry lists", expect=200)
    rec.call("GET", f"{EL}/", "entry lists filtered by name", params={"name": "watchlist"}, expect=200)
    rec.call("GET", f"{EL}/1/", "entry list 1", expect=200)
    rec.call("GET", f"{EL}/1/entries/", "entries of watchlist (default: sort_by=title, order=desc)", expect=200)
    rec.call("GET", f"{EL}/1/entries/", "entries sorted by id ascending", params={"sort_by": "id", "order": "asc"},
             expect=200)
    r = rec.call("GET", f"{EL}/1/entries/", "page 1 with per_page=3, by title ascending",
                 params={"per_page": "3", "sort_by": "title", "order": "asc"}, expect=200)
    follow_links(rec, r, "watchlist by title")
    rec.call("GET", f"{EL}/1/entries/2/", "entry 2 (the entry's own fields nested in `entry`)", expect=200)
    rec.call("GET", f"{EL}/2/entries/", "entries of archive", expect=200)

    rec.section("Pending list, movie lists, series")
    rec.call("GET", f"{PL}/", "list pending lists", expect=200)
    rec.call("GET", f"{PL}/1/entries/", "entries of to-review", expect=200)
    rec.call("GET", f"{PL}/1/entries/", "approved=true: not a parameter of this route, all four come back",
             params={"approved": "true"}, expect=200)
    rec.call("GET", f"{ML}/", "list movie lists", expect=200)
    rec.call("GET", f"{ML}/1/movies/", "movies of classics by year ascending", params={"sort_by": "year", "order": "asc"},
             expect=200)
    rec.call("GET", f"{ML}/1/movies/1/", "movie 1 with its identifiers", expect=200)
    rec.call("GET", f"{A}/series/", "series known to the database (in_config=all)", params={"in_config": "all"},
             expect=200)
    rec.call("GET", f"{A}/series/1/", "series 1 with its begin episode", expect=200)
    rec.call("GET", f"{A}/series/1/episodes/", "episodes of series 1", expect=200)


def build_list_writes(rec: Recorder) -> None:
    rec.section("Create an entry list and entries; refusals")
    r = rec.call("POST", f"{EL}/", "create entry list weekend", json={"name": "weekend"}, expect=201)
    wl = r.json()["id"]
    rec.call("GET", f"{EL}/{wl}/", "read it", expect=200)
    rec.call("GET", f"{EL}/", "list entry lists: weekend added", expect=200)
    rec.call("POST", f"{EL}/", "create it again: 409", json={"name": "weekend"}, expect=409)
    r = rec.call("POST", f"{EL}/{wl}/entries/", "add an entry (id generated)",
                 json=entry("Oppenheimer 2023 1080p", quality="1080p"), expect=201)
    e1 = r.json()["id"]
    rec.call("GET", f"{EL}/{wl}/entries/{e1}/", "read the new entry", expect=200)
    r = rec.call("POST", f"{EL}/{wl}/entries/", "add a second entry", json=entry("Tenet 2020 720p"), expect=201)
    e2 = r.json()["id"]
    rec.call("GET", f"{EL}/{wl}/entries/", "entries of weekend", expect=200)
    rec.call("POST", f"{EL}/{wl}/entries/", "the same title again: 409", json=entry("Tenet 2020 720p"), expect=409)
    rec.call("POST", f"{EL}/{wl}/entries/", "no original_url: 422 validation error",
             json={"title": "Memento 2000 1080p"}, expect=422)

    rec.section("Update and delete entries; batch delete")
    rec.call("PUT", f"{EL}/{wl}/entries/{e2}/", "replace entry fields (PUT answers 201)",
             json=entry("Tenet 2020 2160p", quality="2160p"), expect=201)
    rec.call("GET", f"{EL}/{wl}/entries/{e2}/", "read it back", expect=200)
    rec.call("DELETE", f"{EL}/{wl}/entries/{e1}/", "delete the first entry", expect=200)
    rec.call("GET", f"{EL}/{wl}/entries/{e1}/", "read it: 404", expect=404)
    rec.call("GET", f"{EL}/{wl}/entries/", "entries of weekend: one left", expect=200)
    rec.call("DELETE", f"{EL}/1/entries/batch", "batch delete entries 6 and 7 of watchlist (ids in the body)",
             json={"ids": [6, 7]}, expect=204)
    rec.call("GET", f"{EL}/1/entries/", "watchlist without them", params={"sort_by": "id", "order": "asc"},
             expect=200)

    rec.section("Pending list: approve and reject (operation in the body)")
    rec.call("PUT", f"{PL}/1/entries/2/", "approve pending entry 2", json={"operation": "approve"}, expect=201)
    rec.call("GET", f"{PL}/1/entries/2/", "read it: approved", expect=200)
    rec.call("GET", f"{PL}/1/entries/", "pending entries (approved=true is ignored): entry 2 approved",
             params={"approved": "true"}, expect=200)
    rec.call("PUT", f"{PL}/1/entries/batch", "batch: reject entries 1 and 2",
             json={"operation": "reject", "ids": [1, 2]}, expect=201)
    rec.call("GET", f"{PL}/1/entries/", "pending entries: 1 and 2 no longer approved", expect=200)

    rec.section("Movie list: add and remove a movie")
    r = rec.call("POST", f"{ML}/2/movies/", "add a movie with an IMDb id to releases-2026",
                 json={"movie_name": "The Brutalist", "movie_year": 2024,
                       "movie_identifiers": [{"imdb_id": "tt8999762"}]}, expect=201)
    mid = r.json()["id"]
    rec.call("GET", f"{ML}/2/movies/{mid}/", "read it (identifier rows nested, with their own ids)", expect=200)
    rec.call("GET", f"{ML}/2/movies/", "movies of releases-2026", expect=200)
    rec.call("DELETE", f"{ML}/2/movies/{mid}/", "remove it", expect=200)
    rec.call("GET", f"{ML}/2/movies/{mid}/", "read it: 404", expect=404)


def build_other_writes(rec: Recorder) -> None:
    rec.section("Series: create, change the begin episode, delete")
    r = rec.call("POST", f"{A}/series/", "add series Andor from S02E01", json={"name": "Andor", "begin_episode": "S02E01"},
                 expect=201)
    sid = r.json()["id"]
    rec.call("GET", f"{A}/series/{sid}/", "read it", expect=200)
    rec.call("PUT", f"{A}/series/{sid}/", "begin at S02E04 and add an alternate name",
             json={"begin_episode": "S02E04", "alternate_names": ["Star Wars Andor"]}, expect=200)
    rec.call("GET", f"{A}/series/{sid}/", "read it back", expect=200)
    rec.call("GET", f"{A}/series/", "series sorted by name ascending",
             params={"in_config": "all", "sort_by": "show_name", "order": "asc"}, expect=200)
    rec.call("DELETE", f"{A}/series/{sid}/", "delete it", expect=200)
    rec.call("GET", f"{A}/series/{sid}/", "read it: 404", expect=404)

    rec.section("Execute a task (action route); its effects on lists, seen and history")
    run_task(rec, "archive-1080p", "run archive-1080p: moves the 1080p entries of watchlist to archive")
    rec.call("GET", f"{A}/tasks/status/", "task status: last execution", expect=200)
    rec.call("GET", f"{EL}/1/entries/", "watchlist: the 1080p entries are gone", expect=200)
    rec.call("GET", f"{EL}/2/entries/", "archive: they are added", expect=200)
    rec.call("GET", f"{A}/seen/", "seen entries learnt by the run", expect=200)
    rec.call("GET", f"{A}/history/", "history of accepted entries", expect=200)

    rec.section("Delete the entry list")
    rec.call("DELETE", f"{EL}/3/", "delete entry list weekend", expect=200)
    rec.call("GET", f"{EL}/3/", "read it: 404", expect=404)
    rec.call("GET", f"{EL}/", "entry lists: watchlist and archive", expect=200)


def scenario_build(rec: Recorder) -> None:
    build_reads(rec)
    build_list_writes(rec)
    build_other_writes(rec)


def scenario_probe_reads(rec: Recorder) -> None:
    rec.section("Other sorts, orders, pages and filters")
    rec.call("GET", f"{EL}/1/entries/", "sort_by=added", params={"sort_by": "added"}, expect=200)
    rec.call("GET", f"{EL}/1/entries/", "sort_by=original_url&order=asc",
             params={"sort_by": "original_url", "order": "asc"}, expect=200)
    r = rec.call("GET", f"{EL}/1/entries/", "page 1 with per_page=2 (default sort)", params={"per_page": "2"},
                 expect=200)
    follow_links(rec, r, "watchlist 2 a page")
    rec.call("GET", f"{EL}/1/entries/", "page 2 with per_page=5 directly", params={"per_page": "5", "page": "2"},
             expect=200)
    rec.call("GET", f"{EL}/", "entry lists filtered by name=archive", params={"name": "archive"}, expect=200)
    rec.call("GET", f"{EL}/", "a name that matches nothing", params={"name": "nope"}, expect=200)
    rec.call("GET", f"{PL}/1/entries/", "approved=false (ignored by this route)", params={"approved": "false"},
             expect=200)
    rec.call("GET", f"{ML}/1/movies/", "classics by title ascending", params={"sort_by": "title", "order": "asc"},
             expect=200)
    rec.call("GET", f"{ML}/2/movies/", "movies of releases-2026", expect=200)
    r = rec.call("GET", f"{A}/series/", "series one a page, by name ascending",
                 params={"in_config": "all", "per_page": "1", "sort_by": "show_name", "order": "asc"}, expect=200)
    follow_links(rec, r, "series by name")
    rec.call("GET", f"{A}/series/", "series in the config only (default): none", expect=200)

    rec.section("Other ids and sibling routes")
    rec.call("GET", f"{EL}/2/", "entry list 2", expect=200)
    r = rec.call("GET", f"{EL}/2/entries/9/", "entry 9 of archive (ETag)", expect=200)
    rec.call("GET", f"{EL}/2/entries/9/", "again with If-None-Match: its ETag -> 304",
             headers={"If-None-Match": r.headers["ETag"]}, expect=304)
    rec.call("GET", f"{PL}/1/", "pending list 1", expect=200)
    rec.call("GET", f"{PL}/1/entries/4/", "pending entry 4", expect=200)
    rec.call("GET", f"{ML}/1/", "movie list 1", expect=200)
    rec.call("GET", f"{ML}/1/movies/3/", "movie 3 of classics", expect=200)
    rec.call("GET", f"{ML}/identifiers/", "movie identifier kinds", expect=200)
    rec.call("GET", f"{A}/series/3/", "series 3", expect=200)
    rec.call("GET", f"{A}/series/3/episodes/", "episodes of series 3", expect=200)
    rec.call("GET", f"{A}/tasks/archive-1080p/", "one task", expect=200)
    rec.call("GET", f"{A}/seen/", "seen entries: none in the seed", expect=200)
    rec.call("GET", f"{A}/tasks/status/", "task status: never run", expect=200)

    rec.section("Errors")
    rec.call("GET", f"{EL}/99/", "an entry list that does not exist: 404", expect=404)
    rec.call("GET", f"{EL}/1/entries/999/", "an entry that does not exist: 404", expect=404)
    rec.call("GET", f"{EL}/2/entries/1/", "an entry of another list: 404", expect=404)
    rec.call("GET", f"{EL}/1/entries/", "a page past the end: 404", params={"page": "9"}, expect=404)
    rec.call("GET", f"{EL}/1/entries/", "sort_by=nope: 400", params={"sort_by": "nope"}, expect=400)
    rec.call("GET", f"{EL}/1/entries/", "per_page=abc: 400", params={"per_page": "abc"}, expect=400)
    rec.call("GET", f"{ML}/9/movies/", "movies of a list that does not exist: 404", expect=404)
    rec.call("GET", f"{A}/series/99/", "a series that does not exist: 404", expect=404)
    rec.call("GET", f"{A}/tasks/nope/", "a task that does not exist: 404", expect=404)
    rec.call("GET", f"{EL}/", "no token: 401", headers={"Authorization": ""}, expect=401)


def scenario_probe_crud(rec: Recorder) -> None:
    rec.section("A movie list: create, add, update identifiers, batch delete, delete")
    r = rec.call("POST", f"{ML}/", "create movie list noir", json={"name": "noir"}, expect=201)
    ml = r.json()["id"]
    rec.call("GET", f"{ML}/{ml}/", "read it", expect=200)
    rec.call("GET", f"{ML}/", "movie lists", expect=200)
    rec.call("POST", f"{ML}/", "the same name: 409", json={"name": "noir"}, expect=409)
    ids = []
    for title, year, imdb in (("Double Indemnity", 1944, "tt0036775"), ("The Third Man", 1949, "tt0041959")):
        r = rec.call("POST", f"{ML}/{ml}/movies/", f"add {title}",
                     json={"movie_name": title, "movie_year": year, "movie_identifiers": [{"imdb_id": imdb}]},
                     expect=201)
        ids.append(r.json()["id"])
    rec.call("GET", f"{ML}/{ml}/movies/{ids[0]}/", "read the first", expect=200)
    rec.call("POST", f"{ML}/{ml}/movies/", "no movie_name: 422", json={"movie_year": 1950}, expect=422)
    rec.call("PUT", f"{ML}/{ml}/movies/{ids[1]}/", "replace the second's identifiers",
             json=[{"imdb_id": "tt0041959"}, {"tmdb_id": "1092"}], expect=200)
    rec.call("GET", f"{ML}/{ml}/movies/{ids[1]}/", "read it: two identifiers", expect=200)
    rec.call("GET", f"{ML}/{ml}/movies/", "movies of noir", expect=200)
    rec.call("DELETE", f"{ML}/{ml}/movies/batch", "batch delete both", json={"ids": ids}, expect=204)
    rec.call("GET", f"{ML}/{ml}/movies/", "noir is empty", expect=200)
    rec.call("DELETE", f"{ML}/{ml}/", "delete the list", expect=200)
    rec.call("GET", f"{ML}/{ml}/", "read it: 404", expect=404)
    rec.call("GET", f"{ML}/", "movie lists", expect=200)

    rec.section("Entries of watchlist: add, update, refusals, delete")
    r = rec.call("POST", f"{EL}/1/entries/", "add an entry", json=entry("Sicario Day of the Soldado 2018 1080p"),
                 expect=201)
    eid = r.json()["id"]
    rec.call("GET", f"{EL}/1/entries/{eid}/", "read it", expect=200)
    rec.call("GET", f"{EL}/1/entries/", "watchlist by id descending", params={"sort_by": "id", "order": "desc"},
             expect=200)
    rec.call("POST", f"{EL}/1/entries/", "a title already in the list: 409", json=entry("Heat 1995 1080p"),
             expect=409)
    rec.call("POST", f"{EL}/1/entries/", "no title: 422", json={"original_url": "http://example.test/x.torrent"},
             expect=422)
    rec.call("POST", f"{EL}/99/entries/", "into a list that does not exist: 404", json=entry("X 2020 720p"),
             expect=404)
    rec.call("PUT", f"{EL}/1/entries/{eid}/", "update it", json=entry("Sicario Day of the Soldado 2018 720p",
                                                                      quality="720p"), expect=201)
    rec.call("GET", f"{EL}/1/entries/{eid}/", "read it back", expect=200)
    rec.call("DELETE", f"{EL}/1/entries/{eid}/", "delete it", expect=200)
    rec.call("GET", f"{EL}/1/entries/{eid}/", "read it: 404", expect=404)
    rec.call("DELETE", f"{EL}/1/entries/{eid}/", "delete it again: 404", expect=404)
    rec.call("GET", f"{EL}/1/entries/", "watchlist", expect=200)

    rec.section("Pending entries: add, approve in a batch, run the task that takes approved entries")
    r = rec.call("POST", f"{PL}/1/entries/", "add a pending entry (not approved)", json=entry("Nosferatu 2024 1080p"),
                 expect=201)
    pid = r.json()["id"]
    rec.call("PUT", f"{PL}/1/entries/batch", "approve it and entry 3", json={"operation": "approve", "ids": [pid, 3]},
             expect=201)
    rec.call("GET", f"{PL}/1/entries/", "pending entries: 1, 3 and the new one approved", expect=200)
    rec.call("PUT", f"{PL}/1/entries/{pid}/", "an unknown operation: 422", json={"operation": "archive"}, expect=422)
    run_task(rec, "review-queue", "run review-queue: adds approved pending entries to archive")
    rec.call("GET", f"{EL}/2/entries/", "archive: the approved entries added", expect=200)
    rec.call("GET", f"{A}/seen/", "seen entries", expect=200)
    rec.call("DELETE", f"{PL}/1/entries/batch", "batch delete pending entries 3 and 4", json={"ids": [3, 4]},
             expect=204)
    rec.call("GET", f"{PL}/1/entries/", "pending entries", expect=200)

    rec.section("Series and episodes")
    rec.call("PUT", f"{A}/series/2/", "The Bear: begin at S03E01", json={"begin_episode": "S03E01"}, expect=200)
    rec.call("GET", f"{A}/series/2/", "read it", expect=200)
    rec.call("GET", f"{A}/series/2/episodes/", "its episodes", expect=200)
    rec.call("POST", f"{A}/series/", "a series that exists: 409", json={"name": "Severance"}, expect=409)
    rec.call("POST", f"{A}/series/", "no name: 422", json={"begin_episode": "S01E01"}, expect=422)
    rec.call("DELETE", f"{A}/series/3/", "delete Slow Horses", expect=200)
    rec.call("GET", f"{A}/series/3/", "read it: 404", expect=404)
    rec.call("GET", f"{A}/series/", "series", params={"in_config": "all"}, expect=200)

    rec.section("Config: refused tasks")
    rec.call("POST", f"{A}/tasks/", "a task that already exists: 409",
             json={"name": "archive-1080p", "config": {"accept_all": True}}, expect=409)
    rec.call("POST", f"{A}/tasks/", "a task with an unknown plugin: 422",
             json={"name": "broken", "config": {"no_such_plugin": True}}, expect=422)
    rec.call("GET", f"{A}/tasks/", "tasks unchanged", expect=200)


SCENARIOS = [("build", scenario_build), ("probe-reads", scenario_probe_reads), ("probe-crud", scenario_probe_crud)]


def main() -> None:
    import readme

    spec = AppSpec(
        name="flexget", here=HERE, dist="FlexGet", app_port=APP_PORT, proxy_port=PROXY_PORT, command=command,
        scenarios=SCENARIOS, render_readme=readme.render, prepare=prepare, seed_live=seed_live,
        headers={"Authorization": f"Token {TOKEN}"}, ready_path=f"{A}/server/version/",
        stop_signal=signal.SIGTERM, settle=1.0,
    )
    record_app(spec)


if __name__ == "__main__":
    main()
