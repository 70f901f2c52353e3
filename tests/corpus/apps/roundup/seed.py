"""Seed a fresh Roundup classic tracker (run with the app's own .venv Python, before the server starts).

Usage: .venv/bin/python seed.py TRACKER_HOME

Creates, in this order (so the ids are the same before every capture): three keywords, three
users with the `User` role, six issues with their statuses, priorities, assignees and keywords,
and eight messages attached to them. The classic template's own rows come first: users
`admin` (1) and `anonymous` (2), priorities 1-5, statuses 1-8. `record.py` imports the tables
below for its README.
"""

from __future__ import annotations

import sys

KEYWORDS = ["ui", "backend", "docs"]  # keyword ids 1-3
USERS = [  # user ids 3-5: (username, realname, address, organisation)
    ("alice", "Alice Archer", "alice@example.test", "Core team"),
    ("bob", "Bob Baker", "bob@example.test", "Core team"),
    ("carol", "Carol Chen", "carol@example.test", "Docs guild"),
]
USER_PASSWORD = "corpus-user-pw-2026"
# issue ids 1-6: (title, status, priority, assignedto, keywords, [(author, message text)])
ISSUES = [
    ("Login page times out on slow networks", "in-progress", "urgent", "alice", ["ui"],
     [("bob", "The login form spins for 30 s on a 3G profile."),
      ("alice", "Reproduced; the session cookie request is retried three times.")]),
    ("Search ignores accented characters", "unread", "bug", "bob", ["backend"],
     [("carol", "Searching for 'café' finds nothing, 'cafe' finds the issue.")]),
    ("Document the REST API filters", "chatting", "feature", "carol", ["docs"],
     [("carol", "Cover @sort, @page_size and the exact-match suffix."),
      ("bob", "Also the transitive filters like assignedto.username.")]),
    ("Crash when exporting an empty query", "resolved", "critical", "bob", ["backend"],
     [("alice", "Traceback in the CSV exporter when a query matches nothing.")]),
    ("Dark mode for the issue list", "deferred", "wish", None, ["ui"],
     [("carol", "Would be nice to have; no plans yet.")]),
    ("Attachment upload fails over 10 MB", "testing", "urgent", "alice", ["backend", "ui"],
     [("bob", "Uploads over 10 MB answer 413 behind the proxy.")]),
]


def main(home: str) -> None:
    from roundup import instance, password

    tracker = instance.open(home)
    db = tracker.open("admin")
    try:
        for name in KEYWORDS:
            db.keyword.create(name=name)
        users = {}
        for username, realname, address, org in USERS:
            users[username] = db.user.create(
                username=username, realname=realname, address=address, organisation=org,
                roles="User", password=password.Password(USER_PASSWORD, config=db.config))
        for title, status, priority, assignee, keywords, messages in ISSUES:
            msg_ids = [db.msg.create(content=text, author=users[author])
                       for author, text in messages]
            props = dict(title=title, status=db.status.lookup(status), priority=db.priority.lookup(priority),
                         keyword=[db.keyword.lookup(k) for k in keywords], messages=msg_ids,
                         nosy=sorted({users[a] for a, _ in messages}))
            if assignee:
                props["assignedto"] = users[assignee]
            db.issue.create(**props)
        db.commit()
    finally:
        db.close()


if __name__ == "__main__":
    main(sys.argv[1])
