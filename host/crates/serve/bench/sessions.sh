#!/usr/bin/env bash
# Memory benchmark of MCP sessions (issue 15, defect 4): RSS of `rea environment-serve` before and
# after 11,000 clients each open an initialize-based session (2025-06-18) and leave it idle.
#
#   host/crates/serve/bench/sessions.sh [REA_BINARY]    # BENCH_SESSIONS=11000 by default
#
# Two runs on the shared json-server capture, each a fresh server:
#   1. the defaults (REA_MAX_SESSIONS=256, idle 300 s): the sessions past the cap are answered 503;
#   2. REA_MAX_SESSIONS=BENCH_SESSIONS with REA_SESSION_IDLE_SECONDS=10: every session opens, then
#      all expire, and the freed heap is given back (malloc_trim after closes).
# Prints RSS (VmRSS, MiB) before, after opening, and after 30 s idle, and the answers by status.
# Without a binary argument the release build is used (built when missing). Binds 127.0.0.1.
set -euo pipefail

root="$(cd "$(dirname "$0")/../../../.." && pwd)"
shared="${REA_SHARED_DIR:-$root/../shared}"
sessions="${BENCH_SESSIONS:-11000}"
work="$(mktemp -d)"
rea_pid=""
cleanup() {
  [ -n "$rea_pid" ] && kill -TERM "$rea_pid" 2>/dev/null && wait "$rea_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

rea="${1:-}"
if [ -z "$rea" ]; then
  (cd "$root" && cargo build --release -q -p rea)
  rea="${CARGO_TARGET_DIR:-$root/target}/release/rea"
fi

"$rea" inspect-web-network-capture "$shared/captures/json-server/build.har" har >"$work/js.capture.json"
printf '{"source": {"kind": "evidence-file", "path": "js.capture.json"}, "view": {"kind": "environment-manifest", "template_rules": []}}' >"$work/js.view.json"
(cd "$work" && "$rea" inspect-analysis-view js.view.json >js.manifest.json)

run() { # LABEL ENV...
  local label="$1"; shift
  env "$@" "$rea" environment-serve "$work/js.manifest.json" --evidence "$work/js.capture.json" --port 0 \
    >"$work/out" 2>"$work/err" &
  rea_pid=$!
  local url=""
  for _ in $(seq 200); do
    url="$(grep -o '"url":"[^"]*"' "$work/err" | head -1 | cut -d'"' -f4 || true)"
    [ -n "$url" ] && break; sleep 0.1
  done
  [ -n "$url" ] || { cat "$work/err" >&2; exit 1; }
  python3 - "$url" "$rea_pid" "$sessions" "$label" <<'PY'
import http.client, json, sys, threading, time
url, pid, n, label = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
host, port = url.split("//")[1].split("/")[0].rsplit(":", 1)
def rss():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
statuses, lock = {}, threading.Lock()
def worker(count):
    conn = http.client.HTTPConnection(host, int(port))
    for _ in range(count):
        conn.request("POST", "/mcp", body, headers)
        response = conn.getresponse(); response.read()
        with lock:
            statuses[response.status] = statuses.get(response.status, 0) + 1
before = rss()
threads = [threading.Thread(target=worker, args=(n // 16 + (i < n % 16),)) for i in range(16)]
started = time.time()
[t.start() for t in threads]; [t.join() for t in threads]
opened = rss()
elapsed = time.time() - started
time.sleep(30)
idle = rss()
print(f"{label:<34} {before:>8.1f} {opened:>12.1f} {idle:>14.1f}   {elapsed:5.1f}s  {dict(sorted(statuses.items()))}")
PY
  kill -TERM "$rea_pid"; wait "$rea_pid" 2>/dev/null || true; rea_pid=""
}

printf '%-34s %8s %12s %14s   %s\n' "run ($sessions initialize)" "RSS MiB" "after open" "after 30 s idle" "answers by status"
run "defaults (cap 256, idle 300 s)"
run "cap $sessions, idle 10 s" REA_MAX_SESSIONS="$sessions" REA_SESSION_IDLE_SECONDS=10
