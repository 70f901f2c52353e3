"""README.md of the PouchDB Server captures (written by record.py after each recording)."""

from appdriver import CAPTURE_FILES
from harlib import producer_notes, render_steps, render_summary_table

import record as R


def _rows(docs, cols) -> str:
    return "\n".join("| `" + did + "` | " + " | ".join(
        ", ".join(v) if isinstance(v := d.get(c, "—"), list) else str(v) for c in cols) + " |"
        for did, d in docs)


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    book_cols = ["title", "author", "year", "genre", "pages", "status", "tags"]
    return f"""# PouchDB Server captures

Real HTTP traffic of **PouchDB Server {ver}** (npm `pouchdb-server`, express-pouchdb: the CouchDB
HTTP API over PouchDB), run with `--in-memory` on Node 20, recorded on loopback by `record.sh` in
this folder (`npm ci --ignore-scripts` of the committed `package-lock.json`, then `record.py`, which
seeds, records through the kit's mitmdump proxy, and stops what it started by PID). A fixed
`run/config.json` pins the server `uuid` to `{R.SERVER_UUID}`. Every request sends
`Accept: application/json` (without it PouchDB Server labels JSON answers `text/plain`).

{CAPTURE_FILES}

{render_summary_table(summaries)}

## Seed (the same before every capture; not recorded)

Each capture starts a fresh in-memory server and seeds it directly, without the proxy:

1. `PUT /library`, `PUT /members` (two databases).
2. `PUT /library/_design/catalog`: a `validate_doc_update` function (a document with
   `type: "book"` needs a non-empty string `title`, a numeric `year` and `status` one of
   `available`/`on-loan`/`withdrawn`, else **403** `forbidden`) and three views: `by_author`
   (key `author`, value `title`), `by_year` (key `year`, value `title`), `by_genre` (key `genre`,
   value 1, reduce `_count`).
3. Two Mango indexes: `POST /library/_index` on `["year"]` (ddoc `idx-by-year`) and on `["title"]`
   (ddoc `idx-by-title`).
4. Documents by `PUT` at fixed ids whose type is fused into the id (`author:…`, `book:…`,
   `member:…`), each with a `type` field:

| author id | name | born | country |
| --- | --- | --- | --- |
{_rows(R.AUTHORS, ["name", "born", "country"])}

| book id | {" | ".join(book_cols)} |
| --- | {" | ".join("---" for _ in book_cols)} |
{_rows(R.BOOKS, book_cols)}

5. Attachment `cover.txt` (text/plain, `{R.COVER_TEXT.strip()}`) on `book:earthsea`.
6. In `members`:

| member id | name | email | joined | active |
| --- | --- | --- | --- | --- |
{_rows(R.MEMBERS, ["name", "email", "joined", "active"])}

Revisions (`_rev`, `N-<md5>`) are content hashes in PouchDB 7, so the seeded revisions are the
same in every capture; so are the update sequence numbers (`update_seq`, `seq`, `last_seq`).

{render_steps(steps)}
## What each capture tests

- **build.har** — discovery (`/`, `/_all_dbs`, database info); `_all_docs` lists with id ranges
  (`startkey`/`endkey` as JSON strings, `"book:"`…`"book:\\ufff0"` selects one type), `limit`/`skip`
  pages, `descending`, `include_docs`; entity reads of every type; Mango `_find` with `$gt` and `$in`
  operators, `fields`, `sort`, `limit`/`skip` pages; three views (`key`, numeric
  `startkey`/`endkey`, `group=true` reduce); the `_changes` feed paged by its `last_seq` cursor. Then
  every write kind, each followed by reads of the entity and of a list it appears in: create at a
  chosen id (`PUT`), create with a generated id (`POST /library`; the id is only in the answer),
  full-document update with `_rev`, soft delete by `status: "withdrawn"`, an attachment
  (`PUT /library/book:kindred/blurb.txt?rev=`), `_bulk_docs` in `members` (two creates whose
  generated ids appear only inside the array answer, plus one update), `DELETE ?rev=` (404 after),
  a new database `loans` with a document, and the `_changes` feed since the sequence before the
  writes (shows `deleted: true`).
- **probe-reads.har** — `_all_docs` with other `startkey`, a single `key`, other `skip`/`limit`,
  `descending` from a key, `inclusive_end=false`, `keys` in a POST body (one missing: an
  `error: "not_found"` row); documents never read in the build (incl. `revs_info=true`, the design
  document); `If-None-Match` with the ETag → **304**; `_find` with `$lt`, `$gte`, `$regex`, `$or`,
  `$ne`, `$all`, `$nin`, on other fields and in the other database, another sort/page; views with
  other keys, ranges, `descending`, a full reduce (one row) and `reduce=false&include_docs=true`;
  `_changes` from another cursor; errors: missing document / attachment / database / view
  (**404** `not_found` with reason `missing`, `no_db_file` or `ddoc _design/catalog has no view named by_color`), an unknown
  Mango operator and a sort on an unindexed field (**400** `bad_request`).
- **probe-crud.har** — create at a chosen id → get → list; the same id again without `_rev` →
  **409** conflict (unchanged after); create with a generated id → get → `_find`; refusals by the
  validation function (**403** `forbidden`, nothing written) and a reserved `_field`
  (`doc_validation`, which PouchDB answers with **500**); update with the current `_rev` → get; the
  same update with the old `_rev` → **409**; `DELETE ?rev=` → get 404 (and its attachment 404) →
  list; delete with the old rev → **409**; `DELETE` with no rev at all **succeeds** in PouchDB
  Server (CouchDB would answer 409) → get 404 → view; `PUT` over a tombstone without `_rev`
  re-creates the document (rev `3-…`); `_bulk_docs` with one create and one stale update (one `ok`
  row with a generated id, one `conflict` row; the other document unchanged); add / read / delete
  an attachment; create a database, create it again (**412** `file_exists`), write to it, list,
  delete it (404 after), `_all_dbs` before and after.

## API styles this app shows

- **Ids fused with a prefix in one segment**: `book:dune`, `author:lem`, `member:0003`; and an
  attachment file name with a suffix under a document (`/library/book:earthsea/cover.txt`).
- **Action routes / RPC bodies**: `POST /{{db}}/_find` (a query in the body), `POST /{{db}}/_bulk_docs`
  (the body names the targets: `_id`/`_rev` per row), `POST /{{db}}/_all_docs` with `keys`;
  underscore verb segments (`_find`, `_bulk_docs`, `_changes`, `_index`, `_all_dbs`).
- **Operator query language in a POST body** (prefix form: `{{"year": {{"$gt": 1970}}}}`, `$in`, `$lt`,
  `$gte`, `$regex`, `$or`, `$ne`, `$all`, `$nin`); view queries with JSON-valued query parameters
  (`key="author:le-guin"`, `startkey=1960`).
- **Keyset cursors**: `_all_docs`/views by `startkey` (+ `limit`), the `_changes` feed by
  `since=<last_seq>`.
- **Upserts**: `PUT /{{db}}/{{id}}` creates or (with `_rev`) replaces; `PUT` over a deleted id
  re-creates it.
- **Documents and folders**: databases are folders of JSON documents (created and deleted with
  `PUT`/`DELETE /{{db}}`); attachments are files inside a document.
- **Revision concurrency**: every write must name the current `_rev` (in the body, or `?rev=` for
  `DELETE` and attachments); a stale one is **409** `conflict`. (Responses carry Express's weak
  `ETag` of the body, which `If-None-Match` honours with 304; PouchDB Server does **not** honour
  `If-Match` on writes.)
- **Generated ids nested in created objects**: `POST /{{db}}` answers `{{"ok", "id", "rev"}}`;
  `_bulk_docs` answers an array of such rows.
- **Soft delete by a status field** (`status: "withdrawn"`), next to CouchDB's own tombstones
  (`DELETE` leaves a `deleted: true` entry in `_changes`).
- **Validation errors**: 403 `forbidden` from `validate_doc_update`, 400 `bad_request` from Mango,
  500 `doc_validation` for reserved fields, 409 conflicts, 412 `file_exists`.

## What the captures cannot show

- **Generated ids** (`POST /{{db}}`, `_bulk_docs` without `_id`) are random UUIDs, different in every
  capture; revisions of documents that contain them differ too, and so does their place in
  lists ordered by id (`_all_docs`, `_find` without `sort`): a UUID can sort before or after
  `book:…`. Everything else in the bodies
  (seeded revisions, sequence numbers) is the same from run to run; `Date` headers and the
  `instance_start_time` of database info are not.
- **How revisions are computed** (an MD5 over the document and its previous revision) is not
  visible; an environment can only carry the recorded `_rev` values and must invent new ones for
  writes the capture never saw.
- **View and validation code runs on the server**: the map functions, `_count` reduce and the
  validation rule are in the design document (read in `probe-reads.har` only), never executed in
  the capture; a view's rows after a write are only known where a view read followed the write.
- **Mango's sort needs an index**: which fields are indexed is shown only by `GET /library/_index`;
  sorting on an unindexed field is a 400.
- The `_changes` feed is shown only in its default `normal` mode (no `longpoll`/`continuous`
  streaming); replication endpoints (`_revs_diff`, `_bulk_get`, `_local/…`) are not recorded.
- `DELETE` without `?rev=` succeeding and `doc_validation` answering 500 are PouchDB Server
  behaviours that differ from Apache CouchDB.

## HAR producer notes

{producer_notes(summaries)}
- Every URL is `http://127.0.0.1:{R.APP_PORT}/…`; the answer of `GET /` contains the fixed `uuid`.
"""
