"""Seed a fresh library database (run with the app's own .venv Python, before the server starts).

Usage: .venv/bin/python seed.py DB_PATH

Creates the tables (Django's schema editor; the one-file app has no migrations) and, in this order
(so the ids are the same before every capture), four authors, three members and ten books.
`record.py` and `readme.py` import the tables below.
"""

from __future__ import annotations

import sys

# author ids 1-4: (name, country, born)
AUTHORS = [
    ("Ursula K. Le Guin", "US", 1929),
    ("Stanislaw Lem", "PL", 1921),
    ("Octavia E. Butler", "US", 1947),
    ("Italo Calvino", "IT", 1923),
]
# member ids 1-3: (name, email)
MEMBERS = [
    ("Maya Lind", "maya@example.test"),
    ("Noor Haddad", "noor@example.test"),
    ("Oskar Berg", "oskar@example.test"),
]
# book ids 1-10: (title, isbn, status, pages, rating, author index 1-4, borrower index 1-3 or None)
BOOKS = [
    ("The Left Hand of Darkness", "978-0441478125", "loaned", 304, 5, 1, 1),
    ("The Dispossessed", "978-0061054884", "available", 387, 5, 1, None),
    ("A Wizard of Earthsea", "978-0547773742", "available", 183, 4, 1, None),
    ("Solaris", "978-0156027601", "loaned", 204, 4, 2, 2),
    ("The Cyberiad", "978-0156027595", "available", 295, 3, 2, None),
    ("His Master's Voice", "978-0810113916", "lost", 199, 3, 2, None),
    ("Kindred", "978-0807083697", "loaned", 264, 5, 3, 1),
    ("Parable of the Sower", "978-1538732182", "available", 345, 4, 3, None),
    ("Invisible Cities", "978-0156453806", "available", 165, 4, 4, None),
    ("If on a winter's night a traveler", "978-0156439619", "loaned", 260, 3, 4, 3),
]


def main(db_path: str) -> None:
    import app

    app.configure(db_path)
    from django.db import connection, transaction

    with connection.schema_editor() as editor:
        for model in (app.Author, app.Member, app.Book):
            editor.create_model(model)
    with transaction.atomic():
        authors = [app.Author.objects.create(name=n, country=c, born=b) for n, c, b in AUTHORS]
        members = [app.Member.objects.create(name=n, email=e) for n, e in MEMBERS]
        for title, isbn, status, pages, rating, author, borrower in BOOKS:
            app.Book.objects.create(title=title, isbn=isbn, status=status, pages=pages, rating=rating,
                                    author=authors[author - 1],
                                    borrower=members[borrower - 1] if borrower else None)


if __name__ == "__main__":
    main(sys.argv[1])
