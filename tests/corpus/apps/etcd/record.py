"""Record HAR captures of a real etcd 3.4 (v2 keys API + v3 JSON gateway).

Run through record.sh (it installs Debian's etcd-server and the recorder venv).
For each scenario this script starts a fresh single-member etcd (an empty data
directory under run/, fixed member name and URLs, so cluster and member ids
are the same every time), seeds the same keys directly (not recorded), starts
mitmdump as a loopback proxy writing the HAR, runs the scenario through the
proxy, stops the proxy (the HAR is written) and etcd, both by PID. Then it
validates the HARs and writes README.md.
"""

from __future__ import annotations

import base64
import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "kit"))

import httpx  # noqa: E402

from appdriver import AppSpec, record_app  # noqa: E402
from harlib import Recorder  # noqa: E402

APP_PORT = 18823
PEER_PORT = 18824
PROXY_PORT = 18923
BASE = f"http://127.0.0.1:{APP_PORT}"
MEMBER = "corpus"

K = "/v2/keys"

# ---------------------------------------------------------------- the seed
V2_KEYS = [
    ("/config/billing/currency", "EUR"),
    ("/config/billing/tax_rate", "0.19"),
    ("/config/billing/invoice_prefix", "INV"),
    ("/config/web/theme", "light"),
    ("/config/web/max_upload_mb", "25"),
    ("/flags/new-checkout", "on"),
    ("/flags/dark-mode", "off"),
    ("/flags/beta-search", "off"),
    ("/services/api/node-1", json.dumps({"host": "10.0.0.11", "port": 8080})),
    ("/services/api/node-2", json.dumps({"host": "10.0.0.12", "port": 8080})),
    ("/services/worker/node-1", json.dumps({"host": "10.0.1.21", "queue": "default"})),
]
QUEUE_JOBS = ["send-welcome-mail:ana", "rebuild-search-index"]
V3_KEYS = [
    ("app/env", "prod"),
    ("app/version", "2.4.1"),
    ("app/replicas", "3"),
    ("app/owner", "platform-team"),
    ("db/primary", "10.0.2.10:5432"),
    ("db/replica", "10.0.2.11:5432"),
]


def b64(s: str) -> str:
    return base64.b64encode(s.encode()).decode()


def prefix_end(prefix: str) -> str:
    """etcd's range_end for 'every key with this prefix': the prefix with its last byte + 1."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


def seed() -> None:
    """Seed directly (no proxy): v2 keys in three directories, an in-order queue, v3 keys."""
    with httpx.Client(base_url=BASE, timeout=30, trust_env=False) as c:
        for key, value in V2_KEYS:
            c.put(f"{K}{key}", data={"value": value}).raise_for_status()
        for job in QUEUE_JOBS:
            c.post(f"{K}/queue", data={"value": job}).raise_for_status()
        for key, value in V3_KEYS:
            c.post("/v3/kv/put", json={"key": b64(key), "value": b64(value)}).raise_for_status()


# ---------------------------------------------------------------- helpers
def v3(rec: Recorder, route: str, why: str, body: dict, expect=200) -> httpx.Response:
    return rec.call("POST", f"/v3/{route}", why, json=body, expect=expect)


def v3_range(key: str, **more) -> dict:
    return {"key": b64(key), **more}


def v3_prefix(prefix: str, **more) -> dict:
    return {"key": b64(prefix), "range_end": b64(prefix_end(prefix)), **more}


def node_of(r: httpx.Response) -> dict:
    return r.json()["node"]


# ---------------------------------------------------------------- scenarios
def scenario_build(rec: Recorder) -> None:
    rec.section("Discover")
    rec.call("GET", "/version", "server and cluster versions", expect=200)
    rec.call("GET", "/health", "health", expect=200)
    rec.call("GET", "/v2/members", "cluster members (v2)", expect=200)

    rec.section("v2 keys: directories (folders) and keys (documents)")
    rec.call("GET", f"{K}/", "the root directory: top-level directories", params={"sorted": "true"}, expect=200)
    rec.call("GET", f"{K}/config", "directory config (one level), sorted", params={"sorted": "true"}, expect=200)
    rec.call("GET", f"{K}/config", "directory config, recursive and sorted",
             params={"recursive": "true", "sorted": "true"}, expect=200)
    rec.call("GET", f"{K}/config/billing", "directory config/billing, sorted", params={"sorted": "true"},
             expect=200)
    rec.call("GET", f"{K}/config/billing/currency", "key config/billing/currency", expect=200)
    rec.call("GET", f"{K}/config/billing/tax_rate", "key config/billing/tax_rate", expect=200)
    rec.call("GET", f"{K}/flags", "directory flags, sorted", params={"sorted": "true"}, expect=200)
    rec.call("GET", f"{K}/flags/new-checkout", "flag new-checkout", expect=200)
    rec.call("GET", f"{K}/services", "directory services, recursive",
             params={"recursive": "true", "sorted": "true"}, expect=200)
    rec.call("GET", f"{K}/services/api/node-1", "service instance api/node-1 (a JSON string value)", expect=200)
    rec.call("GET", f"{K}/queue", "the in-order queue, sorted", params={"sorted": "true"}, expect=200)

    rec.section("v3 JSON gateway: RPC-style POST reads with base64 keys")
    v3(rec, "kv/range", "one key: app/version", v3_range("app/version"))
    v3(rec, "kv/range", "every key with prefix app/ (range_end = app0)", v3_prefix("app/"))
    v3(rec, "kv/range", "prefix app/, sorted by key descending, limit 2",
       v3_prefix("app/", sort_order="DESCEND", sort_target="KEY", limit=2))
    v3(rec, "kv/range", "prefix db/, keys only", v3_prefix("db/", keys_only=True))
    v3(rec, "kv/range", "count of every key (key \\0, range_end \\0)",
       {"key": b64("\0"), "range_end": b64("\0"), "count_only": True})

    rec.section("v2 update: set a key (PUT upsert), read it and its directory")
    r = rec.call("PUT", f"{K}/flags/dark-mode", "set flags/dark-mode=on (answers node and prevNode)",
                 data={"value": "on"}, expect=200)
    rec.call("GET", f"{K}/flags/dark-mode", "read it back", expect=200)
    rec.call("GET", f"{K}/flags", "flags directory", params={"sorted": "true"}, expect=200)

    rec.section("v2 create-only (prevExist=false), then compare-and-swap by prevValue and prevIndex")
    rec.call("PUT", f"{K}/flags/holiday-banner", "create flags/holiday-banner=on with prevExist=false (201)",
             params={"prevExist": "false"}, data={"value": "on"}, expect=201)
    rec.call("GET", f"{K}/flags/holiday-banner", "read it", expect=200)
    rec.call("GET", f"{K}/flags", "flags directory: holiday-banner listed", params={"sorted": "true"}, expect=200)
    rec.call("PUT", f"{K}/flags/new-checkout", "CAS: new-checkout on->off only if it is still on (prevValue)",
             params={"prevValue": "on"}, data={"value": "off"}, expect=200)
    rec.call("GET", f"{K}/flags/new-checkout", "read it: off", expect=200)
    tax = node_of(rec.call("GET", f"{K}/config/billing/tax_rate", "read tax_rate for its modifiedIndex",
                           expect=200))
    rec.call("PUT", f"{K}/config/billing/tax_rate", "CAS: tax_rate=0.2 only if modifiedIndex is unchanged",
             params={"prevIndex": str(tax["modifiedIndex"])}, data={"value": "0.2"}, expect=200)
    rec.call("GET", f"{K}/config/billing/tax_rate", "read it: 0.2", expect=200)
    rec.call("GET", f"{K}/config/billing", "billing directory", params={"sorted": "true"}, expect=200)

    rec.section("v2 directories: create one, add keys, read it")
    rec.call("PUT", f"{K}/config/search", "create directory config/search (dir=true)", data={"dir": "true"},
             expect=201)
    rec.call("PUT", f"{K}/config/search/engine", "set config/search/engine", data={"value": "meilisearch"},
             expect=201)
    rec.call("PUT", f"{K}/config/search/timeout_ms", "set config/search/timeout_ms", data={"value": "800"},
             expect=201)
    rec.call("GET", f"{K}/config/search", "read the directory", params={"sorted": "true"}, expect=200)
    rec.call("GET", f"{K}/config", "config directory: search listed", params={"sorted": "true"}, expect=200)

    rec.section("v2 in-order keys: POST appends with a generated key")
    r = rec.call("POST", f"{K}/queue", "enqueue a job (the key is the new index, in node.key)",
                 data={"value": "export-invoices:2026-11"}, expect=201)
    job_key = node_of(r)["key"]
    rec.call("GET", f"{K}{job_key}", "read the new job by its generated key", expect=200)
    rec.call("GET", f"{K}/queue", "the queue, sorted: three jobs", params={"sorted": "true"}, expect=200)

    rec.section("v2 deletes: a key, compare-and-delete, a directory recursively")
    rec.call("DELETE", f"{K}/flags/beta-search", "delete flags/beta-search", expect=200)
    rec.call("GET", f"{K}/flags/beta-search", "read it: 404 (errorCode 100)", expect=404)
    rec.call("GET", f"{K}/flags", "flags directory: beta-search gone", params={"sorted": "true"}, expect=200)
    queue = rec.call("GET", f"{K}/queue", "the queue before taking its first job", params={"sorted": "true"},
                     expect=200).json()["node"]["nodes"]
    first = queue[0]
    rec.call("DELETE", f"{K}{first['key']}", "take the first job: delete it only if unchanged (prevIndex)",
             params={"prevIndex": str(first["modifiedIndex"])}, expect=200)
    rec.call("GET", f"{K}{first['key']}", "read it: 404", expect=404)
    rec.call("GET", f"{K}/queue", "the queue: two jobs", params={"sorted": "true"}, expect=200)
    rec.call("DELETE", f"{K}/services/worker", "delete directory services/worker (recursive=true)",
             params={"recursive": "true"}, expect=200)
    rec.call("GET", f"{K}/services/worker/node-1", "a key inside it: 404", expect=404)
    rec.call("GET", f"{K}/services", "services: only api left", params={"recursive": "true", "sorted": "true"},
             expect=200)

    rec.section("v3 writes: put, put with prev_kv, compare-and-swap txn, deleterange")
    v3(rec, "kv/put", "put app/region=eu-central (new key)", {"key": b64("app/region"), "value": b64("eu-central")})
    v3(rec, "kv/range", "read app/region", v3_range("app/region"))
    v3(rec, "kv/range", "prefix app/: region listed", v3_prefix("app/"))
    v3(rec, "kv/put", "put app/replicas=5 returning the previous value (prev_kv)",
       {"key": b64("app/replicas"), "value": b64("5"), "prev_kv": True})
    v3(rec, "kv/range", "read app/replicas: 5, version 2", v3_range("app/replicas"))
    v3(rec, "kv/txn", "txn: if app/version == 2.4.1 then put 2.5.0 else read it",
       {"compare": [{"key": b64("app/version"), "target": "VALUE", "result": "EQUAL", "value": b64("2.4.1")}],
        "success": [{"request_put": {"key": b64("app/version"), "value": b64("2.5.0")}}],
        "failure": [{"request_range": {"key": b64("app/version")}}]})
    v3(rec, "kv/range", "read app/version: 2.5.0", v3_range("app/version"))
    v3(rec, "kv/deleterange", "delete db/replica, returning it (prev_kv)",
       {"key": b64("db/replica"), "prev_kv": True})
    v3(rec, "kv/range", "read db/replica: no kvs, count 0", v3_range("db/replica"))
    v3(rec, "kv/range", "prefix db/: only primary", v3_prefix("db/"))


def scenario_probe_reads(rec: Recorder) -> None:
    rec.section("v2: other directories, keys and options")
    rec.call("GET", f"{K}/config/web", "directory config/web", params={"sorted": "true"}, expect=200)
    rec.call("GET", f"{K}/config/web/theme", "key config/web/theme", expect=200)
    rec.call("GET", f"{K}/config/web/max_upload_mb", "key config/web/max_upload_mb", expect=200)
    rec.call("GET", f"{K}/config/billing/invoice_prefix", "key invoice_prefix", expect=200)
    rec.call("GET", f"{K}/flags/beta-search", "flag beta-search (deleted in build, here again)", expect=200)
    rec.call("GET", f"{K}/services/api", "directory services/api, sorted", params={"sorted": "true"}, expect=200)
    rec.call("GET", f"{K}/services/worker/node-1", "service instance worker/node-1", expect=200)
    rec.call("GET", f"{K}/", "root, recursive and sorted: the whole tree",
             params={"recursive": "true", "sorted": "true"}, expect=200)
    r = rec.call("GET", f"{K}/queue", "the queue, not sorted (Go map order: may differ run to run)",
                 expect=200)
    first = sorted(n["key"] for n in r.json()["node"]["nodes"])[0]
    rec.call("GET", f"{K}{first}", "the first job by its key", expect=200)
    rec.call("GET", f"{K}/flags/dark-mode", "a key with quorum=true", params={"quorum": "true"}, expect=200)

    rec.section("v3: other keys, prefixes, options")
    v3(rec, "kv/range", "one key: db/primary", v3_range("db/primary"))
    v3(rec, "kv/range", "one key: app/owner", v3_range("app/owner"))
    v3(rec, "kv/range", "prefix db/ with values", v3_prefix("db/"))
    v3(rec, "kv/range", "prefix app/ sorted by value ascending",
       v3_prefix("app/", sort_order="ASCEND", sort_target="VALUE"))
    v3(rec, "kv/range", "prefix app/, limit 1 (more: true)", v3_prefix("app/", limit=1))
    v3(rec, "kv/range", "prefix app/, count only", v3_prefix("app/", count_only=True))
    v3(rec, "kv/range", "keys from app/r onwards (range_end \\0: every key >= app/r)",
       {"key": b64("app/r"), "range_end": b64("\0"), "keys_only": True})
    v3(rec, "kv/range", "a key that does not exist: count 0, no kvs", v3_range("app/missing"))
    v3(rec, "kv/range", "app/version at revision 2 (when only app/env existed: empty)",
       v3_range("app/version", revision=2))
    v3(rec, "cluster/member/list", "cluster members (v3)", {})

    rec.section("Errors")
    rec.call("GET", f"{K}/flags/purple", "missing key: 404 errorCode 100", expect=404)
    rec.call("GET", f"{K}/archive", "missing directory: 404", expect=404)
    rec.call("GET", f"{K}/config/web/theme/color", "a path below a key: 400 errorCode 104 Not a directory", expect=400)
    rec.call("GET", f"{K}/config", "invalid option value recursive=maybe: 400 errorCode 209",
             params={"recursive": "maybe"}, expect=400)
    v3(rec, "kv/range", "a key that is not base64: 400 (code 3)", {"key": "app/env"}, expect=400)
    v3(rec, "kv/range", "an unknown sort_order value: 400 (code 3)", v3_prefix("app/", sort_order="SIDEWAYS"),
       expect=400)
    v3(rec, "kv/compact-all", "an unknown gateway route: 404 text/plain", {}, expect=404)


def scenario_probe_crud(rec: Recorder) -> None:
    rec.section("v2: create-only, read, list; create again refused")
    rec.call("PUT", f"{K}/flags/maintenance", "create flags/maintenance=off (prevExist=false)",
             params={"prevExist": "false"}, data={"value": "off"}, expect=201)
    rec.call("GET", f"{K}/flags/maintenance", "read it", expect=200)
    rec.call("GET", f"{K}/flags", "flags: maintenance listed", params={"sorted": "true"}, expect=200)
    rec.call("PUT", f"{K}/flags/maintenance", "create it again: 412 errorCode 105 Key already exists",
             params={"prevExist": "false"}, data={"value": "on"}, expect=412)
    rec.call("GET", f"{K}/flags/maintenance", "unchanged: off", expect=200)

    rec.section("v2: update-only and compare-and-swap refusals, then a good CAS")
    rec.call("PUT", f"{K}/flags/ghost", "update-only (prevExist=true) of a missing key: 404",
             params={"prevExist": "true"}, data={"value": "on"}, expect=404)
    rec.call("PUT", f"{K}/config/web/theme", "CAS with a wrong prevValue: 412 errorCode 101 Compare failed",
             params={"prevValue": "dark"}, data={"value": "solarized"}, expect=412)
    rec.call("PUT", f"{K}/config/web/theme", "CAS with a stale prevIndex: 412", params={"prevIndex": "1"},
             data={"value": "solarized"}, expect=412)
    rec.call("GET", f"{K}/config/web/theme", "unchanged: light", expect=200)
    rec.call("PUT", f"{K}/config/web/theme", "CAS with the right prevValue", params={"prevValue": "light"},
             data={"value": "dark"}, expect=200)
    rec.call("GET", f"{K}/config/web/theme", "read it: dark", expect=200)
    rec.call("GET", f"{K}/config/web", "config/web directory", params={"sorted": "true"}, expect=200)
    rec.call("PUT", f"{K}/config/web/max_upload_mb", "plain set (upsert) of an existing key: 50",
             data={"value": "50"}, expect=200)
    rec.call("GET", f"{K}/config/web/max_upload_mb", "read it: 50", expect=200)

    rec.section("v2: directory refusals")
    rec.call("PUT", f"{K}/config/web", "set a value on a directory: 403 errorCode 102 Not a file",
             data={"value": "x"}, expect=403)
    rec.call("DELETE", f"{K}/config/web", "delete a directory without recursive: 403", expect=403)
    rec.call("PUT", f"{K}/config/web/theme/color", "a key below a key: 400 errorCode 104 Not a directory",
             data={"value": "red"}, expect=400)
    rec.call("GET", f"{K}/config/web", "config/web unchanged", params={"sorted": "true"}, expect=200)

    rec.section("v2: directories and in-order keys")
    rec.call("PUT", f"{K}/releases", "create directory releases (dir=true)", data={"dir": "true"}, expect=201)
    r = rec.call("POST", f"{K}/releases", "append a release (generated in-order key)", data={"value": "2.4.1"},
                 expect=201)
    rel = node_of(r)["key"]
    rec.call("GET", f"{K}{rel}", "read it by its generated key", expect=200)
    rec.call("GET", f"{K}/releases", "releases directory", params={"sorted": "true"}, expect=200)
    rec.call("DELETE", f"{K}/releases", "delete the non-empty directory with dir=true only: 403",
             params={"dir": "true"}, expect=403)
    rec.call("DELETE", f"{K}{rel}", "delete the release key", expect=200)
    rec.call("DELETE", f"{K}/releases", "delete the now empty directory with dir=true", params={"dir": "true"},
             expect=200)
    rec.call("GET", f"{K}/releases", "read it: 404", expect=404)
    rec.call("GET", f"{K}/", "root directory", params={"sorted": "true"}, expect=200)

    rec.section("v2: compare-and-delete")
    rec.call("DELETE", f"{K}/flags/dark-mode", "compare-and-delete with a wrong prevValue: 412",
             params={"prevValue": "on"}, expect=412)
    rec.call("GET", f"{K}/flags/dark-mode", "still there", expect=200)
    rec.call("DELETE", f"{K}/flags/dark-mode", "compare-and-delete with the right prevValue",
             params={"prevValue": "off"}, expect=200)
    rec.call("GET", f"{K}/flags/dark-mode", "read it: 404", expect=404)
    rec.call("DELETE", f"{K}/flags/dark-mode", "delete it again: 404", expect=404)
    rec.call("GET", f"{K}/flags", "flags", params={"sorted": "true"}, expect=200)

    rec.section("v3: put, read, delete; failed txn; refusals")
    v3(rec, "kv/put", "put db/backup", {"key": b64("db/backup"), "value": b64("10.0.2.12:5432")})
    v3(rec, "kv/range", "read db/backup", v3_range("db/backup"))
    v3(rec, "kv/range", "prefix db/: three keys", v3_prefix("db/"))
    v3(rec, "kv/txn", "txn whose compare fails (app/env == staging): runs the failure branch",
       {"compare": [{"key": b64("app/env"), "target": "VALUE", "result": "EQUAL", "value": b64("staging")}],
        "success": [{"request_put": {"key": b64("app/env"), "value": b64("dev")}}],
        "failure": [{"request_range": {"key": b64("app/env")}}]})
    v3(rec, "kv/range", "app/env unchanged: prod", v3_range("app/env"))
    v3(rec, "kv/txn", "txn on version: if app/owner has version 1, put a new owner",
       {"compare": [{"key": b64("app/owner"), "target": "VERSION", "result": "EQUAL", "version": "1"}],
        "success": [{"request_put": {"key": b64("app/owner"), "value": b64("sre-team")}}]})
    v3(rec, "kv/range", "app/owner: sre-team, version 2", v3_range("app/owner"))
    v3(rec, "kv/put", "put whose value is not base64: 400 (code 3), nothing written",
       {"key": b64("app/env"), "value": "staging!"}, expect=400)
    v3(rec, "kv/range", "app/env still prod", v3_range("app/env"))
    v3(rec, "kv/deleterange", "delete every app/ key (prefix)", v3_prefix("app/"))
    v3(rec, "kv/range", "prefix app/: none left", v3_prefix("app/"))
    v3(rec, "kv/range", "every key", {"key": b64("\0"), "range_end": b64("\0")})


SCENARIOS = [
    ("build", scenario_build),
    ("probe-reads", scenario_probe_reads),
    ("probe-crud", scenario_probe_crud),
]


def prepare(run: Path) -> None:
    """Every capture starts from an empty data directory."""
    shutil.rmtree(run / "data", ignore_errors=True)


def command(run: Path) -> list:
    peer = f"http://127.0.0.1:{PEER_PORT}"
    return ["etcd", "--name", MEMBER, "--data-dir", run / "data", "--enable-v2",
            "--listen-client-urls", BASE, "--advertise-client-urls", BASE,
            "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
            "--initial-cluster", f"{MEMBER}={peer}", "--initial-cluster-token", "rea-corpus",
            "--initial-cluster-state", "new"]


def etcd_version() -> str:
    out = subprocess.run(["etcd", "--version"], capture_output=True, text=True, check=True).stdout
    return out.splitlines()[0].split(":", 1)[1].strip()


def main() -> None:
    import readme  # the prose of README.md, next to this file

    record_app(AppSpec(name="etcd", here=HERE, dist="", app_port=APP_PORT, proxy_port=PROXY_PORT,
                       command=command, scenarios=SCENARIOS, render_readme=readme.render, prepare=prepare,
                       seed_live=lambda base: seed(), ready_path="/health", stop_signal=signal.SIGTERM,
                       version=etcd_version))


if __name__ == "__main__":
    main()
