"""README.md of the etcd captures (written by record.py after each recording)."""

from appdriver import CAPTURE_FILES
from harlib import producer_notes, render_steps, render_summary_table

import record as R


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    v2_rows = "\n".join(f"| `{k}` | `{v}` |" for k, v in R.V2_KEYS)
    v3_rows = "\n".join(f"| `{k}` | `{R.b64(k)}` | `{v}` |" for k, v in R.V3_KEYS)
    jobs = ", ".join(f"`{j}`" for j in R.QUEUE_JOBS)
    return f"""# etcd captures

Real HTTP traffic of **etcd {ver}** (Debian bookworm's `etcd-server` package), a single member
started fresh for every capture with `--enable-v2` (the v2 keys API) and the v3 JSON gateway that
etcd serves on its client port, recorded on loopback by `record.sh` in this folder (`apt-get
install -y etcd-server` when `etcd` is missing, then `record.py`, which starts etcd on an empty
data directory under `run/`, seeds it, records through the kit's mitmdump proxy and stops what it
started by PID). The member name (`{R.MEMBER}`), its URLs (client `127.0.0.1:{R.APP_PORT}`, peer
`127.0.0.1:{R.PEER_PORT}`) and the cluster token are fixed, so the cluster and member ids and every
index and revision are the same in every capture.

{CAPTURE_FILES}

{render_summary_table(summaries)}

## Seed (the same before every capture; not recorded)

v2 keys, each set by `PUT /v2/keys<key>` with a form body `value=…` (directories are created
implicitly), in this order (so their `createdIndex` is 4…14):

| key | value |
| --- | --- |
{v2_rows}

Then two in-order keys appended by `POST /v2/keys/queue` (values {jobs}; keys
`/queue/00000000000000000015` and `…16`). The v2 and v3 stores are separate; the v3 keys are put
by `POST /v3/kv/put` with base64 keys and values (revisions 2…7):

| key | base64 | value |
| --- | --- | --- |
{v3_rows}

{render_steps(steps)}
## What each capture tests

- **build.har** — discovery (`/version`, `/health`, `/v2/members`); v2 directory listings (one
  level, `recursive=true`, `sorted=true`) and single keys; v3 `kv/range` POST reads of one key, of
  a prefix (`range_end` = the prefix with its last byte + 1), with `sort_order`/`sort_target`/
  `limit`, `keys_only`, `count_only`. Writes, each followed by a read of the key and of its
  directory or prefix: v2 set (upsert, answering `node` and `prevNode`), create-only
  (`prevExist=false`, 201), compare-and-swap by `prevValue` and by `prevIndex`, a new directory
  (`dir=true`) filled with keys, an in-order `POST` whose generated key is only in the answer's
  `node.key`, delete of a key (404 after), compare-and-delete by `prevIndex`, recursive delete of a
  directory; v3 `kv/put` of a new key, `kv/put` with `prev_kv`, a `kv/txn` compare-and-swap
  (`succeeded: true`), `kv/deleterange` with `prev_kv`.
- **probe-reads.har** — other directories and keys (including one the build deleted, present again
  after the restart), the whole tree recursively, an unsorted listing, the generated queue keys,
  `quorum=true`; v3 reads of other keys and prefixes, a value sort, `limit=1` (`more: true`),
  `count_only`, a range to the end of the keyspace, a missing key (`count` 0, no `kvs`), a read at
  an old `revision`, `cluster/member/list`; errors: missing key / directory (**404** errorCode 100),
  a path below a key (**400** errorCode 104), an invalid option value (**400** errorCode 209), a
  non-base64 key and an unknown enum value (**400**, gRPC code 3), an unknown gateway route
  (**404** text).
- **probe-crud.har** — create-only → get → list, then again (**412** errorCode 105, unchanged);
  update-only of a missing key (**404**); compare-and-swap refusals by value and by index (**412**
  errorCode 101, unchanged), then a good one → get → list; a plain set (upsert) of an existing key;
  directory refusals: value on a directory / delete without `recursive` (**403** errorCode 102),
  a key below a key (**400** errorCode 104); a directory with an in-order key, delete with
  `dir=true` while not empty (**403** errorCode 108), empty it, delete it (404 after);
  compare-and-delete refused then applied, delete twice (404); v3 put → range → prefix, a `txn`
  whose compare fails (`succeeded: false`, the failure branch's range in `responses`, nothing
  written), a `txn` on `VERSION`, a put with a non-base64 value (**400**, nothing written),
  `deleterange` of a whole prefix → empty prefix → every key.

## API styles this app shows

- **Documents and folders**: v2 keys are documents inside directories (`dir: true`, `nodes[]`),
  created implicitly by a deep `PUT` or explicitly with `dir=true`, listed one level or
  `recursive=true`, deleted with `recursive=true` or `dir=true`.
- **Upserts**: `PUT /v2/keys/<key>` creates (201, `action: "set"` with no `prevNode`) or replaces
  (200, with `prevNode`); v3 `kv/put` does the same in one RPC.
- **Revision / index concurrency**: `prevExist`, `prevValue`, `prevIndex` on `PUT` and `DELETE`
  (compare-and-swap / compare-and-delete, **412** errorCode 101/105 on failure), `modifiedIndex`/
  `createdIndex` on every node, an `X-Etcd-Index` header on every v2 answer; v3 `mod_revision`,
  `create_revision`, `version` and the `txn` compare on `VALUE`/`VERSION`.
- **Action routes / RPC bodies naming the target**: every v3 call is a `POST` to a verb-like route
  (`kv/range`, `kv/put`, `kv/deleterange`, `kv/txn`, `cluster/member/list`) whose JSON body holds
  the key; keys and values are base64.
- **Generated ids nested in created objects**: `POST /v2/keys/queue` answers
  `{{"action": "create", "node": {{"key": "/queue/000…024", …}}}}` (the key is the store index,
  zero-padded to 20 digits).
- **Keyset-like ranges**: v3 ranges by `key`/`range_end` with `limit` and `more`; v2 `sorted=true`.
- **Validation errors**: v2 errorCodes 100/101/102/104/105/108/209 with 400/403/404/412; v3
  gateway errors with gRPC `code` 3.
- Not shown: soft delete (none in etcd), `Link`/`next` pagination (none in etcd).

## What the captures cannot show

- **v3 errors raised by the etcd server itself** (a future `revision`, `ignore_value` on a missing
  key, a compacted revision…) are sent by the gRPC gateway as a chunked body with an HTTP trailer
  (`Trailer: Grpc-Trailer-Content-Type`); the recorder (mitmproxy 11) cannot read trailers and
  hangs, so such refusals were left out. Only gateway-level errors (bad base64, bad enum, unknown
  route) are recorded.
- **Unsorted v2 listings** come in Go map order: one step of `probe-reads.har` (the queue without
  `sorted`) may list its two jobs in either order on another run; every other listing passes
  `sorted=true`.
- **Indexes are global**: v2 `modifiedIndex` values count every v2 write of the whole store, and
  v3 `revision` every v3 write; an environment can only continue the counter it saw. The v2 and
  v3 stores are separate (a v2 write does not move the v3 revision).
- TTLs, watches (`?wait=true`, `/v3/watch` streams), leases and the auth API are not recorded;
  `Date` headers are the only clock values in the captures.

## HAR producer notes

{producer_notes(summaries)}
- Every URL is `http://127.0.0.1:{R.APP_PORT}/…`. v2 writes send
  `application/x-www-form-urlencoded` bodies (`value=…`, `dir=true`); v3 calls send JSON.
"""
