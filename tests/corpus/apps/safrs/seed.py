"""Seed a fresh tracker database (run with the app's own .venv Python, before the server starts).

Usage: .venv/bin/python seed.py DB_PATH

Creates the tables and, in this order (so the ids are the same before every capture), four
users, three projects and nine tasks. `record.py` and `readme.py` import the tables below.
"""

from __future__ import annotations

import sys

# user ids 1-4: (username, full_name, email, role)
USERS = [
    ("alice", "Alice Archer", "alice@example.test", "lead"),
    ("bob", "Bob Baker", "bob@example.test", "member"),
    ("carol", "Carol Chen", "carol@example.test", "member"),
    ("dan", "Dan Dorsey", "dan@example.test", "guest"),
]
# project ids 1-3: (code, name, status)
PROJECTS = [
    ("WEB", "Website relaunch", "active"),
    ("API", "Public API", "active"),
    ("OPS", "Operations", "archived"),
]
# task ids 1-9: (title, status, priority, estimate, project code, assignee username or None)
TASKS = [
    ("Design the landing page", "done", 2, 5, "WEB", "carol"),
    ("Write the copy for the pricing page", "doing", 3, 3, "WEB", "dan"),
    ("Fix the broken footer links", "todo", 1, 1, "WEB", "bob"),
    ("Add paging to the list endpoints", "doing", 1, 8, "API", "alice"),
    ("Document the error objects", "todo", 2, 2, "API", "carol"),
    ("Rate-limit anonymous clients", "todo", 1, 5, "API", None),
    ("Rotate the TLS certificates", "done", 1, 2, "OPS", "bob"),
    ("Move backups to the new bucket", "todo", 3, 3, "OPS", "alice"),
    ("Upgrade the database server", "doing", 2, 8, "OPS", "bob"),
]


def main(db_path: str) -> None:
    from app import Project, Task, User, db, make_app

    app = make_app(db_path, 0)
    with app.app_context():
        users = {}
        for username, full_name, email, role in USERS:
            users[username] = User(username=username, full_name=full_name, email=email, role=role)
        projects = {}
        for code, name, status in PROJECTS:
            projects[code] = Project(code=code, name=name, status=status)
        db.session.add_all(list(users.values()) + list(projects.values()))
        db.session.flush()
        for title, status, priority, estimate, code, assignee in TASKS:
            db.session.add(Task(title=title, status=status, priority=priority, estimate=estimate,
                                project=projects[code], assignee=users[assignee] if assignee else None))
            db.session.flush()
        db.session.commit()


if __name__ == "__main__":
    main(sys.argv[1])
