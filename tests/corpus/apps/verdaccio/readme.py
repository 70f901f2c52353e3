"""README.md of the Verdaccio captures (written by record.py after each recording)."""

from appdriver import CAPTURE_FILES
from harlib import producer_notes, render_steps, render_summary_table

import record as R


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    rows = "\n".join(
        f"| `{n}` | {v} | {d} | {', '.join(kw)} | {', '.join(f'{k} {r}' for k, r in deps.items()) or '—'} | {tag} |"
        for n, v, d, kw, deps, tag in R.SEED_PACKAGES)
    return f"""# Verdaccio captures

Real HTTP traffic of **Verdaccio {ver}** (npm `verdaccio`, a private npm registry), recorded on
loopback by `record.sh` in this folder (`npm ci` of the committed `package-lock.json`, then
`record.py`). 6.8.0 is the newest Verdaccio whose `engines` accept Node 20. Each capture starts
Verdaccio with a fresh `run/registry/config.yaml` in an emptied folder: file storage and an
htpasswd file there, **no uplinks** (nothing is proxied to npmjs), web UI off, every package readable by anyone
and publishable by an authenticated user, listening on `127.0.0.1:{R.APP_PORT}`. Requests carry
`Accept: application/json` and HTTP Basic `admin:s3cret` unless a step says otherwise (Verdaccio
accepts Basic credentials on every route; the bearer tokens `adduser` answers are random).

{CAPTURE_FILES}

{render_summary_table(summaries)}

## Seed (the same before every capture; not recorded)

1. `PUT /-/user/org.couchdb.user:admin` with password `s3cret` (npm adduser).
2. Six `npm publish` bodies, in this order, each `PUT /<name>` (scoped names as `@corp%2fui-kit`)
   with one version, its dist-tag and the tarball as a base64 `_attachments` entry. Tarballs are
   built by `record.py` with fixed bytes (`package/package.json`, `package/index.js`, mtime 0,
   gzip mtime 0), so `shasum`/`integrity` are the same in every capture:

| name | version | description | keywords | dependencies | dist-tag |
| --- | --- | --- | --- | --- | --- |
{rows}

{render_steps(steps)}
## What each capture tests

- **build.har** — `/-/ping`, `/-/whoami`; `/-/v1/search` by `text`, and every package in pages of
  `size=2` via `from`; packuments (`GET /<name>`), a version (`/<name>/<version>`), a dist-tag
  resolved (`/<name>/latest`), a scoped packument (`/@corp%2fui-kit`) and version
  (`/@corp/ui-kit/2.0.0-beta.1`), `/-/package/<name>/dist-tags`, a tarball
  (`/date-helpers/-/date-helpers-1.0.0.tgz`, binary, base64 in the HAR), a user document
  (`/-/user/org.couchdb.user:admin`). Writes, each read back: publish a new version of a package
  and a new scoped package (packument, version, tarball, search); add a dist-tag (`PUT` with a JSON
  string body) and remove one; deprecate a version (`GET ?write=true`, then `PUT /<name>/-rev/<_rev>`
  of the edited packument); unpublish one version (packument without it at its `_rev`, then
  `DELETE /<name>/-/<file>.tgz/-rev/<_rev>`; version and tarball 404 after); unpublish a whole
  package (`DELETE /<name>/-rev/<_rev>`; 404 and gone from search); add a user.
- **probe-reads.har** — other search texts, a search with no result, another page; other
  packages, versions, tags (scoped `next`), tarballs (a scoped tarball's file name drops the scope),
  the abbreviated packument npm install asks for (`Accept: application/vnd.npm.install-v1+json`);
  404s for a missing package, version, dist-tag, tarball and dist-tag list; another user's
  document; `whoami` without credentials.
- **probe-crud.har** — publish → packument → version → search; refusals: the same version again
  (**409** `this package is already present`), publish without credentials (**401**; the package
  does not exist after), adduser of an existing name with a wrong password (**401**), a dist-tag
  for a version that does not exist (**404**; tags unchanged); a prerelease published under `next`,
  `latest` promoted to it, a `latest` tag removed elsewhere; deprecate and un-deprecate; unpublish
  (404 for packument and tarball, a second unpublish 404); a new user who logs in by Basic and
  publishes; the final package list.

## API styles this app shows

- **Ids fused with a format suffix or prefix in one segment**: tarballs `<name>-<version>.tgz`,
  user documents `org.couchdb.user:<name>`, revisions `-rev/<_rev>` as a path segment, scoped names
  with an encoded slash (`@corp%2fui-kit`) or a plain one (`@corp/ui-kit/1.0.0`).
- **Documents with revisions**: a packument is one document with `_rev`; writes to it name the
  `_rev` in the path (`/-rev/<rev>`) after a `GET ?write=true`.
- **Action routes**: dist-tag add/remove (`PUT`/`DELETE /-/package/<name>/dist-tags/<tag>` with a
  bare JSON string body), `DELETE …/-rev/<rev>` to unpublish, tarball delete.
- **Upsert-like publish**: `PUT /<name>` creates the package or merges a new version into it;
  re-publishing an existing version is refused (409).
- **Soft deprecation by a field**: `versions[v].deprecated` (an empty string clears it); the
  version stays installable.
- **Pages** by `size`/`from` in search (the answer's `total` counts only the objects of that page).
- **Validation / auth errors**: 409, 401, 404 with `{{"error": "…"}}` bodies.

## What the captures cannot show

- **`_rev` values are random** (`<n>-<16 hex>`), as are `adduser` tokens; the `time` object of a
  packument and search results hold wall-clock dates. Versions, tarball bytes, `shasum` and
  `integrity` are the same from run to run.
- **Binary bodies**: tarball answers are gzip, stored base64 in the HAR (`encoding: base64`); a
  404 for a tarball is JSON labelled `application/octet-stream`.
- **`GET /-/user/org.couchdb.user:<name>` ignores the name** and answers who is authenticated; and
  `GET /-/whoami` without credentials is 200 `{{}}`, not 401.
- **Derived data**: `dist-tags.latest` follows the last publish without a tag; search results are
  computed from the packuments (a changed package is re-indexed); tarball URLs inside version
  manifests are rewritten to the host the request came to. A capture shows only the outcomes.
- The npm client's own steps are reproduced by hand (`record.py` sends what `npm publish`,
  `npm dist-tag`, `npm deprecate`, `npm unpublish` and `npm adduser` send); login by token,
  `npm audit`, stars and the web UI's `/-/verdaccio/…` routes are not recorded.

## HAR producer notes

{producer_notes(summaries)}
- Every URL is `http://127.0.0.1:{R.APP_PORT}/…`.
"""
