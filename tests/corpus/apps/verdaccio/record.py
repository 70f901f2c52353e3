"""Record HAR captures of a real Verdaccio 6 (a private npm registry, offline).

Run through record.sh (it installs the app and the recorder venv). For each
scenario this script writes config.yaml into an emptied run/registry/ (file storage
there, htpasswd auth, no uplinks: nothing is fetched from npmjs), starts
Verdaccio, seeds it through the npm registry API (not recorded: a user and
three packages published from tarballs built here with fixed bytes), starts
mitmdump as a loopback proxy writing the HAR, runs the scenario through the
proxy, stops the proxy (the HAR is written) and Verdaccio, both by PID. Then
it validates the HARs and writes README.md.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import json
import shutil
import sys
import tarfile
from pathlib import Path
from urllib.parse import quote

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "kit"))

import httpx  # noqa: E402

from appdriver import AppSpec, npm_version, record_app  # noqa: E402
from harlib import Recorder  # noqa: E402

APP_PORT = 18826
PROXY_PORT = 18926
BASE = f"http://127.0.0.1:{APP_PORT}"
ADMIN = ("admin", "s3cret")
NPM_HEADERS = {"Accept": "application/json"}

CONFIG = f"""storage: ./storage
auth:
  htpasswd:
    file: ./htpasswd
    max_users: 100
    algorithm: bcrypt
    rounds: 4
uplinks: {{}}
packages:
  '@*/*':
    access: $all
    publish: $authenticated
    unpublish: $authenticated
  '**':
    access: $all
    publish: $authenticated
    unpublish: $authenticated
web:
  enable: false
listen: 127.0.0.1:{APP_PORT}
log: {{ type: stdout, format: pretty, level: warn }}
"""

# ---------------------------------------------------------------- the seed
SEED_PACKAGES = [
    # (name, version, description, keywords, dependencies, dist-tag)
    ("date-helpers", "1.0.0", "Small date helpers for invoices", ["date", "time"], {}, "latest"),
    ("date-helpers", "1.1.0", "Small date helpers for invoices", ["date", "time"], {}, "latest"),
    ("left-pad-ng", "1.0.0", "Pads strings on the left", ["string", "pad"], {}, "latest"),
    ("left-pad-ng", "1.0.1", "Pads strings on the left", ["string", "pad"], {}, "latest"),
    ("@corp/ui-kit", "1.0.0", "Corporate UI components", ["ui", "components"], {"date-helpers": "^1.0.0"},
     "latest"),
    ("@corp/ui-kit", "2.0.0-beta.1", "Corporate UI components", ["ui", "components"],
     {"date-helpers": "^1.1.0"}, "next"),
]


def path_name(name: str) -> str:
    """How the npm client writes a package name in a URL path (a scope's slash encoded)."""
    return quote(name, safe="@")


def tarball_name(name: str, version: str) -> str:
    return f"{name.split('/')[-1]}-{version}.tgz"


def manifest(name, version, description, keywords, deps) -> dict:
    return {"name": name, "version": version, "description": description, "main": "index.js",
            "license": "MIT", "keywords": keywords, "dependencies": deps}


def make_tarball(pkg_json: dict) -> bytes:
    """A package tarball with fixed bytes: package/package.json and package/index.js, mtime 0."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for fname, data in (("package/package.json", json.dumps(pkg_json, indent=2).encode()),
                            ("package/index.js", f"module.exports = '{pkg_json['name']}';\n".encode())):
            info = tarfile.TarInfo(fname)
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue(), mtime=0)


def publish_body(name, version, description, keywords, deps, tag="latest") -> dict:
    """The body `npm publish` sends: one version, its dist-tag, the tarball as a base64 attachment."""
    pkg = manifest(name, version, description, keywords, deps)
    tgz = make_tarball(pkg)
    fname = tarball_name(name, version)
    integrity = "sha512-" + base64.b64encode(hashlib.sha512(tgz).digest()).decode()
    ver = {**pkg, "_id": f"{name}@{version}", "_nodeVersion": "20.20.2", "_npmVersion": "10.8.2",
           "dist": {"integrity": integrity, "shasum": hashlib.sha1(tgz).hexdigest(),
                    "tarball": f"{BASE}/{name}/-/{fname}"}}
    return {"_id": name, "name": name, "description": description, "dist-tags": {tag: version},
            "versions": {version: ver}, "access": None,
            "_attachments": {fname: {"content_type": "application/octet-stream",
                                     "data": base64.b64encode(tgz).decode(), "length": len(tgz)}}}


def seed() -> None:
    """Seed directly (no proxy): the admin user, then every seed version published in order."""
    with httpx.Client(base_url=BASE, timeout=60, trust_env=False, headers=NPM_HEADERS) as c:
        c.put("/-/user/org.couchdb.user:admin",
              json={"_id": "org.couchdb.user:admin", "name": "admin", "password": ADMIN[1], "type": "user",
                    "roles": [], "date": "2026-01-01T00:00:00.000Z"}).raise_for_status()
        c.auth = ADMIN
        for name, version, desc, kw, deps, tag in SEED_PACKAGES:
            c.put(f"/{path_name(name)}", json=publish_body(name, version, desc, kw, deps, tag)).raise_for_status()


# ---------------------------------------------------------------- helpers
def packument_for_write(rec: Recorder, name: str, why: str) -> dict:
    return rec.call("GET", f"/{path_name(name)}", why, params={"write": "true"}, expect=200).json()


def tag_body(version: str) -> dict:
    return {"content": json.dumps(version).encode(), "headers": {"Content-Type": "application/json"}}


# ---------------------------------------------------------------- scenarios
def scenario_build(rec: Recorder) -> None:
    rec.section("Discover: ping, who am I")
    rec.call("GET", "/-/ping", "registry ping", expect=200)
    rec.call("GET", "/-/whoami", "the authenticated user (Basic admin)", expect=200)

    rec.section("Search (text, size, from pages)")
    rec.call("GET", "/-/v1/search", "search text=date", params={"text": "date", "size": "20"}, expect=200)
    rec.call("GET", "/-/v1/search", "search every package, page 1 of 2 per page",
             params={"text": "", "size": "2", "from": "0"}, expect=200)
    rec.call("GET", "/-/v1/search", "page 2 (from=2)", params={"text": "", "size": "2", "from": "2"}, expect=200)

    rec.section("Package documents (packuments), versions, dist-tags, tarballs")
    rec.call("GET", "/date-helpers", "packument of date-helpers (versions, dist-tags, time, _rev)", expect=200)
    rec.call("GET", "/date-helpers/1.1.0", "one version's manifest", expect=200)
    rec.call("GET", "/date-helpers/latest", "a dist-tag resolved to its version", expect=200)
    rec.call("GET", "/@corp%2fui-kit", "a scoped packument (the scope's slash encoded)", expect=200)
    rec.call("GET", "/@corp/ui-kit/2.0.0-beta.1", "a scoped version (plain slash)", expect=200)
    rec.call("GET", "/-/package/date-helpers/dist-tags", "dist-tags of date-helpers", expect=200)
    rec.call("GET", "/-/package/@corp%2fui-kit/dist-tags", "dist-tags of @corp/ui-kit", expect=200)
    rec.call("GET", "/date-helpers/-/date-helpers-1.0.0.tgz", "a tarball (id fused with version and .tgz)",
             headers={"Accept": "application/octet-stream"}, expect=200)
    rec.call("GET", "/-/user/org.couchdb.user:admin", "the admin's user document (id prefixed)", expect=200)

    rec.section("Publish a new version of an existing package")
    rec.call("PUT", "/date-helpers", "npm publish date-helpers@1.2.0 (tarball attached)",
             json=publish_body("date-helpers", "1.2.0", "Small date helpers for invoices, now with ISO weeks",
                               ["date", "time", "iso-week"], {}), expect=201)
    rec.call("GET", "/date-helpers/1.2.0", "read the new version", expect=200)
    rec.call("GET", "/date-helpers", "packument: three versions, latest 1.2.0", expect=200)
    rec.call("GET", "/date-helpers/-/date-helpers-1.2.0.tgz", "the new tarball",
             headers={"Accept": "application/octet-stream"}, expect=200)

    rec.section("Publish a new scoped package")
    rec.call("PUT", "/@corp%2ficons", "npm publish @corp/icons@0.1.0",
             json=publish_body("@corp/icons", "0.1.0", "Corporate icon set", ["icons", "svg"], {}), expect=201)
    rec.call("GET", "/@corp%2ficons", "read its packument", expect=200)
    rec.call("GET", "/-/v1/search", "search text=icons: found", params={"text": "icons"}, expect=200)

    rec.section("dist-tags: add and remove (action routes on /-/package/<name>/dist-tags/<tag>)")
    rec.call("PUT", "/-/package/date-helpers/dist-tags/legacy", "tag 1.0.0 as legacy (body: a JSON string)",
             **tag_body("1.0.0"), expect=201)
    rec.call("GET", "/-/package/date-helpers/dist-tags", "dist-tags: latest and legacy", expect=200)
    rec.call("GET", "/date-helpers/legacy", "the legacy tag resolves to 1.0.0", expect=200)
    rec.call("DELETE", "/-/package/@corp%2fui-kit/dist-tags/next", "remove the next tag of @corp/ui-kit",
             expect=201)
    rec.call("GET", "/-/package/@corp%2fui-kit/dist-tags", "dist-tags: only latest", expect=200)

    rec.section("Deprecate a version (write the packument back at its _rev)")
    doc = packument_for_write(rec, "left-pad-ng", "read left-pad-ng for writing (?write=true)")
    doc["versions"]["1.0.0"]["deprecated"] = "use 1.0.1: fixes padding of emoji"
    rec.call("PUT", f"/left-pad-ng/-rev/{doc['_rev']}", "PUT the packument with 1.0.0 deprecated",
             json=doc, expect=201)
    rec.call("GET", "/left-pad-ng/1.0.0", "the version now carries `deprecated`", expect=200)
    rec.call("GET", "/left-pad-ng", "the packument", expect=200)

    rec.section("Unpublish one version: packument without it, then delete its tarball")
    doc = packument_for_write(rec, "date-helpers", "read date-helpers for writing")
    del doc["versions"]["1.0.0"]
    doc["dist-tags"].pop("legacy", None)
    rec.call("PUT", f"/date-helpers/-rev/{doc['_rev']}", "PUT the packument without 1.0.0", json=doc, expect=201)
    doc = packument_for_write(rec, "date-helpers", "read it again for its new _rev")
    rec.call("DELETE", f"/date-helpers/-/date-helpers-1.0.0.tgz/-rev/{doc['_rev']}", "delete the 1.0.0 tarball",
             expect=201)
    rec.call("GET", "/date-helpers/1.0.0", "version 1.0.0: 404", expect=404)
    rec.call("GET", "/date-helpers/-/date-helpers-1.0.0.tgz", "its tarball: 404",
             headers={"Accept": "application/octet-stream"}, expect=404)
    rec.call("GET", "/date-helpers", "packument: 1.1.0 and 1.2.0", expect=200)

    rec.section("Unpublish a whole package")
    doc = packument_for_write(rec, "left-pad-ng", "read left-pad-ng for its _rev")
    rec.call("DELETE", f"/left-pad-ng/-rev/{doc['_rev']}", "npm unpublish left-pad-ng --force", expect=201)
    rec.call("GET", "/left-pad-ng", "read it: 404", expect=404)
    rec.call("GET", "/-/v1/search", "search every package: left-pad-ng gone", params={"text": "", "size": "20"},
             expect=200)

    rec.section("Add a user (npm adduser)")
    rec.call("PUT", "/-/user/org.couchdb.user:bea", "create user bea (answers a token)",
             json={"_id": "org.couchdb.user:bea", "name": "bea", "password": "s3cret-bea", "type": "user",
                   "roles": [], "date": "2026-01-02T00:00:00.000Z"}, auth=None, expect=201)
    rec.call("GET", "/-/user/org.couchdb.user:bea", "her user document", expect=200)


def scenario_probe_reads(rec: Recorder) -> None:
    rec.section("Other searches and pages")
    rec.call("GET", "/-/v1/search", "text=ui", params={"text": "ui"}, expect=200)
    rec.call("GET", "/-/v1/search", "text=pad", params={"text": "pad"}, expect=200)
    rec.call("GET", "/-/v1/search", "text=nothing-like-this: no objects", params={"text": "nothing-like-this"},
             expect=200)
    rec.call("GET", "/-/v1/search", "size 1, from 2", params={"text": "", "size": "1", "from": "2"}, expect=200)

    rec.section("Other packages, versions, tags, tarballs, users")
    rec.call("GET", "/left-pad-ng", "packument of left-pad-ng", expect=200)
    rec.call("GET", "/left-pad-ng/1.0.1", "a version never read in the build", expect=200)
    rec.call("GET", "/left-pad-ng/latest", "latest of left-pad-ng", expect=200)
    rec.call("GET", "/date-helpers/1.0.0", "date-helpers 1.0.0 (unpublished in the build, back after the restart)",
             expect=200)
    rec.call("GET", "/@corp/ui-kit/next", "a scoped dist-tag resolved", expect=200)
    rec.call("GET", "/@corp/ui-kit/1.0.0", "a scoped version", expect=200)
    rec.call("GET", "/-/package/left-pad-ng/dist-tags", "dist-tags of left-pad-ng", expect=200)
    rec.call("GET", "/left-pad-ng/-/left-pad-ng-1.0.1.tgz", "another tarball",
             headers={"Accept": "application/octet-stream"}, expect=200)
    rec.call("GET", "/@corp/ui-kit/-/ui-kit-1.0.0.tgz", "a scoped tarball (file name without the scope)",
             headers={"Accept": "application/octet-stream"}, expect=200)
    rec.call("GET", "/date-helpers", "abbreviated packument (npm install's Accept)",
             headers={"Accept": "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*"},
             expect=200)

    rec.section("Missing things and refusals")
    rec.call("GET", "/no-such-package", "a missing package: 404", expect=404)
    rec.call("GET", "/date-helpers/9.9.9", "a missing version: 404", expect=404)
    rec.call("GET", "/date-helpers/beta", "a missing dist-tag: 404", expect=404)
    rec.call("GET", "/date-helpers/-/date-helpers-9.9.9.tgz", "a missing tarball: 404",
             headers={"Accept": "application/octet-stream"}, expect=404)
    rec.call("GET", "/-/package/no-such-package/dist-tags", "dist-tags of a missing package: 404", expect=404)
    rec.call("GET", "/-/user/org.couchdb.user:zed", "another name's user document: Verdaccio answers who is "
             "authenticated, whatever the name", expect=200)
    rec.call("GET", "/-/whoami", "whoami without credentials: 200 with an empty object", auth=None, expect=200)


def scenario_probe_crud(rec: Recorder) -> None:
    rec.section("Publish a new package, read it, find it")
    rec.call("PUT", "/csv-lite", "npm publish csv-lite@0.3.0",
             json=publish_body("csv-lite", "0.3.0", "Tiny CSV reader", ["csv", "parser"], {}), expect=201)
    rec.call("GET", "/csv-lite", "its packument", expect=200)
    rec.call("GET", "/csv-lite/0.3.0", "its version", expect=200)
    rec.call("GET", "/-/v1/search", "search csv", params={"text": "csv"}, expect=200)

    rec.section("Refusals")
    rec.call("PUT", "/csv-lite", "publish 0.3.0 again: 409 (this package is already present)",
             json=publish_body("csv-lite", "0.3.0", "Tiny CSV reader", ["csv", "parser"], {}), expect=409)
    rec.call("PUT", "/json-lite", "publish without credentials: 401", auth=None,
             json=publish_body("json-lite", "0.1.0", "Tiny JSON helpers", ["json"], {}), expect=401)
    rec.call("GET", "/json-lite", "json-lite does not exist: 404", expect=404)
    rec.call("PUT", "/-/user/org.couchdb.user:admin", "adduser (login) an existing name with a wrong password: 401",
             json={"_id": "org.couchdb.user:admin", "name": "admin", "password": "wrong", "type": "user",
                   "roles": [], "date": "2026-01-03T00:00:00.000Z"}, auth=None, expect=401)
    rec.call("PUT", "/-/package/csv-lite/dist-tags/stable", "tag a version that does not exist: 404",
             **tag_body("9.0.0"), expect=404)
    rec.call("GET", "/-/package/csv-lite/dist-tags", "dist-tags unchanged", expect=200)

    rec.section("Second version, tags")
    rec.call("PUT", "/csv-lite", "publish csv-lite@0.4.0-rc.1 under the next tag",
             json=publish_body("csv-lite", "0.4.0-rc.1", "Tiny CSV reader", ["csv", "parser"], {}, tag="next"),
             expect=201)
    rec.call("GET", "/csv-lite/next", "next resolves to 0.4.0-rc.1", expect=200)
    rec.call("GET", "/csv-lite/latest", "latest is still 0.3.0", expect=200)
    rec.call("PUT", "/-/package/csv-lite/dist-tags/latest", "promote 0.4.0-rc.1 to latest", **tag_body("0.4.0-rc.1"),
             expect=201)
    rec.call("GET", "/-/package/csv-lite/dist-tags", "dist-tags", expect=200)
    rec.call("DELETE", "/-/package/date-helpers/dist-tags/latest", "remove a latest tag", expect=201)
    rec.call("GET", "/-/package/date-helpers/dist-tags", "date-helpers dist-tags", expect=200)

    rec.section("Deprecate, then un-deprecate")
    doc = packument_for_write(rec, "@corp/ui-kit", "read @corp/ui-kit for writing")
    doc["versions"]["1.0.0"]["deprecated"] = "please move to 2.x"
    rec.call("PUT", f"/@corp%2fui-kit/-rev/{doc['_rev']}", "deprecate 1.0.0", json=doc, expect=201)
    rec.call("GET", "/@corp/ui-kit/1.0.0", "deprecated", expect=200)
    doc = packument_for_write(rec, "@corp/ui-kit", "read it again")
    doc["versions"]["1.0.0"]["deprecated"] = ""
    rec.call("PUT", f"/@corp%2fui-kit/-rev/{doc['_rev']}", "un-deprecate (empty message)", json=doc, expect=201)
    rec.call("GET", "/@corp/ui-kit/1.0.0", "read it", expect=200)

    rec.section("Unpublish the new package; a new user publishes")
    doc = packument_for_write(rec, "csv-lite", "read csv-lite for its _rev")
    rec.call("DELETE", f"/csv-lite/-rev/{doc['_rev']}", "unpublish csv-lite", expect=201)
    rec.call("GET", "/csv-lite", "read it: 404", expect=404)
    rec.call("GET", "/csv-lite/-/csv-lite-0.3.0.tgz", "its tarball: 404",
             headers={"Accept": "application/octet-stream"}, expect=404)
    rec.call("DELETE", "/csv-lite/-rev/1-0000000000000000", "unpublish it again: 404", expect=404)
    rec.call("PUT", "/-/user/org.couchdb.user:cy", "create user cy", auth=None,
             json={"_id": "org.couchdb.user:cy", "name": "cy", "password": "s3cret-cy", "type": "user",
                   "roles": [], "date": "2026-01-04T00:00:00.000Z"}, expect=201)
    rec.call("GET", "/-/whoami", "whoami as cy", auth=("cy", "s3cret-cy"), expect=200)
    rec.call("PUT", "/yaml-lite", "cy publishes yaml-lite@1.0.0", auth=("cy", "s3cret-cy"),
             json=publish_body("yaml-lite", "1.0.0", "Tiny YAML subset", ["yaml"], {}), expect=201)
    rec.call("GET", "/yaml-lite", "its packument", expect=200)
    rec.call("GET", "/-/v1/search", "every package", params={"text": "", "size": "20"}, expect=200)


def as_admin(fn):
    """Every recorded request sends Basic admin:s3cret unless its step passes other `auth`."""
    def run(rec: Recorder) -> None:
        rec.client.auth = ADMIN
        fn(rec)
    return run


SCENARIOS = [
    ("build", as_admin(scenario_build)),
    ("probe-reads", as_admin(scenario_probe_reads)),
    ("probe-crud", as_admin(scenario_probe_crud)),
]


def prepare(run: Path) -> None:
    """Every capture starts from an empty registry folder: config.yaml, then storage and htpasswd."""
    home = run / "registry"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    (home / "config.yaml").write_text(CONFIG)


def main() -> None:
    import readme  # the prose of README.md, next to this file

    record_app(AppSpec(name="verdaccio", here=HERE, dist="", app_port=APP_PORT, proxy_port=PROXY_PORT,
                       command=lambda run: [HERE / "node_modules" / ".bin" / "verdaccio", "--config",
                                            run / "registry" / "config.yaml"],
                       scenarios=SCENARIOS, render_readme=readme.render, prepare=prepare,
                       seed_live=lambda base: seed(), headers=NPM_HEADERS, ready_path="/-/ping", settle=0.5,
                       version=lambda: npm_version(HERE, "verdaccio")))


if __name__ == "__main__":
    main()
