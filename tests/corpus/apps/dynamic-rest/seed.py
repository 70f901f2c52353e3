"""The seed rows `app.py` creates at every start (explicit ids and clocks; not recorded).

`record.py` and `readme.py` import these tables too.
"""

from __future__ import annotations

import datetime as dt


def _at(day: int, hour: int) -> dt.datetime:
    return dt.datetime(2026, 11, day, hour, 0, tzinfo=dt.timezone.utc)


PEOPLE = [
    {"id": 1, "name": "Ada Okafor", "email": "ada@example.test", "role": "engineer"},
    {"id": 2, "name": "Bruno Keller", "email": "bruno@example.test", "role": "engineer"},
    {"id": 3, "name": "Chiara Neri", "email": "chiara@example.test", "role": "designer"},
    {"id": 4, "name": "Dmitri Volkov", "email": "dmitri@example.test", "role": "manager"},
    {"id": 5, "name": "Esme Laurent", "email": None, "role": "engineer"},
]

PROJECTS = [
    {"id": 1, "code": "OPS", "name": "Operations Console", "budget": 150, "active": True},
    {"id": 2, "code": "WEB", "name": "Web Storefront", "budget": 90, "active": True},
    {"id": 3, "code": "MOB", "name": "Mobile Wallet", "budget": 40, "active": False},
    {"id": 4, "code": "DAT", "name": "Data Lake", "budget": 70, "active": True},
]

# (id, title, status, priority, estimate, due, project, assignee)
_TASKS = [
    (1, "Rotate the API keys", "done", 1, 3, "2026-11-28", 1, 1),
    (2, "Upgrade the load balancer", "doing", 2, 8, "2026-12-04", 1, 4),
    (3, "Write the runbook", "todo", 3, None, None, 1, None),
    (4, "Redesign the cart page", "todo", 2, 13, "2026-12-10", 2, 3),
    (5, "Fix the checkout timeout", "doing", 1, 5, "2026-12-02", 2, 2),
    (6, "Translate the footer", "todo", 3, 2, "2026-12-20", 2, None),
    (7, "Ship the wallet beta", "done", 1, 21, "2026-11-25", 3, 5),
    (8, "Audit the push tokens", "todo", 2, None, None, 3, 1),
    (9, "Partition the event table", "doing", 2, 8, "2026-12-08", 4, 3),
    (10, "Load the billing export", "todo", 1, 5, "2026-12-06", 4, 4),
    (11, "Drop the staging bucket", "done", 3, 1, "2026-11-30", 4, 2),
    (12, "Patch the console login", "todo", 2, 3, "2026-12-15", 1, 5),
    (13, "Review the cart analytics", "done", 3, 2, "2026-11-27", 2, 1),
    (14, "Renew the wallet certificate", "todo", 1, 1, "2026-12-01", 3, None),
    (15, "Index the clickstream", "todo", 2, 13, "2026-12-18", 4, None),
]

TASKS = [
    {"id": i, "title": title, "status": status, "priority": prio, "estimate": est,
     "due": dt.date.fromisoformat(due) if due else None, "project_id": project, "assignee_id": who,
     "created_at": _at(1 + i, 9)}
    for i, title, status, prio, est, due, project, who in _TASKS
]
