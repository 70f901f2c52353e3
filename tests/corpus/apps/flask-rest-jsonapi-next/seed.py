"""Seed a fresh tracker database (run with the app's own .venv Python, before the server starts).

Usage: .venv/bin/python seed.py DB_PATH

Creates the tables (SQLAlchemy's `create_all` on app.py's models) and, in this order (so the ids
are the same before every capture), four projects, four people and twelve tasks. `record.py` and
`readme.py` import the tables below.
"""

from __future__ import annotations

import sys

# project ids 1-4: (name, code, budget)
PROJECTS = [
    ("Harbour Bridge", "HRB", 120),
    ("Orchard App", "ORC", 80),
    ("Lighthouse", "LHT", 45),
    ("Quarry Survey", "QRY", 60),
]
# person ids 1-4: (name, role, email)
PEOPLE = [
    ("Amara Osei", "engineer", "amara@example.test"),
    ("Bruno Keller", "designer", "bruno@example.test"),
    ("Chen Wei", "engineer", "chen@example.test"),
    ("Dana Ruiz", "manager", "dana@example.test"),
]
# task ids 1-12: (title, status, priority, estimate, project index 1-4 or None, assignee index 1-4 or None)
TASKS = [
    ("Survey the pylons", "done", 1, 5, 1, 1),
    ("Order the steel", "doing", 1, 3, 1, 4),
    ("Paint the railings", "todo", 3, 8, 1, None),
    ("Sketch the login screen", "done", 2, 2, 2, 2),
    ("Build the sync service", "doing", 1, 13, 2, 3),
    ("Write release notes", "todo", 3, 1, 2, 4),
    ("Replace the lamp", "todo", 2, 3, 3, 1),
    ("Log the ship sightings", "doing", 3, 2, 3, 3),
    ("Map the north face", "todo", 2, 8, 4, 1),
    ("Drill test cores", "todo", 1, 5, 4, None),
    ("Plan the budget review", "done", 2, 2, None, 4),
    ("Draw the site logo", "doing", 3, 1, None, 2),
]


def main() -> None:
    from sqlalchemy import create_engine
    from sqlalchemy.orm import Session

    import app as A

    engine = create_engine(f"sqlite:///{sys.argv[1]}")
    A.Base.metadata.create_all(engine)
    with Session(engine) as s:
        for name, code, budget in PROJECTS:
            s.add(A.Project(name=name, code=code, budget=budget))
            s.flush()
        for name, role, email in PEOPLE:
            s.add(A.Person(name=name, role=role, email=email))
            s.flush()
        for title, status, priority, estimate, project, assignee in TASKS:
            s.add(A.Task(title=title, status=status, priority=priority, estimate=estimate,
                         project_id=project, assignee_id=assignee))
            s.flush()
        s.commit()


if __name__ == "__main__":
    main()
