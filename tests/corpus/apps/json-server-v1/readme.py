"""README.md of the json-server 1.0 beta captures (written by record.py after each recording)."""

import json

from appdriver import CAPTURE_FILES
from harlib import producer_notes, render_steps, render_summary_table

import record as R


def _table(items, cols) -> str:
    def cell(v):
        if isinstance(v, list):
            return ", ".join(v)
        if isinstance(v, dict):
            return ", ".join(f"{k} {str(x).lower() if isinstance(x, bool) else x}" for k, x in v.items())
        return "null" if v is None else str(v).lower() if isinstance(v, bool) else str(v)
    head = "| " + " | ".join(cols) + " |\n| " + " | ".join("---" for _ in cols) + " |\n"
    return head + "\n".join("| " + " | ".join(cell(it.get(c)) for c in cols) + " |" for it in items)


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    ticket_cols = ["id", "subject", "customerId", "agentId", "status", "priority", "sla", "opened", "tags"]
    return f"""# json-server 1.0 beta captures

Real HTTP traffic of **json-server {ver}** (npm `json-server`, the 1.0 rewrite on tinyhttp + lowdb,
not the 0.17 line of the shared captures), recorded on loopback by `record.sh` in this folder
(`npm ci` of the committed `package-lock.json`, then `record.py`, which writes the seed
`run/db.json`, starts `json-server db.json --host 127.0.0.1 --port {R.APP_PORT}`, records through
the kit's mitmdump proxy and stops what it started by PID). 1.0.0-beta.3 is the newest 1.0 beta
that runs on Node 20; later betas require Node >= 22.12 (and renamed the operators to
`field:gt=`, which this version does not know).

{CAPTURE_FILES}

{render_summary_table(summaries)}

## Seed (the same before every capture; not recorded)

`run/db.json` is rewritten from `record.py` before every start: a helpdesk with four collections
and one singular object. Ids are strings.

customers:

{_table(R.CUSTOMERS, ["id", "name", "plan", "country", "seats"])}

agents:

{_table(R.AGENTS, ["id", "name", "team", "active"])}

tickets (`customerId`/`agentId` are foreign keys by json-server's `<singular>Id` naming rule):

{_table(R.TICKETS, ticket_cols)}

notes (`ticketId` is the foreign key; `author` holds an agent id but is not one by naming):

{_table(R.NOTES, ["id", "ticketId", "author", "body", "internal"])}

settings (singular): `{json.dumps(R.SETTINGS)}`.

{render_steps(steps)}
## What each capture tests

- **build.har** — every list, the singular `settings`, entities by id; filters by equality
  (`status=open`, `customerId=c1`, a boolean nested field `sla.breached=true`), suffix operators
  (`priority_gte`, `priority_lt`, `status_ne`, nested `sla.hours_lte`); `_sort=-priority` and
  two-key `_sort=customerId,-opened`; `_page`/`_per_page` pages answering the envelope
  `{{first, prev, next, last, pages, items, data}}` (page 2 reached by following `next`), a filtered
  sorted page, `_start`/`_end` and `_limit` slices; `_embed` of children (`notes` on a ticket,
  `tickets` on a customer) and of a parent (`customer` on a ticket, `ticket` on notes). Writes:
  two creates (generated 4-hex ids, read back and listed), a child note whose `ticketId` is the
  generated id (read with `_embed=notes`), `PATCH` merge (read and filtered list), `PUT` replace
  (fields not sent are gone), soft delete by `status: "archived"` (still readable, gone from
  `status_ne=archived`), `PATCH`/`PUT /settings`, `DELETE` of a customer (its ticket's
  `customerId` becomes `null`) and of a ticket with `?_dependent=notes` (its notes are removed).
- **probe-reads.har** — other values and fields (`status=pending`, `agentId=a2`), every operator
  on new fields (`priority_gt`, `priority_lte`, `customerId_ne`, `sla.hours_gt`, `seats_gte`), a
  filter matching nothing (`[]`), a non-numeric operand (`priority_gt=high`: `[]`), other sorts
  (`-sla.hours,subject`), other pages (page size 5, 2; a page past the end is clamped to the last;
  default page size 10), `_start`/`_limit`; ids never read; two embeds at once; missing id /
  collection / sub-path → **404** with the text body `Not Found`.
- **probe-crud.har** — create → get → list / filtered list (generated id, then a client-chosen
  `id` `c5` is kept); a `PATCH` that points a ticket at the new agent; a ticket and a note for the
  new records (read through `_embed` both ways); `PUT` of a customer, `PATCH` of a nested object
  (replaced whole, not deep-merged); close → filtered list; `DELETE` note → 404 → list; `DELETE`
  agent (its tickets' `agentId` nulled); `DELETE ?_dependent=notes`; refusals: delete twice,
  `PATCH`/`PUT` of a missing id, `POST` to an unknown collection (all **404** `Not Found`) and
  malformed JSON (**500**, the parser's message as the body); nothing changes on a refusal.

## API styles this app shows

- **Operator query language, suffix form**: `field_gt`, `_gte`, `_lt`, `_lte`, `_ne`, also on dotted
  nested fields (`sla.hours_lte=8`); equality on nested fields (`sla.breached=true`).
- **Pages with next/prev/last numbers in the body**: `{{first, prev, next, last, pages, items, data}}`
  (no `Link` header, no total header); `_sort` with `-` for descending and several keys.
- **Generated ids nested in created objects**: `POST` answers the object with a fresh random id
  (4 hex digits); a client-sent `id` is kept.
- **Soft delete by a status field** (`status: "archived"`), next to hard deletes with cascading
  effects: foreign keys nulled in every other collection, `?_dependent=` removes children.
- **A singular document** (`/settings`, `PUT`/`PATCH` without an id).
- Not shown (the app has none): validation errors (every body is accepted), concurrency control,
  upserts (`PUT` of a missing id is 404), action routes.

## What the captures cannot show

- **Generated ids are random** (`crypto.randomBytes(2)`, e.g. `ef31`), different in every capture;
  everything else is the same from run to run.
- **PATCH /settings nests the old object** under `item` (`{{"item": {{…old…}}, "autoCloseDays": 14}}`):
  a bug of this beta (`{{ item, ...body }}` instead of `{{ ...item, ...body }}`) that the capture
  records faithfully; `PATCH /tickets/:id` merges correctly.
- **Cascades** are invisible in the write's answer: `DELETE` answers only the deleted item; that
  other collections had a foreign key nulled (or children removed with `_dependent`) is only seen
  in the later reads, and only for the records those reads return.
- **Operators compare numbers only**: `_gt`/`_lt`… parse the operand with `parseInt` and match only
  numeric fields; a non-numeric operand matches nothing. Equality compares by the stored value's
  type (`true`/`false` strings for booleans). A capture shows these outcomes, not the rule.
- **Errors carry no JSON**: 404 is `text/plain` `Not Found`; malformed JSON is a 500 with the
  parser's message and no `Content-Type`.

## HAR producer notes

{producer_notes(summaries)}
- Every URL is `http://127.0.0.1:{R.APP_PORT}/…`; bodies are pretty-printed JSON (2 spaces).
"""
