#!/usr/bin/env bash
# Load benchmark of `rea environment-serve --replay-only`, next to json-server on the same machine in
# the same run.
#
#   host/crates/serve/bench/load.sh            # BENCH_DURATION=10 seconds per run by default
#   REA_BINARY=path/to/rea host/crates/serve/bench/load.sh   # that binary, nothing built
#   BENCH_CONCURRENCY="8 64" host/crates/serve/bench/load.sh  # only these concurrencies
#
# 1. Throughput and latency: `wrk` (Debian package; installed with apt-get when missing and root)
#    drives, at concurrency 1, 8 and 64 (BENCH_CONCURRENCY):
#    - rea, MCP `tools/call get_posts_by_id {"id": "1"}` over Streamable HTTP at the current
#      revision (2026-07-28: one stateless POST with its `_meta`, JSON reply);
#    - rea, the same call inside an initialize-based session, at each revision of
#      BENCH_SESSION_REVISIONS (default "2025-06-18 2025-11-25": `initialize`, then each call with
#      its `Mcp-Session-Id`, SSE reply);
#    - json-server 0.17.4 (npm, the version and seed data the json-server capture was recorded
#      from), plain `GET /posts/1`.
#    rea serves the manifest of the shared json-server capture (`build.har`). The session check
#    fails the bench when a session call is not answered by rea's fast path (the SDK's answer
#    carries SSE event ids and a priming event), so the figures are always the fast path's.
# 2. Memory: a synthetic capture with one endpoint and 1,500 query fields is inspected, projected
#    and served; 8 concurrent connections repeat discovery (`server/discover`, `tools/list` and the
#    card) for BENCH_DURATION seconds; the server's peak RSS (VmHWM) is read from /proc.
#
# Prints a table (with the 1-minute load average when each run ended: other work on the machine
# takes the cores the servers and wrk share, and the server's CPU time per answered request, its
# user and system time over the run from /proc divided by wrk's request count: on a busy machine
# the figure that moves least with the load) and the ratios; targets: rea tools/call, stateless and in a session, >= 10x
# json-server's GET throughput at concurrency 8 and 64, p99 < 5 ms at concurrency 64, peak RSS
# < 50 MiB. Everything binds 127.0.0.1.
#
# BENCH_PERF=DIR records the rea server with `perf record -e cpu-clock -F 999` during each rea
# run at concurrency 64 (DIR/perf-stateless.data, DIR/perf-session-REVISION.data; no call graphs) and
# prints the 15 symbols taking the most time of each.
#
# On a shared machine other work (compilers) preempts the servers and the load generator and
# dominates tail latency; BENCH_NICE (default -10 when run as root, else 0) runs both servers and
# wrk at that priority alike, so the comparison stays fair. Say BENCH_NICE=0 to measure without.
set -euo pipefail

root="$(cd "$(dirname "$0")/../../../.." && pwd)"
shared="${REA_SHARED_DIR:-$root/../shared}"
duration="${BENCH_DURATION:-10}"
concurrencies="${BENCH_CONCURRENCY:-1 8 64}"
if [ "$(id -u)" = 0 ]; then nice_level="${BENCH_NICE:--10}"; else nice_level="${BENCH_NICE:-0}"; fi
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

if ! command -v wrk >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq >/dev/null && apt-get install -y -qq wrk >/dev/null
  else
    echo "wrk is required (apt-get install wrk)" >&2; exit 1
  fi
fi
command -v npm >/dev/null || { echo "npm is required for json-server" >&2; exit 1; }

rea="${REA_BINARY:-}"
if [ -z "$rea" ]; then
  echo "building rea (release)..." >&2
  (cd "$root" && cargo build --release -q -p rea)
  rea="${CARGO_TARGET_DIR:-$root/target}/release/rea"
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# project CAPTURE_HAR NAME: writes $work/NAME.capture.json and $work/NAME.manifest.json
project() {
  "$rea" inspect-web-network-capture "$1" har >"$work/$2.capture.json"
  printf '{"source": {"kind": "evidence-file", "path": "%s.capture.json"}, "view": {"kind": "environment-manifest", "template_rules": []}}' \
    "$2" >"$work/$2.view.json"
  "$rea" inspect-analysis-view "$work/$2.view.json" >"$work/$2.manifest.json"
}

# serve NAME PORT: starts rea on the port, waits for its listening line, sets $rea_pid
serve() {
  nice -n "$nice_level" "$rea" environment-serve "$work/$1.manifest.json" --evidence "$work/$1.capture.json" --replay-only \
    --port "$2" >"$work/$1.out" 2>"$work/$1.err" &
  rea_pid=$!; pids+=("$rea_pid")
  for _ in $(seq 100); do grep -q 'MCP transport listening' "$work/$1.err" && return 0; sleep 0.1; done
  cat "$work/$1.err" >&2; return 1
}

meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}'
call_2026="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"get_posts_by_id\",\"arguments\":{\"id\":\"1\"},$meta}}"
call_2025='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_posts_by_id","arguments":{"id":"1"}}}'

# lua_post FILE BODY HEADER...: a wrk script sending one POST
lua_post() {
  local file="$1" body="$2"; shift 2
  {
    echo 'wrk.method = "POST"'
    printf 'wrk.body = [==[%s]==]\n' "$body"
    echo 'wrk.headers["Content-Type"] = "application/json"'
    echo 'wrk.headers["Accept"] = "application/json, text/event-stream"'
    for header in "$@"; do printf 'wrk.headers["%s"] = "%s"\n' "${header%%:*}" "${header#*: }"; done
  } >"$file"
}

to_ms() { # wrk latency text (12.3us, 1.2ms, 1.1s) -> milliseconds
  awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n = n; else if (v ~ /s$/) n *= 1000; printf "%.3f", n }'
}

# cpu_ticks PID: the process's user and system time so far, in clock ticks
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
ticks_per_second="$(getconf CLK_TCK)"

# run LABEL CONCURRENCY URL [wrk args...]: prints "LABEL c rps p50 p99 load cpu-us/request errors"
# for the server $server_pid
run() {
  local label="$1" c="$2" url="$3"; shift 3
  local threads=$(( c < 2 ? 1 : 2 ))
  local out="$work/wrk-$(echo "$label" | tr -c 'A-Za-z0-9\n' '_')-$c.txt"
  local profile="" perf_pid=""
  if [ -n "${BENCH_PERF:-}" ] && [ "$c" = 64 ] && [ -n "${perf_name:-}" ]; then
    profile="$BENCH_PERF/perf-$perf_name.data"
    perf record -q -e cpu-clock -F 999 -p "$mcp_pid" -o "$profile" -- sleep "$duration" >/dev/null 2>&1 &
    perf_pid=$!
  fi
  local ticks_before ticks_after
  ticks_before="$(cpu_ticks "$server_pid")"
  nice -n "$nice_level" wrk -t"$threads" -c"$c" -d"${duration}s" --latency "$@" "$url" >"$out"
  ticks_after="$(cpu_ticks "$server_pid")"
  [ -z "$perf_pid" ] || wait "$perf_pid" || true
  local rps p50 p99 errors cpu
  rps="$(awk '/^Requests\/sec:/ { print $2 }' "$out")"
  p50="$(to_ms "$(awk '$1 == "50%" { print $2 }' "$out")")"
  p99="$(to_ms "$(awk '$1 == "99%" { print $2 }' "$out")")"
  errors="$(awk '/Non-2xx/ { print "non-2xx:" $NF } /Socket errors/ { gsub(/ /, ""); print }' "$out" | tr '\n' ' ')"
  cpu="$(awk -v t="$((ticks_after - ticks_before))" -v hz="$ticks_per_second" -v n="$(awk '/requests in/ { print $1 }' "$out")" \
    'BEGIN { printf "%.1f", (n > 0 ? t / hz * 1e6 / n : 0) }')"
  last_rps="$rps"
  printf '%-36s %4s %12s %10s %10s %6s %9s  %s\n' "$label" "$c" "$rps" "$p50" "$p99" "$(cut -d' ' -f1 /proc/loadavg)" "$cpu" "${errors:-none}"
  [ -z "$profile" ] || profiles+=("$profile")
}
profiles=()
[ -z "${BENCH_PERF:-}" ] || mkdir -p "$BENCH_PERF"

# ---------------------------------------------------------------- throughput

echo "projecting the json-server capture..." >&2
project "$shared/captures/json-server/build.har" json-server
rea_port="$(free_port)"
serve json-server "$rea_port"
mcp_pid="$rea_pid"
mcp="http://127.0.0.1:$rea_port/mcp"

check="$(curl -s "$mcp" -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
  -H 'mcp-protocol-version: 2026-07-28' -H 'mcp-method: tools/call' -H 'mcp-name: get_posts_by_id' -d "$call_2026")"
echo "$check" | grep -q '"isError":false' || { echo "unexpected MCP answer: $check" >&2; exit 1; }

session_revisions="${BENCH_SESSION_REVISIONS:-2025-06-18 2025-11-25}"
# open_session REVISION: initializes a session at the revision, checks that its call is answered by
# rea's fast path, and writes the wrk script $work/call-REVISION.lua calling inside it
open_session() {
  local revision="$1" init session check
  init="{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"$revision\",\"capabilities\":{},\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}}"
  session="$(curl -s -D - -o /dev/null "$mcp" -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' -d "$init" \
    | awk 'tolower($1) == "mcp-session-id:" { print $2 }' | tr -d '\r')"
  curl -s -o /dev/null "$mcp" -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
    -H "mcp-session-id: $session" -H "mcp-protocol-version: $revision" -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  check="$(curl -s "$mcp" -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
    -H "mcp-session-id: $session" -H "mcp-protocol-version: $revision" -d "$call_2025")"
  echo "$check" | grep -q '"isError":false' || { echo "unexpected MCP session answer at $revision: $check" >&2; exit 1; }
  if grep -q '^id:' <<<"$check"; then
    echo "the session call at $revision was answered by the SDK, not rea's fast path: $check" >&2; exit 1
  fi
  lua_post "$work/call-$revision.lua" "$call_2025" "MCP-Protocol-Version: $revision" "Mcp-Session-Id: $session"
}
for revision in $session_revisions; do open_session "$revision"; done

lua_post "$work/call-2026.lua" "$call_2026" "MCP-Protocol-Version: 2026-07-28" "Mcp-Method: tools/call" "Mcp-Name: get_posts_by_id"

echo "installing json-server 0.17.4..." >&2
mkdir -p "$work/json-server"
cp "$shared/kit/apps/json-server/package.json" "$shared/kit/apps/json-server/package-lock.json" "$work/json-server/"
cp "$shared/kit/apps/json-server/seed/db.json" "$work/json-server/db.json"
chmod u+w "$work/json-server/"*
(cd "$work/json-server" && npm ci --silent --no-audit --no-fund >/dev/null 2>&1)
js_port="$(free_port)"
(cd "$work/json-server" && exec nice -n "$nice_level" node_modules/.bin/json-server db.json --host 127.0.0.1 --port "$js_port" --quiet) \
  >"$work/json-server.log" 2>&1 &
js_pid="$!"; pids+=("$js_pid")
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$js_port/posts/1" >/dev/null && break; sleep 0.1; done
curl -fs "http://127.0.0.1:$js_port/posts/1" | grep -q '"id": 1' || { echo "json-server did not start" >&2; exit 1; }

echo
echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg); wrk ${duration}s per run; nice $nice_level"
printf '%-36s %4s %12s %10s %10s %6s %9s  %s\n' "target" "c" "req/s" "p50 ms" "p99 ms" "load" "cpu µs/req" "errors"
declare -A rps_of
for c in $concurrencies; do
  server_pid="$mcp_pid"
  perf_name=stateless run "rea tools/call (2026-07-28)" "$c" "$mcp" -s "$work/call-2026.lua"; rps_of["rea-$c"]="$last_rps"
  for revision in $session_revisions; do
    perf_name="session-$revision" run "rea tools/call ($revision session)" "$c" "$mcp" -s "$work/call-$revision.lua"
    rps_of["session-$revision-$c"]="$last_rps"
  done
  server_pid="$js_pid" run "json-server GET /posts/1" "$c" "http://127.0.0.1:$js_port/posts/1"; rps_of["js-$c"]="$last_rps"
done
for c in $concurrencies; do
  sessions=""
  for revision in $session_revisions; do
    sessions+="$(awk -v s="${rps_of[session-$revision-$c]}" -v b="${rps_of[js-$c]}" -v r="$revision" \
      'BEGIN { printf ", %.1fx in a %s session", s / b, r }')"
  done
  awk -v a="${rps_of[rea-$c]}" -v b="${rps_of[js-$c]}" -v c="$c" -v sessions="$sessions" \
    'BEGIN { printf "ratio rea/json-server at c=%s: %.1fx stateless%s\n", c, a / b, sessions }'
done
for profile in "${profiles[@]}"; do
  echo
  echo "rea at c=64, most time by symbol (self, no call graphs): $profile"
  perf report -i "$profile" --stdio --no-children --sort symbol 2>/dev/null | grep -v '^#' | grep -v '^$' | head -15 | cut -c1-150 || true
done

# ---------------------------------------------------------------- memory

echo
echo "synthesizing a capture with 1,500 query fields..." >&2
python3 - "$work/wide.har" <<'EOF'
import json, sys
fields = [f"filter_field_{i:04d}" for i in range(1500)]
entries = []
for chunk in range(15):  # 15 recorded calls of one endpoint, 100 distinct query fields each
    names = fields[chunk * 100:(chunk + 1) * 100]
    query = "&".join(f"{name}=v{chunk}" for name in names)
    body = json.dumps({"items": [{"id": chunk, "name": f"item {chunk}"}], "total": 1})
    entries.append({
        "startedDateTime": "2026-01-01T00:00:00.000Z", "time": 1,
        "request": {"method": "GET", "url": f"http://127.0.0.1:8080/api/search?{query}", "httpVersion": "HTTP/1.1",
                    "headers": [], "queryString": [{"name": n, "value": f"v{chunk}"} for n in names],
                    "cookies": [], "headersSize": -1, "bodySize": 0},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                     "headers": [{"name": "Content-Type", "value": "application/json"}], "cookies": [],
                     "content": {"size": len(body), "mimeType": "application/json", "text": body},
                     "redirectURL": "", "headersSize": -1, "bodySize": len(body)},
        "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0},
    })
json.dump({"log": {"version": "1.2", "creator": {"name": "bench", "version": "1"}, "entries": entries}}, open(sys.argv[1], "w"))
EOF
project "$work/wide.har" wide
wide_port="$(free_port)"
serve wide "$wide_port"
wide_pid="$rea_pid"
base="http://127.0.0.1:$wide_port"
fields="$(curl -s "$base/.well-known/agent-env.json" | python3 -c 'import json,sys; c=json.load(sys.stdin); print(sum(len(t["inputSchema"]["properties"]) for t in c["capabilities"]["tools"]))')"
card_bytes="$(curl -s "$base/.well-known/agent-env.json" | wc -c)"
startup_kib="$(awk '/VmRSS/ { print $2 }' "/proc/$wide_pid/status")"
cat >"$work/discover.lua" <<EOF
local bodies = {
  '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{$meta}}',
  '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{$meta}}',
}
local methods = {"server/discover", "tools/list"}
local n = 0
request = function()
  n = n + 1
  local k = n % 3
  if k == 0 then
    return wrk.format("GET", "/.well-known/agent-env.json")
  end
  return wrk.format("POST", "/mcp", {
    ["Content-Type"] = "application/json",
    ["Accept"] = "application/json, text/event-stream",
    ["MCP-Protocol-Version"] = "2026-07-28", ["Mcp-Method"] = methods[k]
  }, bodies[k])
end
EOF
printf '%-36s %4s %12s %10s %10s %6s %9s  %s\n' "target" "c" "req/s" "p50 ms" "p99 ms" "load" "cpu µs/req" "errors"
server_pid="$wide_pid" run "rea discovery, 1,500 query fields" 8 "$base/" -s "$work/discover.lua"
peak_kib="$(awk '/VmHWM/ { print $2 }' "/proc/$wide_pid/status")"
echo "catalog: $fields input fields, card $card_bytes bytes"
awk -v s="$startup_kib" -v p="$peak_kib" 'BEGIN { printf "rea RSS: %.1f MiB after startup, peak %.1f MiB under 8 concurrent discovery connections\n", s / 1024, p / 1024 }'
