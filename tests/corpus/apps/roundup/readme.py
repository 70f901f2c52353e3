"""The captures' README for Roundup (written by record.py after each recording)."""

from appdriver import CAPTURE_FILES
from harlib import producer_notes, render_steps, render_summary_table

import record as R
import seed as S

STATUSES = ["unread", "deferred", "chatting", "need-eg", "in-progress", "testing", "done-cbb", "resolved"]
PRIORITIES = ["critical", "urgent", "bug", "feature", "wish"]


def seed_tables() -> str:
    rows = ["| class | id | what | other properties |", "| --- | ---: | --- | --- |"]
    rows.append("| user | 1 | `admin` (role Admin; the recorder's user) | created by `initialise` |")
    rows.append("| user | 2 | `anonymous` (role Anonymous) | the classic template's |")
    for i, name in enumerate(STATUSES, 1):
        rows.append(f"| status | {i} | {name} | order={i} (the classic template's) |")
    for i, name in enumerate(PRIORITIES, 1):
        rows.append(f"| priority | {i} | {name} | order={i} (the classic template's) |")
    for i, name in enumerate(S.KEYWORDS, 1):
        rows.append(f"| keyword | {i} | {name} | — |")
    for i, (username, realname, address, org) in enumerate(S.USERS, 3):
        rows.append(f"| user | {i} | `{username}` ({realname}) | address={address}, organisation={org}, roles=User |")
    msg = 0
    for i, (title, status, priority, assignee, keywords, messages) in enumerate(S.ISSUES, 1):
        ids = []
        for _ in messages:
            msg += 1
            ids.append(str(msg))
        rows.append(f"| issue | {i} | {title} | status={status}, priority={priority}, "
                    f"assignedto={assignee or '—'}, keyword={','.join(keywords)}, messages={','.join(ids)}, "
                    f"nosy=the messages' authors |")
    return "\n".join(rows)


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    return f"""# Roundup captures

Real HTTP traffic of the **Roundup {ver}** issue tracker's REST API (`roundup-server`, the
`classic` template, SQLite backend). Recorded on loopback by `record.sh` in this folder (it
installs `roundup=={ver}` from PyPI into `.venv`, prepares `run/t/`, starts
`roundup-server -t none -n 127.0.0.1 -p {R.APP_PORT} {R.TRACKER}=run/t` fresh for each capture
(as `nobody` when run as root: the server refuses root), records through mitmdump on port
{R.PROXY_PORT}, stops both by PID with SIGTERM).

{CAPTURE_FILES}

{render_summary_table(summaries)}

## Seed (the same before every capture; not recorded)

1. `run/t/` is emptied; `roundup-admin install classic sqlite` writes a tracker with
   `tracker_web={R.WEB}`, a fixed `web_secret_key` (`{R.SECRET_KEY}`), `mail_debug=run/mail.log`
   (nosy mail goes to that file, never out), `mail_domain=example.test`;
   `roundup-admin initialise {R.ADMIN_PASSWORD}` creates the database and the `admin` user.
2. `seed.py` (the app's own Python, through `roundup.instance`) creates, in this order (so the
   ids are the same in every capture), as `admin`:

{seed_tables()}

Message texts are in `seed.py`; each message's author is the user named there. Every recorded
request sends HTTP basic auth as `admin` and the `Origin: {R.ORIGIN}`, `Referer: {R.WEB}` and
`X-Requested-With: rest` headers Roundup's CSRF checks ask of REST clients (`roundup/cgi/client.py`
`handle_csrf`).

{render_steps(steps)}
## What each capture tests

- **build.har** — discover (the REST root, the class list, statuses and keywords at
  `@verbose=2`, priorities and users with `@fields`); issue lists filtered by a link's name
  (`status=in-progress`), by two ids (`status=1,3`), by a substring (`title=page`), by an assignee
  and a multilink (`keyword=ui`), sorted (`@sort=-activity`, `@sort=priority,title`), pages of 2
  followed through `@links.next`; items (`@verbose=2`), property documents
  (`/issue/1/title`, `/issue/1/messages`), a message, a user, a status, a missing issue and class
  (404); then the writes, each followed by reads: create an issue (links by name) and a message,
  attach the message with `PATCH {{"@op": "add"}}`, `PUT` without `If-Match` and with a stale
  ETag (412), `PUT` with the current one, `PATCH` add and remove of keywords, `PUT` of the title
  document with its `@etag`, `PATCH` with the default `replace`, refusals (400 for an unknown
  status or property, 409 for a keyword name that exists), create a keyword, create and retire an
  issue (`DELETE` with `If-Match`; 412 without).
- **probe-reads.har** — filter values the build never used (`status=resolved`,
  `status=unread,deferred`, `title=export`, `assignedto=bob`, `assignedto=-1` for unassigned,
  `keyword=backend`, `priority=critical,urgent`, two filters at once, one matching nothing),
  sorts by `-id` and `status`, other `@fields`, `@verbose=2` on a list, a page asked directly,
  pages of 3 followed to the end, a page past the end; other issues, property documents of link
  and multilink properties (`status`, `priority`, `keyword`, an empty `assignedto`), a message, the
  message list, a user, a user filter, a priority and a keyword; errors: missing issue and message
  (404), an unknown property (400), a filter on an unknown property and a bad page size (400).
- **probe-crud.har** — an issue created with links given by id, read in filtered lists; `PATCH`
  replace of two properties, a stale-ETag `PATCH` (412), `PUT` of the priority document, `PATCH`
  add and remove of keywords, `DELETE` of the `assignedto` property, each read back and in lists
  (`status=chatting`, `keyword=docs`, `assignedto=-1`); seeded issues changed (`PUT` of status and
  assignee, a title document), a message created and attached, an issue retired and the lists
  read after; a `PUT` of a missing issue (409), a keyword created and its name refused again
  (409), a user created and read, an unknown assignee refused (400).

## API styles this app shows (corpus checklist)

| style | here |
| --- | --- |
| `next` links, Link headers, page numbers | `@page_size` + `@page_index` (from 1); a paged answer holds `@links` with `self`, `next` and `prev` lists of `{{rel, uri}}` (the `uri` repeats the query); `@total_size` in the body and `X-Count-Total` in the headers |
| sort and filter parameters | a property's own name filters (`status=in-progress`, several values joined by `,`, names or ids for links, `-1` for an empty link, a case-insensitive substring for strings, `name:` exact); `@sort=-activity,title` (`-`/`+` prefixes); `@fields=a,b` chooses the properties shown, `@verbose=2` adds the linked items' labels |
| action routes, RPC bodies naming the targets | `PATCH` with `@op` = `add`/`remove`/`replace` (default) in the body |
| generated ids nested in created objects | creates answer 201 `{{"data": {{"id", "link"}}}}` (string ids, one counter per class) |
| documents | each property is a document: `GET`/`PUT`/`DELETE`/`PATCH /data/<class>/<id>/<property>` (`{{"data": value}}` in a `PUT` body) |
| ETag | every item and property `GET` answers `ETag` and `@etag` in the body; `PUT`, `PATCH` and `DELETE` need `If-Match` (or `@etag` in the body) equal to the current one, else 412 |
| soft delete | `DELETE /data/<class>/<id>` retires the item: lists leave it out |
| validation errors and conflicts | 400 (unknown property, unknown link value), 409 (a key value that exists; a missing item on `PUT`), 404 (a missing item or class), 412 (ETag) |
| fused ids, operator query languages, keyset cursors, upserts | no |

## What a faithful environment should do

**Envelopes.** Every answer is `{{"data": …}}`; errors are `{{"error": {{"status", "msg"}}}}`. Lists
answer `{{"collection": [{{"id", "link", …fields}}], "@total_size"}}` ordered by id unless sorted;
an item `{{"id", "type", "link", "attributes": {{…}}, "@etag"}}` with links and multilinks as
`{{"id", "link"}}` objects (at `@verbose=2` also their label, `name` or `username`); a property
document `{{"id", "type", "link", "data", "@etag"}}`. A `PUT`/`PATCH` answers the changed properties
under `attribute` (ids as strings); a `DELETE` answers `{{"status": "ok"}}`. Links in answers are
absolute URLs of the tracker (`{R.WEB}rest/data/…`).

**Writes.** Link properties take a name or an id (`"priority": "urgent"` or `"2"`); a created
issue's unset properties are empty (`assignedto: null`, multilinks `[]`). Classic's detectors
add the message authors and the assignee to `nosy` and set `status`: an `unread`, `resolved` or
`done-cbb` issue that gets a message becomes `chatting`, and the write's answer names that status
among the changed properties. A retired item leaves every list.

**Not deterministic across captures.** Creation and activity dates (the seed is made at
recording time), message `date`s, every ETag (an HMAC over the item's properties, which include
those dates), `Date` headers. Ids, titles, links and list contents are fixed.

## What the captures cannot show

- ETags: the server computes an HMAC over the stored item, activity date included, with a secret
  key; an environment can hand out tokens of its own but not the application's.
- Mail: nosy messages go to `run/mail.log` (the mail gateway and outgoing mail are not recorded).
- The web UI, XML-RPC and file uploads (`/data/file` with multipart bodies) are not recorded.

## HAR producer notes

{producer_notes(summaries)}
- Answers are pretty-printed JSON (4-space indents); `roundup-server` is Python's `BaseHTTP`
  server speaking HTTP/1.1.
"""
