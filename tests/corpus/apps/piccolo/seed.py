"""The seed rows `app.py` creates at every start (explicit ids and clocks; not recorded).

`record.py` and `readme.py` import these tables too.
"""

from __future__ import annotations

import datetime as dt


def _at(day: int, hour: int) -> dt.datetime:
    return dt.datetime(2026, 11, day, hour, 0)


PEOPLE = [
    {"id": 1, "name": "Ines Duarte", "email": "ines@example.test", "role": "engineer"},
    {"id": 2, "name": "Kofi Mensah", "email": "kofi@example.test", "role": "engineer"},
    {"id": 3, "name": "Lena Brandt", "email": "lena@example.test", "role": "designer"},
    {"id": 4, "name": "Marco Rossi", "email": "marco@example.test", "role": "manager"},
    {"id": 5, "name": "Aiko Sato", "email": None, "role": "engineer"},
]

PROJECTS = [
    {"id": 1, "code": "HBW", "name": "Harbour Wall", "budget": 120, "active": True},
    {"id": 2, "code": "SGB", "name": "Signal Box", "budget": 80, "active": True},
    {"id": 3, "code": "FRR", "name": "Ferry Ramp", "budget": 45, "active": False},
    {"id": 4, "code": "GLS", "name": "Glasshouse", "budget": 60, "active": True},
]

# (id, title, status, priority, due, project, assignee)
_TASKS = [
    (1, "Survey the slipway", "done", 1, "2026-11-28", 1, 1),
    (2, "Order granite blocks", "doing", 2, "2026-12-04", 1, 4),
    (3, "Draft the tide report", "open", 3, None, 1, None),
    (4, "Paint the signal arms", "open", 2, "2026-12-10", 2, 3),
    (5, "Replace the lever frame", "doing", 1, "2026-12-02", 2, 2),
    (6, "Rewire the block bell", "open", 3, "2026-12-20", 2, None),
    (7, "Inspect the ramp hinges", "done", 1, "2026-11-25", 3, 5),
    (8, "Grease the winch", "open", 2, None, 3, 1),
    (9, "Glaze the east wall", "doing", 2, "2026-12-08", 4, 3),
    (10, "Fit the vents", "open", 1, "2026-12-06", 4, 4),
    (11, "Plant the seed beds", "done", 3, "2026-11-30", 4, 2),
    (12, "Check the wall mortar", "open", 2, "2026-12-15", 1, 5),
    (13, "Log the bell tests", "done", 3, "2026-11-27", 2, 1),
    (14, "Order ramp bolts", "open", 1, "2026-12-01", 3, None),
]

TASKS = [
    {"id": i, "title": title, "status": status, "priority": prio,
     "due": dt.date.fromisoformat(due) if due else None, "project": project, "assignee": who,
     "created_at": _at(1 + i, 9)}
    for i, title, status, prio, due, project, who in _TASKS
]
