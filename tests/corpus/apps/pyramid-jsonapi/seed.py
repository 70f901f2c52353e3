"""The seed rows `app.py` creates at every start (explicit ids; not recorded).

`record.py` and `readme.py` import these tables too.
"""

from __future__ import annotations

PROJECTS = [
    {"id": 1, "code": "WEB", "name": "Website relaunch", "status": "active", "budget": 120},
    {"id": 2, "code": "API", "name": "Public API", "status": "active", "budget": 80},
    {"id": 3, "code": "OPS", "name": "Operations", "status": "archived", "budget": 45},
    {"id": 4, "code": "MOB", "name": "Mobile app", "status": "active", "budget": 60},
    {"id": 5, "code": "DAT", "name": "Data warehouse", "status": "paused", "budget": None},
    {"id": 6, "code": "SEC", "name": "Security review", "status": "active", "budget": 30},
]

PEOPLE = [
    {"id": 1, "name": "Alice Archer", "email": "alice@example.test", "role": "lead"},
    {"id": 2, "name": "Bob Baker", "email": "bob@example.test", "role": "engineer"},
    {"id": 3, "name": "Carol Chen", "email": "carol@example.test", "role": "designer"},
    {"id": 4, "name": "Dan Dorsey", "email": None, "role": "engineer"},
    {"id": 5, "name": "Eve Ekdahl", "email": "eve@example.test", "role": "manager"},
    {"id": 6, "name": "Femi Okafor", "email": "femi@example.test", "role": "engineer"},
    {"id": 7, "name": "Gus Ibarra", "email": "gus@example.test", "role": "analyst"},
]

# (id, title, status, priority, estimate, project id, assignee id or None)
_TASKS = [
    (1, "Design the landing page", "done", 2, 5, 1, 3),
    (2, "Write the pricing copy", "doing", 3, 3, 1, 5),
    (3, "Fix the footer links", "todo", 1, 1, 1, 2),
    (4, "Add paging to the list endpoints", "doing", 1, 8, 2, 1),
    (5, "Document the error objects", "todo", 2, 2, 2, 3),
    (6, "Rate-limit anonymous clients", "todo", 1, 5, 2, None),
    (7, "Rotate the TLS certificates", "done", 1, 2, 3, 2),
    (8, "Move backups to the new bucket", "todo", 3, 3, 3, 1),
    (9, "Upgrade the database server", "doing", 2, 8, 3, 6),
    (10, "Sketch the onboarding screens", "todo", 2, None, 4, 3),
    (11, "Set up push notifications", "doing", 1, 5, 4, 6),
    (12, "Publish the beta build", "todo", 3, 2, 4, None),
]

TASKS = [
    {"id": i, "title": title, "status": status, "priority": prio, "estimate": est,
     "project_id": project, "assignee_id": who}
    for i, title, status, prio, est, project, who in _TASKS
]
