"""Record HAR captures of a real json-server 1.0 beta (a helpdesk db.json).

Run through record.sh (it installs the app and the recorder venv). For each
scenario this script writes the same seed db.json into run/ (not recorded),
starts json-server on it, starts mitmdump as a loopback proxy writing the HAR,
runs the scenario through the proxy, stops the proxy (the HAR is written) and
the server, both by PID. Then it validates the HARs and writes README.md.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "kit"))

from appdriver import AppSpec, npm_version, record_app  # noqa: E402
from harlib import Recorder  # noqa: E402

APP_PORT = 18822
PROXY_PORT = 18922
BASE = f"http://127.0.0.1:{APP_PORT}"
JSON_HEADERS = {"Accept": "application/json"}

# ---------------------------------------------------------------- the seed
CUSTOMERS = [
    {"id": "c1", "name": "Acme Tools", "plan": "enterprise", "country": "DE", "seats": 120},
    {"id": "c2", "name": "Birch Bakery", "plan": "starter", "country": "FR", "seats": 4},
    {"id": "c3", "name": "Cobalt Labs", "plan": "pro", "country": "US", "seats": 35},
    {"id": "c4", "name": "Dune Surf Co", "plan": "starter", "country": "PT", "seats": 2},
]
AGENTS = [
    {"id": "a1", "name": "Mia", "team": "billing", "active": True},
    {"id": "a2", "name": "Noah", "team": "tech", "active": True},
    {"id": "a3", "name": "Oli", "team": "tech", "active": False},
]


def ticket(tid, subject, customer, agent, status, priority, hours, breached, opened, tags):
    return {"id": tid, "subject": subject, "customerId": customer, "agentId": agent, "status": status,
            "priority": priority, "sla": {"hours": hours, "breached": breached}, "opened": opened,
            "tags": tags}


TICKETS = [
    ticket("101", "Invoice shows wrong VAT", "c1", "a1", "open", 3, 24, False, "2026-11-02", ["billing"]),
    ticket("102", "Cannot reset password", "c2", "a2", "open", 4, 8, True, "2026-11-03", ["login"]),
    ticket("103", "API returns 500 on export", "c3", "a2", "pending", 5, 4, True, "2026-11-04", ["api", "bug"]),
    ticket("104", "Add second admin seat", "c1", "a1", "closed", 1, 48, False, "2026-10-28", ["billing", "seats"]),
    ticket("105", "Webhook retries too fast", "c3", "a3", "open", 2, 24, False, "2026-11-05", ["api"]),
    ticket("106", "Cancel subscription", "c4", "a1", "pending", 2, 24, False, "2026-11-06", ["billing"]),
    ticket("107", "Dark mode contrast", "c2", None, "open", 1, 72, False, "2026-11-07", ["ui"]),
    ticket("108", "SSO login loop", "c1", "a2", "closed", 5, 4, False, "2026-10-30", ["login", "sso"]),
]
NOTES = [
    {"id": "n1", "ticketId": "101", "author": "a1", "body": "Asked for the invoice number.", "internal": False},
    {"id": "n2", "ticketId": "101", "author": "a1", "body": "VAT rule for DE looks stale.", "internal": True},
    {"id": "n3", "ticketId": "103", "author": "a2", "body": "Reproduced with a 2 GB export.", "internal": True},
    {"id": "n4", "ticketId": "105", "author": "a3", "body": "Backoff is linear, should be exponential.",
     "internal": True},
    {"id": "n5", "ticketId": "105", "author": "a2", "body": "Customer agreed to wait for 2.4.", "internal": False},
    {"id": "n6", "ticketId": "108", "author": "a2", "body": "Fixed by IdP metadata refresh.", "internal": False},
]
SETTINGS = {"businessHours": "08:00-18:00", "timezone": "Europe/Berlin", "autoCloseDays": 7}
SEED = {"customers": CUSTOMERS, "agents": AGENTS, "tickets": TICKETS, "notes": NOTES, "settings": SETTINGS}


def seed(run: Path) -> None:
    """The seed is the database file itself, rewritten before every start."""
    (run / "db.json").write_text(json.dumps(SEED, indent=2) + "\n")


# ---------------------------------------------------------------- scenarios
def scenario_build(rec: Recorder) -> None:
    rec.section("Read every collection, the singular settings, and entities by id")
    for coll in ("tickets", "customers", "agents", "notes"):
        rec.call("GET", f"/{coll}", f"list {coll}", expect=200)
    rec.call("GET", "/settings", "the singular settings object", expect=200)
    for tid in ("101", "102", "103"):
        rec.call("GET", f"/tickets/{tid}", f"ticket {tid}", expect=200)
    rec.call("GET", "/customers/c1", "customer c1", expect=200)
    rec.call("GET", "/agents/a2", "agent a2", expect=200)
    rec.call("GET", "/notes/n1", "note n1", expect=200)

    rec.section("Filters: equality, suffix operators (_gt, _lte, _ne), nested fields")
    rec.call("GET", "/tickets", "status=open", params={"status": "open"}, expect=200)
    rec.call("GET", "/tickets", "priority_gte=4", params={"priority_gte": "4"}, expect=200)
    rec.call("GET", "/tickets", "priority_lt=3", params={"priority_lt": "3"}, expect=200)
    rec.call("GET", "/tickets", "status_ne=closed", params={"status_ne": "closed"}, expect=200)
    rec.call("GET", "/tickets", "customerId=c1 (a foreign key)", params={"customerId": "c1"}, expect=200)
    rec.call("GET", "/tickets", "nested field sla.breached=true", params={"sla.breached": "true"}, expect=200)
    rec.call("GET", "/tickets", "nested field with operator sla.hours_lte=8", params={"sla.hours_lte": "8"},
             expect=200)
    rec.call("GET", "/customers", "plan=starter", params={"plan": "starter"}, expect=200)

    rec.section("Sort, slices and pages")
    rec.call("GET", "/tickets", "_sort=-priority (descending)", params={"_sort": "-priority"}, expect=200)
    rec.call("GET", "/tickets", "_sort=customerId,-opened (two keys)", params={"_sort": "customerId,-opened"},
             expect=200)
    rec.call("GET", "/tickets", "page 1 of 3 per page (answers first/prev/next/last/pages/items/data)",
             params={"_page": "1", "_per_page": "3"}, expect=200)
    r = rec.call("GET", "/tickets", "page 2, following `next`", params={"_page": "2", "_per_page": "3"},
                 expect=200)
    rec.call("GET", "/tickets", "page 3 (the last, `next` null)",
             params={"_page": str(r.json()["next"]), "_per_page": "3"}, expect=200)
    rec.call("GET", "/tickets", "filter + sort + page: status_ne=closed, _sort=opened, page 1 of 2",
             params={"status_ne": "closed", "_sort": "opened", "_page": "1", "_per_page": "2"}, expect=200)
    rec.call("GET", "/tickets", "slice _start=2&_end=5", params={"_start": "2", "_end": "5"}, expect=200)
    rec.call("GET", "/customers", "first two: _limit=2", params={"_limit": "2"}, expect=200)

    rec.section("Embeds: children (plural) and parent (singular)")
    rec.call("GET", "/tickets/101", "ticket 101 with its notes: _embed=notes", params={"_embed": "notes"},
             expect=200)
    rec.call("GET", "/tickets/102", "ticket 102 with its customer: _embed=customer", params={"_embed": "customer"},
             expect=200)
    rec.call("GET", "/customers/c3", "customer c3 with its tickets", params={"_embed": "tickets"}, expect=200)
    rec.call("GET", "/notes", "notes with their ticket", params={"_embed": "ticket"}, expect=200)

    rec.section("Create a ticket with every field; the server picks a short random string id")
    full = ticket(None, "Export to CSV drops umlauts", "c1", "a2", "open", 3, 24, False, "2026-11-10",
                  ["export", "i18n"])
    del full["id"]
    r = rec.call("POST", "/tickets", "create ticket (no id: generated)", json=full, expect=201)
    new_t = r.json()["id"]
    rec.call("GET", f"/tickets/{new_t}", "read it by the generated id", expect=200)
    rec.call("GET", "/tickets", "tickets of customer c1: the new one last", params={"customerId": "c1"},
             expect=200)
    r = rec.call("POST", "/tickets", "create a minimal ticket (subject and customer only)",
                 json={"subject": "Question about the roadmap", "customerId": "c2"}, expect=201)
    min_t = r.json()["id"]
    rec.call("GET", f"/tickets/{min_t}", "read the minimal ticket", expect=200)
    rec.call("GET", "/tickets", "all tickets: ten now", expect=200)

    rec.section("Create a child note of the new ticket (its id nested as ticketId)")
    r = rec.call("POST", "/notes", "note on the new ticket",
                 json={"ticketId": new_t, "author": "a2", "body": "Encoding is latin-1, should be UTF-8.",
                       "internal": True}, expect=201)
    rec.call("GET", f"/notes/{r.json()['id']}", "read the note", expect=200)
    rec.call("GET", f"/tickets/{new_t}", "the new ticket with its notes", params={"_embed": "notes"}, expect=200)

    rec.section("Update: PATCH merges, PUT replaces")
    rec.call("PATCH", "/tickets/102", "PATCH 102: status pending, agent a1",
             json={"status": "pending", "agentId": "a1"}, expect=200)
    rec.call("GET", "/tickets/102", "read 102 back", expect=200)
    rec.call("GET", "/tickets", "status=pending: 102 included", params={"status": "pending"}, expect=200)
    rec.call("PUT", f"/tickets/{min_t}", "PUT the minimal ticket: whole new body (no tags, no sla)",
             json={"subject": "Roadmap: public API v3", "customerId": "c2", "agentId": "a1", "status": "open",
                   "priority": 2, "opened": "2026-11-11"}, expect=200)
    rec.call("GET", f"/tickets/{min_t}", "read it back (only the PUT fields + id)", expect=200)
    rec.call("GET", "/tickets", "priority_lt=3 now includes it", params={"priority_lt": "3"}, expect=200)

    rec.section("Soft delete by status: archive a closed ticket")
    rec.call("PATCH", "/tickets/104", "PATCH 104 status archived", json={"status": "archived"}, expect=200)
    rec.call("GET", "/tickets/104", "104 still readable, status archived", expect=200)
    rec.call("GET", "/tickets", "status_ne=archived: 104 gone from this list", params={"status_ne": "archived"},
             expect=200)

    rec.section("Singular resource: PATCH and PUT /settings")
    rec.call("PATCH", "/settings", "PATCH settings autoCloseDays 14", json={"autoCloseDays": 14}, expect=200)
    rec.call("GET", "/settings", "read settings (PATCH nests the old object under `item`: a json-server bug)",
             expect=200)
    rec.call("PUT", "/settings", "PUT settings: the whole object",
             json={"businessHours": "09:00-17:00", "timezone": "Europe/Berlin", "autoCloseDays": 14}, expect=200)
    rec.call("GET", "/settings", "read settings back", expect=200)

    rec.section("Deletes: foreign keys nullified; _dependent removes children")
    rec.call("DELETE", "/customers/c4", "DELETE customer c4 (its ticket keeps customerId null)", expect=200)
    rec.call("GET", "/customers/c4", "read c4: 404", expect=404)
    rec.call("GET", "/customers", "customers: c4 gone", expect=200)
    rec.call("GET", "/tickets/106", "ticket 106 now has customerId null", expect=200)
    rec.call("DELETE", "/tickets/105", "DELETE ticket 105 with _dependent=notes", params={"_dependent": "notes"},
             expect=200)
    rec.call("GET", "/tickets/105", "read 105: 404", expect=404)
    rec.call("GET", "/notes", "notes: n4 and n5 (of 105) gone", expect=200)
    rec.call("GET", "/tickets", "tickets: 105 gone", expect=200)


def scenario_probe_reads(rec: Recorder) -> None:
    rec.section("Filters with other values, fields and operators")
    rec.call("GET", "/tickets", "status=pending", params={"status": "pending"}, expect=200)
    rec.call("GET", "/tickets", "status=closed", params={"status": "closed"}, expect=200)
    rec.call("GET", "/tickets", "agentId=a2", params={"agentId": "a2"}, expect=200)
    rec.call("GET", "/tickets", "priority_gt=3", params={"priority_gt": "3"}, expect=200)
    rec.call("GET", "/tickets", "priority_lte=2", params={"priority_lte": "2"}, expect=200)
    rec.call("GET", "/tickets", "customerId_ne=c1", params={"customerId_ne": "c1"}, expect=200)
    rec.call("GET", "/tickets", "sla.hours_gt=24", params={"sla.hours_gt": "24"}, expect=200)
    rec.call("GET", "/tickets", "sla.breached=false and status=open",
             params={"sla.breached": "false", "status": "open"}, expect=200)
    rec.call("GET", "/tickets", "status=resolved: nothing", params={"status": "resolved"}, expect=200)
    rec.call("GET", "/customers", "seats_gte=30", params={"seats_gte": "30"}, expect=200)
    rec.call("GET", "/agents", "active=false", params={"active": "false"}, expect=200)
    rec.call("GET", "/notes", "internal=true and ticketId=101", params={"internal": "true", "ticketId": "101"},
             expect=200)
    rec.call("GET", "/tickets", "priority_gt=high (not a number): no row matches",
             params={"priority_gt": "high"}, expect=200)

    rec.section("Other sorts, pages and slices")
    rec.call("GET", "/tickets", "_sort=opened", params={"_sort": "opened"}, expect=200)
    rec.call("GET", "/tickets", "_sort=-sla.hours,subject", params={"_sort": "-sla.hours,subject"}, expect=200)
    rec.call("GET", "/customers", "_sort=-seats", params={"_sort": "-seats"}, expect=200)
    rec.call("GET", "/tickets", "page 2 of 5 per page", params={"_page": "2", "_per_page": "5"}, expect=200)
    rec.call("GET", "/tickets", "page 4 of 2 per page (the last)", params={"_page": "4", "_per_page": "2"},
             expect=200)
    rec.call("GET", "/tickets", "page 9 of 3 per page: clamped to the last page",
             params={"_page": "9", "_per_page": "3"}, expect=200)
    rec.call("GET", "/notes", "page 1, default per page (10)", params={"_page": "1"}, expect=200)
    rec.call("GET", "/tickets", "status=open sorted -priority, page 1 of 2",
             params={"status": "open", "_sort": "-priority", "_page": "1", "_per_page": "2"}, expect=200)
    rec.call("GET", "/tickets", "_start=5&_limit=2", params={"_start": "5", "_limit": "2"}, expect=200)
    rec.call("GET", "/agents", "_start=1&_end=3", params={"_start": "1", "_end": "3"}, expect=200)

    rec.section("Ids and embeds the build never read")
    for path in ("/tickets/104", "/tickets/107", "/tickets/108", "/customers/c2", "/customers/c4", "/agents/a3",
                 "/notes/n6"):
        rec.call("GET", path, "by id", expect=200)
    rec.call("GET", "/tickets/105", "ticket 105 with notes and customer",
             params={"_embed": ["notes", "customer"]}, expect=200)
    rec.call("GET", "/customers/c1", "customer c1 with tickets", params={"_embed": "tickets"}, expect=200)
    rec.call("GET", "/tickets", "tickets with customers, status=pending",
             params={"_embed": "customer", "status": "pending"}, expect=200)
    rec.call("GET", "/notes/n3", "note with its ticket", params={"_embed": "ticket"}, expect=200)

    rec.section("Missing things")
    rec.call("GET", "/tickets/999", "missing ticket: 404", expect=404)
    rec.call("GET", "/customers/c9", "missing customer: 404", expect=404)
    rec.call("GET", "/tickets/c1", "a customer's id asked for as a ticket: 404", expect=404)
    rec.call("GET", "/invoices", "unknown collection: 404", expect=404)
    rec.call("GET", "/invoices/1", "unknown collection, by id: 404", expect=404)
    rec.call("GET", "/settings/1", "an id under the singular resource: 404", expect=404)


def scenario_probe_crud(rec: Recorder) -> None:
    rec.section("Create an agent, read it, list")
    r = rec.call("POST", "/agents", "create agent Pia (generated id)",
                 json={"name": "Pia", "team": "billing", "active": True}, expect=201)
    ag = r.json()["id"]
    rec.call("GET", f"/agents/{ag}", "read it", expect=200)
    rec.call("GET", "/agents", "agents: four", expect=200)
    rec.call("GET", "/agents", "team=billing: Mia and Pia", params={"team": "billing"}, expect=200)

    rec.section("Create with a client-chosen id, then assign a ticket to the new agent")
    rec.call("POST", "/customers", "create customer with id c5",
             json={"id": "c5", "name": "Elm Studio", "plan": "pro", "country": "NL", "seats": 12}, expect=201)
    rec.call("GET", "/customers/c5", "read c5", expect=200)
    rec.call("GET", "/customers", "plan=pro: c3 and c5", params={"plan": "pro"}, expect=200)
    rec.call("PATCH", "/tickets/107", "assign 107 to the new agent, priority 3",
             json={"agentId": ag, "priority": 3}, expect=200)
    rec.call("GET", "/tickets/107", "read 107", expect=200)
    rec.call("GET", "/tickets", "agentId=<new agent>", params={"agentId": ag}, expect=200)

    rec.section("Create a ticket for the new customer, a note on it, read with embeds")
    r = rec.call("POST", "/tickets", "ticket for c5",
                 json={"subject": "Onboarding call", "customerId": "c5", "agentId": ag, "status": "open",
                       "priority": 2, "sla": {"hours": 24, "breached": False}, "opened": "2026-11-12",
                       "tags": ["onboarding"]}, expect=201)
    tk = r.json()["id"]
    rec.call("GET", f"/tickets/{tk}", "read it", expect=200)
    r = rec.call("POST", "/notes", "note on it",
                 json={"ticketId": tk, "author": ag, "body": "Call booked for Monday.", "internal": False},
                 expect=201)
    note = r.json()["id"]
    rec.call("GET", "/customers/c5", "c5 with its tickets", params={"_embed": "tickets"}, expect=200)
    rec.call("GET", f"/tickets/{tk}", "the ticket with its notes", params={"_embed": "notes"}, expect=200)

    rec.section("Updates")
    rec.call("PUT", "/customers/c2", "PUT c2: plan pro, seats 9 (whole body)",
             json={"name": "Birch Bakery", "plan": "pro", "country": "FR", "seats": 9}, expect=200)
    rec.call("GET", "/customers/c2", "read c2", expect=200)
    rec.call("GET", "/customers", "_sort=-seats", params={"_sort": "-seats"}, expect=200)
    rec.call("PATCH", "/tickets/103", "PATCH nested sla object (replaced whole, not merged)",
             json={"sla": {"breached": False}}, expect=200)
    rec.call("GET", "/tickets/103", "read 103: sla has no hours now", expect=200)
    rec.call("PATCH", "/tickets/101", "close 101", json={"status": "closed"}, expect=200)
    rec.call("GET", "/tickets", "status=closed: 101, 104, 108", params={"status": "closed"}, expect=200)

    rec.section("Deletes and refusals")
    rec.call("DELETE", f"/notes/{note}", "delete the new note", expect=200)
    rec.call("GET", f"/notes/{note}", "read it: 404", expect=404)
    rec.call("GET", "/notes", "notes: six again", expect=200)
    rec.call("DELETE", "/agents/a3", "delete agent a3 (ticket 105's agentId becomes null)", expect=200)
    rec.call("GET", "/agents/a3", "read a3: 404", expect=404)
    rec.call("GET", "/tickets/105", "105: agentId null", expect=200)
    rec.call("DELETE", "/tickets/101", "delete 101 with _dependent=notes", params={"_dependent": "notes"},
             expect=200)
    rec.call("GET", "/tickets/101", "read 101: 404", expect=404)
    rec.call("GET", "/notes", "notes: n1, n2 gone", expect=200)
    rec.call("DELETE", "/tickets/101", "delete 101 again: 404", expect=404)
    rec.call("PATCH", "/tickets/999", "PATCH a missing ticket: 404", json={"status": "open"}, expect=404)
    rec.call("PUT", "/agents/zz", "PUT a missing agent (no upsert): 404", json={"name": "Zed"}, expect=404)
    rec.call("POST", "/invoices", "POST to an unknown collection: 404", json={"total": 10}, expect=404)
    rec.call("POST", "/tickets", "POST malformed JSON (a trailing comma): 500 from the body parser",
             content=b'{"subject": "Printer on fire",}', headers={"Content-Type": "application/json"},
             expect=500)
    rec.call("GET", "/tickets", "tickets after the refusals", expect=200)


SCENARIOS = [
    ("build", scenario_build),
    ("probe-reads", scenario_probe_reads),
    ("probe-crud", scenario_probe_crud),
]


def command(run: Path) -> list:
    return ["node", HERE / "node_modules" / "json-server" / "lib" / "bin.js", "db.json",
            "--host", "127.0.0.1", "--port", str(APP_PORT)]


def main() -> None:
    import readme  # the prose of README.md, next to this file

    record_app(AppSpec(name="json-server-v1", here=HERE, dist="", app_port=APP_PORT, proxy_port=PROXY_PORT,
                       command=command, scenarios=SCENARIOS, render_readme=readme.render, prepare=seed,
                       headers=JSON_HEADERS, version=lambda: npm_version(HERE, "json-server")))


if __name__ == "__main__":
    main()
