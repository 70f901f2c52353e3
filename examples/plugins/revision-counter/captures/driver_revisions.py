"""A scenario for rea's revision-counter example: updates of seeded tiddlers only.

TiddlyWiki's server keeps a per-title `revision` that every PUT adds one to, whatever the body
sent. Each update here reads the tiddler, PUTs it back whole with new text (tags sent as the
string the server answered, which it stores as sent), reads it back by title and lists. Written to
$OUT (default: ./revisions.har).
"""
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import driver  # noqa: E402
from driver import Client, Recorder, listing, pause, put_json, tiddler, tw_now  # noqa: E402


def update(c: Client, title: str, text: str) -> None:
    cur = c("GET", tiddler(title), note="read before edit").json()
    body = {k: v for k, v in cur.items() if k not in ("revision", "bag")}
    body["text"] = text
    body["modified"] = tw_now()
    body["modifier"] = "alice"
    put_json(c, title, body, note="update: new text, the whole tiddler")
    c("GET", tiddler(title), note="read back")
    c("GET", listing(), note="list")


def revisions(c: Client) -> None:
    c("GET", "/status", note="server status")
    c("GET", listing(), note="list")
    for title in driver.SEEDED:
        c("GET", tiddler(title), note="seeded item")
    update(c, "Bob Marley", "Owns the quarterly numbers. Prefers calls.")
    pause(1.1)
    update(c, "Alice Liddell", "Team lead. Prefers email; out on Fridays.")
    pause(1.1)
    update(c, "Bob Marley", "Owns the quarterly numbers and the budget.")


def main() -> None:
    out = Path(os.environ.get("OUT", "revisions.har")).resolve()
    app, port = driver.start_app()
    try:
        rec = Recorder(port, out, driver.RUN / "mitmdump.log")
        c = Client(rec.base, headers={"User-Agent": "har-kit-driver/1.0"})
        try:
            revisions(c)
        finally:
            c.close()
            rec.stop()
    finally:
        app.stop()


if __name__ == "__main__":
    main()
