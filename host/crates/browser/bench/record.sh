#!/usr/bin/env bash
# Benchmark of `rea capture-browser-scenario`: recording overhead per request and peak RSS for a
# 500-request scenario in Chromium, beside the HAR extractor's figures for the same traffic.
#
#   host/crates/browser/bench/record.sh [REA_BINARY]     # default: target/release/rea (built)
#
# json-server (the browser test kit's, tests/browser/setup.sh) runs behind the corpus kit's
# mitmproxy as a reverse proxy, so one session gives both captures: the scenario's Evidence and a
# HAR of the same requests. Figures (wall time and peak RSS from GNU time, median of BENCH_RUNS):
#   - an empty scenario (launch, start page, close): the fixed cost;
#   - the 500-request scenario: (its time - the fixed cost) / 500 is the per-request cost of
#     driving and recording (fetch through the page, events, bodies, extraction, sealing);
#   - the browser-scenario extractor alone on the recorded session (`inspect-web-network-capture
#     SESSION browser-scenario`), per record;
#   - the HAR extractor on the HAR of the same traffic (`inspect-web-network-capture HAR har`),
#     per record; and the ratios. Nothing leaves the machine (loopback only).
set -euo pipefail

root="$(cd "$(dirname "$0")/../../../.." && pwd)"
runs="${BENCH_RUNS:-3}"
requests="${BENCH_REQUESTS:-500}"
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -INT "-$pid" 2>/dev/null || true; done
  sleep 1
  for pid in "${pids[@]}"; do kill -KILL "-$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

rea="${1:-}"
if [ -z "$rea" ]; then
  (cd "$root" && cargo build -q --release -p rea)
  rea="${CARGO_TARGET_DIR:-$root/target}/release/rea"
fi
kit="${CARGO_TARGET_DIR:-$root/target}/tmp/browser-kit"
bash "$root/tests/browser/setup.sh" "$kit" >/dev/null

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 1 200); do (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }

app_port="$(free_port)"
mkdir -p "$work/app"
cp "$kit/json-server/seed/db.json" "$work/app/db.json"
# `exec`, so the background job's pid is json-server's own and, after setsid, its process group:
# cleanup signals the whole group (a pid read from inside a subshell named its parent instead, and
# json-server outlived the bench).
(cd "$work/app" && exec setsid node "$kit/json-server/node_modules/json-server/lib/cli/bin.js" db.json \
  --host 127.0.0.1 --port "$app_port" >"$work/app.log" 2>&1) &
pids+=("$!")
wait_port "$app_port"

# One session through the recorder: the scenario's Evidence and the HAR of the same traffic.
proxy_port="$(free_port)"
setsid "$root/tests/corpus/kit/.venv/bin/mitmdump" --mode "reverse:http://127.0.0.1:$app_port" \
  --listen-host 127.0.0.1 -p "$proxy_port" --set "hardump=$work/session.har" \
  --set keep_host_header=true --set connection_strategy=lazy --set termlog_verbosity=warn \
  --set flow_detail=0 >"$work/proxy.log" 2>&1 &
proxy_pid=$!
pids+=("$proxy_pid")
wait_port "$proxy_port"

python3 - "$work" "$proxy_port" "$app_port" "$requests" <<'PY'
import json, sys
work, proxy, app, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def scenario(port, steps):
    return {
        "browser": {"mode": "launch", "executable_path": "/usr/bin/chromium"},
        "start_url": {"url": f"http://127.0.0.1:{port}/db", "query": []},
        "actions": steps,
        "capture": {"events": ["network"],
                    "network": {"request_body": True, "response_body": True, "header_values": True}},
    }
paths = ["/posts", "/posts/1", "/comments?postId=1", "/users/2", "/profile"]
steps = [{"step_id": f"r{i}", "action": "request", "method": "GET", "path": paths[i % len(paths)],
          "expected_status": [200]} for i in range(count - 1)]
json.dump(scenario(proxy, steps), open(f"{work}/recorded.json", "w"))
json.dump(scenario(app, steps), open(f"{work}/direct.json", "w"))
json.dump(scenario(app, []), open(f"{work}/empty.json", "w"))
PY

"$rea" capture-browser-scenario "$work/recorded.json" >"$work/recorded.capture.json"
kill -INT "$proxy_pid"
for _ in $(seq 1 100); do [ -s "$work/session.har" ] && break; sleep 0.1; done
sleep 1
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); open(sys.argv[2],"w").write(json.dumps(d["container"]))' \
  "$work/recorded.capture.json" "$work/session.json"

# measure NAME ARGS...: median wall seconds, and the largest peak RSS (KiB) of the command's own
# process (VmHWM, read while it runs) and of it with the browser it waits for (GNU time's maximum
# resident set of the command and the children it reaped), over the runs.
measure() {
  local name="$1"; shift
  : >"$work/$name.times"
  for _ in $(seq 1 "$runs"); do
    python3 - "$work/$name.one" "$@" <<'PY' >>"$work/$name.times"
import subprocess, sys, time
out, argv = sys.argv[1], sys.argv[2:]
started = time.monotonic()
child = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", out] + argv, stdout=subprocess.DEVNULL)
own, command = 0, None
while child.poll() is None:
    try:
        if command is None:
            kids = open(f"/proc/{child.pid}/task/{child.pid}/children").read().split()
            command = kids[0] if kids else None
        if command:
            for line in open(f"/proc/{command}/status"):
                if line.startswith("VmHWM:"):
                    own = max(own, int(line.split()[1]))
    except OSError:
        pass
    time.sleep(0.02)
wall = time.monotonic() - started
with_children = int(open(out).read().split()[-1])
print(f"{wall:.3f} {own} {with_children}")
PY
  done
  sort -n "$work/$name.times" | awk -v n="$runs" 'NR==int((n+1)/2){w=$1} {if($2>m)m=$2; if($3>c)c=$3} END{print w, m, c}'
}

read -r empty_s empty_kb empty_all < <(measure empty "$rea" capture-browser-scenario "$work/empty.json")
read -r full_s full_kb full_all < <(measure full "$rea" capture-browser-scenario "$work/direct.json")
read -r plugin_s plugin_kb _ < <(measure plugin "$rea" inspect-web-network-capture "$work/session.json" browser-scenario)
read -r har_s har_kb _ < <(measure har "$rea" inspect-web-network-capture "$work/session.har" har)
records="$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["records"]))' "$work/recorded.capture.json")"
har_records="$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["log"]["entries"]))' "$work/session.har")"

python3 - "$requests" "$records" "$har_records" "$empty_s" "$empty_kb" "$full_s" "$full_kb" \
  "$plugin_s" "$plugin_kb" "$har_s" "$har_kb" "$runs" "$empty_all" "$full_all" <<'PY'
import sys
(requests, records, har_records, empty_s, empty_kb, full_s, full_kb,
 plugin_s, plugin_kb, har_s, har_kb, runs, empty_all, full_all) = sys.argv[1:]
empty_all, full_all = int(empty_all), int(full_all)
requests, records, har_records, runs = int(requests), int(records), int(har_records), int(runs)
empty_s, full_s, plugin_s, har_s = map(float, (empty_s, full_s, plugin_s, har_s))
empty_kb, full_kb, plugin_kb, har_kb = map(int, (empty_kb, full_kb, plugin_kb, har_kb))
per_request = (full_s - empty_s) / max(requests, 1) * 1000
print(f"capture-browser-scenario, {requests}-request scenario (median of {runs}; records {records}, HAR entries {har_records})")
print(f"  {'':44} {'wall':>9} {'peak RSS':>10} {'per request/record':>19}")
print(f"  {'empty scenario (launch, start page, close)':44} {empty_s:8.2f}s {empty_kb/1024:8.1f}MiB   (with the browser's main process: {empty_all/1024:.1f} MiB)")
print(f"  {str(requests) + '-request scenario':44} {full_s:8.2f}s {full_kb/1024:8.1f}MiB {per_request:15.2f} ms   (with the browser's main process: {full_all/1024:.1f} MiB)")
print(f"  {'browser-scenario extractor on the session':44} {plugin_s:8.2f}s {plugin_kb/1024:8.1f}MiB {plugin_s/max(records,1)*1e6:15.1f} us")
print(f"  {'HAR extractor on the same traffic':44} {har_s:8.2f}s {har_kb/1024:8.1f}MiB {har_s/max(har_records,1)*1e6:15.1f} us")
print(f"ratios: recording per request / HAR extraction per record = {per_request*1000/(har_s/max(har_records,1)*1e6):.0f}x; "
      f"scenario peak RSS / HAR extraction peak RSS = {full_kb/max(har_kb,1):.2f}x; "
      f"extractors per record (scenario / HAR) = {(plugin_s/max(records,1))/(har_s/max(har_records,1)):.2f}x")
PY
