"""README.md of the Syncthing captures (written by record.py after each recording)."""

from appdriver import CAPTURE_FILES
from harlib import producer_notes, render_steps, render_summary_table

import record as R


def seed_tables() -> str:
    names = {d["deviceID"]: d["name"] for d in R.SEED_DEVICES}
    names["own"] = R.OWN_NAME
    rows = ["| what | id | seed fields |", "| --- | --- | --- |",
            f"| device (own) | `{R.OWN_FIXED}` | name={R.OWN_NAME}, addresses=[dynamic] |"]
    for d in R.SEED_DEVICES:
        more = ", ".join(f"{k}={v}" for k, v in d.items() if k not in ("deviceID",))
        rows.append(f"| device | `{d['deviceID']}` | {more} |")
    for f in R.SEED_FOLDERS:
        shared = ", ".join(names[d] for d in f["devices"])
        more = ", ".join(f"{k}={v}" for k, v in f.items() if k not in ("id", "devices"))
        rows.append(f"| folder | `{f['id']}` | {more}, devices=[{shared}] |")
    return "\n".join(rows)


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    return f"""# Syncthing captures

Real HTTP traffic of **Syncthing {ver}** (Debian bookworm's `syncthing` package) driven through its
REST config API (`/rest/config/...`) with a fixed API key (`X-API-Key: {R.API_KEY}`), recorded on
loopback by `record.sh` in this folder (`apt-get install -y syncthing` when `syncthing` is missing,
then `record.py`). For every capture `record.py` writes a fresh home under `run/home` with the
recording's certificate and a `config.xml` that sets the GUI address `127.0.0.1:{R.APP_PORT}`, the
API key, a sync listener on `tcp://127.0.0.1:{R.LISTEN_PORT}` only, and turns off global discovery,
local announcements, relays, NAT, usage reporting, crash reporting and upgrades, so nothing leaves
loopback. It starts `syncthing serve --home run/home --no-browser --no-restart --no-upgrade` with
`STNODEFAULTFOLDER=1` in `run/` (folder paths are relative, `folders/<id>`, so they land under
`run/folders/` and the recorded bodies hold no machine path), seeds devices and folders through the
API (not recorded), records the scenario through the kit's mitmdump proxy and stops both by PID.

{CAPTURE_FILES}

{render_summary_table(summaries)}

## The own device id

Syncthing's own device id is the hash of its certificate, which `syncthing generate` makes anew on
every recording (no key or certificate is committed). `record.py` draws certificates until the id
starts with `A`, so the own device sorts first in every device list (Syncthing sorts devices by id;
the seed's other ids start with later letters), and after recording replaces the id in the three
HARs and this README by the fixed valid id `{R.OWN_FIXED}` (the id of a throwaway certificate,
the same length, so no `Content-Length` changes). The same certificate serves the three captures
of one recording. The id also appears in every answer's `X-Syncthing-Id` header.

## Seed (the same before every capture; not recorded)

The own device comes from `config.xml`; the other devices are added by `POST /rest/config/devices`
and the folders by `POST /rest/config/folders`, in this order (Syncthing fills every field left
out from its defaults). Every device id is a valid Syncthing id (Luhn-checked base32) of a
throwaway certificate made once by `syncthing generate`; none is a real person's device.

{seed_tables()}

{render_steps(steps)}
## What each capture tests

- **build.har** — the whole configuration (`GET /rest/config`) and each part (`folders`,
  `devices`, `options`, `gui`, `ldap`, `defaults/folder`, `defaults/device`, `defaults/ignores`,
  `restart-required`); items, a missing folder and device (**404** text), a malformed device id
  (**400** text). Folders: creates by `POST` (every other field from the folder defaults), a
  replace by `PUT` of the whole object read first, an upsert by `PUT` of a new id, merges by
  `PATCH` (label, interval, paused, the whole device list, versioning), a delete (404 after, a
  `PATCH` of it 404). Devices: a create by `POST`, an upsert by `PUT`, a replace by `PUT`, merges
  by `PATCH` (also of the own device), a delete (the folders that shared with it show it gone).
  Options and GUI: merges by `PATCH` and replaces by `PUT`, `restart-required` after each. Folder
  and device defaults changed by `PATCH`, then a create naming only id, label and path shows them.
  Errors: a body that is no JSON, a field of the wrong type, a malformed device id (**400**), a
  folder without an id (**500**), the delete of a missing folder (**200**, nothing happens). Every
  write is followed by reads of the item, its list and often the whole configuration.
- **probe-reads.har** — after a restart from the seed: the lists and the whole configuration,
  items the build never read (`music`, `nas`), items the build changed or deleted (seed values
  again), ids only the build created (**404**), valid ids never configured (**404**), a folder id
  in another case (**404**), malformed and truncated device ids (**400**), options, GUI, LDAP,
  defaults, `restart-required`, repeated reads.
- **probe-crud.har** — a folder created, replaced by `PUT`, another merged by `PATCH` and
  deleted (404 after, a `PATCH` of it 404); a device created, merged, another replaced by `PUT`,
  one deleted (the folder that shared with it shows it gone); options, GUI and device defaults by
  `PATCH` (a create after shows the default); errors (a body that is no JSON, a wrong type, a
  malformed device id, **400**) and the whole configuration at the end.

## API styles this app shows

- **One document seen through many routes**: the whole configuration `GET /rest/config` holds
  every folder, device, the GUI, LDAP and option settings and the defaults; each part is also a
  route of its own (`/rest/config/folders`, `/rest/config/folders/<id>`, `/rest/config/options`,
  …), so every write shows in two or three views.
- **Client-chosen ids**: folders are named by the id the client sends; devices by their
  certificate-derived id (`XXXXXXX-…`, 8 groups of 7 base32 characters), validated (400 on a
  malformed one, 404 on a valid one not configured).
- **Upserts**: `PUT /rest/config/folders/<id>` and `/devices/<id>` create or replace; a `POST` of
  an existing id replaces it too. `PUT` replaces the whole object (fields left out take the
  defaults); `PATCH` merges the fields sent.
- **Defaults applied on create**: a new folder or device takes every field left out from
  `/rest/config/defaults/folder` or `/defaults/device`, which are themselves writable.
- **Singletons**: `options`, `gui`, `ldap`, `defaults/*` (`GET`, `PUT`, `PATCH`).
- **Cascading**: a device's delete removes it from the folders shared with it.
- **Writes answering nothing**: every write answers 200 with an empty body; only a later read
  shows its effect.
- **Errors as plain text**: 404 `No folder with given ID`, 400 with Go's JSON decoder message or
  the device id check, 500 for a folder without an id.
- Not shown: pagination, filters or sorts (the lists are whole and sorted by id), soft delete.

## What the captures cannot show

- **Runtime state** (`/rest/db/status`, `/rest/system/connections`, events) changes with time and
  scans; only the configuration routes are recorded.
- **Writes that would leave loopback**: a `PUT /rest/config/options` of a partial object resets
  the options left out to their defaults (global discovery, relays, NAT on); the recorder replaces
  the options only with the whole object it read, so they stay off.
- `Date` and `Expires` headers are the only clock values in the captures.

## HAR producer notes

{producer_notes(summaries)}
- Every URL is `http://127.0.0.1:{R.APP_PORT}/rest/config…`; every request sends `X-API-Key`;
  writes send JSON.
"""
