"""The seed rows `app.py` creates at every start (explicit ids and clocks; not recorded).

`record.py` and `readme.py` import these tables too.
"""

from __future__ import annotations

import datetime as dt


def _at(day: int, hour: int) -> dt.datetime:
    return dt.datetime(2026, 11, day, hour, 0, tzinfo=dt.timezone.utc)


AUTHORS = [
    {"id": 1, "name": "Ursula Vance", "country": "US", "born": 1929},
    {"id": 2, "name": "Tomas Berg", "country": "SE", "born": 1951},
    {"id": 3, "name": "Amara Okafor", "country": "NG", "born": 1977},
    {"id": 4, "name": "Hiro Tanaka", "country": "JP", "born": 1964},
    {"id": 5, "name": "Clara Mendes", "country": "PT", "born": 1988},
    {"id": 6, "name": "Ivo Petrov", "country": "BG", "born": 1940},
]

# (id, title, author, year, pages, genre, available, summary)
_BOOKS = [
    (1, "The Salt Road", 1, 1968, 312, "fantasy", True, "A caravan crosses the salt flats."),
    (2, "Winter Harbour", 2, 1983, 240, "crime", True, None),
    (3, "The Glass Orchard", 3, 2009, 388, "literary", False, "Three sisters and a failing orchard."),
    (4, "Night Ferry", 2, 1991, 276, "crime", True, "A body on the last ferry."),
    (5, "Paper Lanterns", 4, 1997, 198, "literary", True, None),
    (6, "The Iron Choir", 1, 1974, 421, "fantasy", True, "Bells that sing to the dead."),
    (7, "River of Clocks", 5, 2019, 265, "fantasy", False, "A city where time flows downstream."),
    (8, "Cold Accounts", 2, 2002, 301, "crime", True, None),
    (9, "The Quiet Atlas", 6, 1972, 150, "poetry", True, "Maps drawn in verse."),
    (10, "Harvest Moon Letters", 3, 2015, 344, "literary", True, "Letters from a drought year."),
    (11, "Tidewater", 5, 2022, 233, "literary", True, None),
    (12, "The Last Lighthouse", 4, 2005, 289, "fantasy", False, "A keeper who will not leave."),
    (13, "Stone Psalms", 6, 1966, 96, "poetry", True, None),
    (14, "The Falconer", 1, 1980, 356, "fantasy", True, "A hunter and her bird."),
]

BOOKS = [
    {"id": i, "title": title, "author_id": author, "year": year, "pages": pages, "genre": genre,
     "available": available, "summary": summary}
    for i, title, author, year, pages, genre, available, summary in _BOOKS
]

# (id, book, borrower, loaned_on, returned_on)
_LOANS = [
    (1, 1, "Nadia Roy", "2026-10-02", "2026-10-20"),
    (2, 3, "Owen Park", "2026-10-15", None),
    (3, 7, "Nadia Roy", "2026-11-01", None),
    (4, 2, "Pia Lund", "2026-11-03", "2026-11-17"),
    (5, 12, "Owen Park", "2026-11-10", None),
    (6, 5, "Sam Idris", "2026-11-12", "2026-11-26"),
    (7, 9, "Pia Lund", "2026-11-20", None),
    (8, 1, "Sam Idris", "2026-11-25", None),
]

LOANS = [
    {"id": i, "book_id": book, "borrower": who, "loaned_on": dt.date.fromisoformat(on),
     "returned_on": dt.date.fromisoformat(back) if back else None, "created_at": _at(int(on[-2:]) % 28 + 1, 10)}
    for i, book, who, on, back in _LOANS
]
