"""The captures' README for FlexGet (written by record.py after each recording)."""

from appdriver import CAPTURE_FILES
from harlib import producer_notes, render_steps, render_summary_table

import record as R


def seed_tables() -> str:
    rows = []
    n = 0
    for lid, (name, entries) in enumerate((("watchlist", R.WATCHLIST), ("archive", R.ARCHIVE)), 1):
        for e in entries:
            n += 1
            extra = ", ".join(f"{k}={v}" for k, v in e.items() if k not in ("title", "url", "original_url"))
            rows.append(f"| entry_list {lid} `{name}` | {n} | {e['title']} | {extra or '—'} |")
    for i, e in enumerate(R.PENDING, 1):
        rows.append(f"| pending_list 1 `to-review` | {i} | {e['title']} | approved={'true' if i == 1 else 'false'} |")
    m = 0
    for lid, (name, movies) in enumerate(R.MOVIE_LISTS.items(), 1):
        for title, year, imdb in movies:
            m += 1
            rows.append(f"| movie_list {lid} `{name}` | {m} | {title} ({year}) | imdb_id={imdb} |")
    for i, s in enumerate(R.SERIES, 1):
        extra = ", ".join(f"{k}={v}" for k, v in s.items() if k != "name")
        rows.append(f"| series | {i} | {s['name']} | {extra} |")
    return "| where | id | title | other fields |\n| --- | ---: | --- | --- |\n" + "\n".join(rows)


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    return f"""# FlexGet captures

Real HTTP traffic of the **FlexGet {ver}** daemon's REST API (Flask-RESTX under CherryPy) with its
SQLite database. Recorded on loopback by `record.sh` in this folder (it installs `flexget=={ver}`
from PyPI into `.venv`, prepares `run/fg/`, starts `flexget -c run/fg/config.yml daemon start`
fresh for each capture on 127.0.0.1:{R.APP_PORT}, seeds it, records through mitmdump on port
{R.PROXY_PORT}, stops both by PID with SIGTERM).

{CAPTURE_FILES}

{render_summary_table(summaries)}

## Seed (the same before every capture; not recorded)

1. `run/fg/` is emptied and `config.yml` of this folder copied into it: the web server on
   127.0.0.1:{R.APP_PORT} without the web UI, `schedules: no`, and two tasks:
   `archive-1080p` (input: entry list `watchlist`; accept titles matching `1080p`; add them to
   entry list `archive` and remove them from `watchlist`) and `review-queue` (input: approved
   entries of pending list `to-review`; accept all; add them to `archive`).
2. `flexget web passwd {R.PASSWORD}` creates the database and the web user `flexget`; the user's
   API token is then set to the fixed `{R.TOKEN}` in `db-config.sqlite` (FlexGet only generates
   random ones). Every recorded request sends `Authorization: Token {R.TOKEN}` (one probe sends
   none and gets 401).
3. After the daemon listens, these are created through the API without the proxy, in this order
   (so the ids are the same in every capture):

{seed_tables()}

Entries carry `title`, `url`, `original_url` (`http://example.test/<slug>.torrent`) and the other
fields listed. The variables document is left empty.

{render_steps(steps)}
## What each capture tests

- **build.har** — discover (version, tasks, variables); list reads with `name=` filter,
  `sort_by`/`order`, pages of `per_page=3` followed through the `Link: rel="next"` header, single
  entries (the entry's own fields nested in `entry`), pending, movie and series collections with
  their nested children; then the writes, each followed by reads: create an entry list (409 on a
  second try) and entries in it (generated ids; 409 on a duplicate title, 422 on a missing field),
  PUT an entry (answers 201), delete one (404 after), batch delete by ids in a DELETE body, approve
  a pending entry (`{{"operation": "approve"}}`) and reject two in a batch, add and remove a movie
  (identifier rows nested with their own ids), create, edit and delete a series, run a task through
  `POST /api/tasks/execute/` and read its effects (entries moved between lists, task status,
  `seen`, `history`), delete the entry list.
- **probe-reads.har** — sorts and orders the build never used (`added`, `original_url`), pages
  of 2 followed to the end (`prev`/`next`/`first`/`last` links), a page asked directly, other name
  filters (one matching nothing), other lists, movies, series pages of one, the default series view
  (only series in the config: empty), other ids, a conditional GET (`If-None-Match` → 304), and
  errors: missing list, entry, entry of another list, page past the end (404), bad `sort_by` and
  `per_page` (400), missing movie list, series and task (404), no token (401).
- **probe-crud.har** — a movie list created, filled, its identifiers replaced, batch-emptied and
  deleted (409 on a duplicate name, 422 on a missing `movie_name`); an entry added, refused (409,
  422, 404 for a missing list), updated, deleted, deleted again (404); pending entries approved in
  a batch, an unknown operation (422), the task that consumes approved entries run and its effects
  read, a batch delete; a series edited, refused (409, 422) and deleted; task creates refused
  (409 exists, 422 unknown plugin).

## API styles this app shows (corpus checklist)

| style | here |
| --- | --- |
| `next` links, Link headers, page numbers | yes: `page`/`per_page` with `Link: <…>; rel="next", rel="prev", rel="first", rel="last"` and `Total-Count` headers; a page past the end is 404 |
| sort and filter parameters | `sort_by` + `order` (enums; a bad value is 400), `name=` on lists, `in_config=configured/unconfigured/all` on series; unknown parameters are ignored (`approved=` on pending entries) |
| action routes, RPC bodies naming the targets | yes: `POST /api/tasks/execute/` `{{"tasks": [...]}}`; `PUT …/entries/<id>/` `{{"operation": "approve"|"reject"}}`; `PUT …/entries/batch` `{{"operation", "ids"}}`; `DELETE …/batch` with `{{"ids": [...]}}` in the body |
| generated ids nested in created objects | yes: created entries and movies answer their new `id`; a movie's `movies_list_ids` rows get ids of their own; a series' `begin_episode` gets an episode id |
| status field changed by an action | yes: pending entries' `approved` (approve/reject) |
| ETag | yes: GET answers carry `ETag` (with a `:zstd` suffix when compressed); `If-None-Match` → 304 |
| validation errors and conflicts | yes: 422 `{{"validation_errors": [...], "status_code": 422, "message": "validation error"}}`, 400 `{{"errors": {{param: msg}}, "message": "Input payload validation failed"}}`, 409 on duplicate names/titles |
| fused ids, operator query languages, keyset cursors, upserts, documents and folders, soft delete | no |

## What a faithful environment should do

**Envelopes.** Collections answer a bare JSON array; single items an object. Errors
`{{"status_code", "message", "status": "Error"}}` (404, 409), the two validation shapes above, 401
`{{"message": "The server could not verify…"}}`. Deletes of single items answer 200 `{{"message",
"status": "success", "status_code": 200}}`; batch deletes answer 204 with no body; approve/reject
answer 201 with the entry (batch: the list of changed entries); PUT of an entry answers 201.

**Paging.** Defaults `page=1`, `per_page=50`, `order=desc`; entry lists sort by `title` by default. `Total-Count` counts all items; the Link header lists `next`/`prev`
(when they exist), `first` and `last` (the URLs keep a stray `&&` before `page`).

**Tasks.** `POST /api/tasks/execute/` answers 200 `{{"tasks": [{{"id": <random>, "name"}}]}}` at once;
the run happens in the background (the recorder waited, unrecorded, until `/api/tasks/status/`
showed a new execution). `archive-1080p` moves the three 1080p entries of `watchlist` to `archive`
and records three `seen` entries and three `history` rows; `review-queue` adds approved pending
entries to `archive`.

**Not deterministic across captures.** Every `added_on`/`added`/`start`/`end` timestamp (the seed
is created through the API at recording time), task execution ids, ETags of answers that contain
timestamps, `Date`. Ids, titles and list contents are fixed.

## What the captures cannot show

- What a task does is decided by the configuration and the plugins (regexp on titles, list
  plugins); the capture shows only before and after. Task runs that download, notify or query
  external services cannot run here (no network).
- Editing tasks or variables through the API did not work reliably in daemon mode on this
  version: `PUT /api/variables/` answers 500 (the document is stored anyway), and after
  `POST /api/tasks/` the daemon reloads its config and restarts its web server, after which
  requests hung. Those writes are left out; only the refused task creates are recorded.
- Lookups against TVDB/TVMaze/Trakt/TMDB/IMDb (`/api/series/search/…`, `lookup=`) need the network.

## HAR producer notes

{producer_notes(summaries)}
- Answers are pretty-printed JSON; the client advertised `zstd`, so many answers came compressed
  (the HAR holds the decoded text) and their ETags carry `:zstd`.
"""
