#!/usr/bin/env bash
# End-to-end benchmark of `rea environment-build`: wall time and peak RSS of one build (inspect, manifest, state,
# prediction, credential scan, write with read-back verification) for each shared capture's build.har and for a
# synthetic capture of 32 MiB (the HAR budget), with the release binary.
#
#   host/crates/bundle/bench/build.sh [REA_BINARY]     # BENCH_RUNS=3 runs per capture by default
#
# Each run is a fresh process writing a fresh bundle (the bundle carries the running binary, so its copy and
# verification are part of the figure); the table gives the median wall time and the largest peak RSS
# (ru_maxrss of the child) of the runs, and the same for `--dry-run` (every stage, nothing written). Nothing
# leaves the machine.
set -euo pipefail

root="$(cd "$(dirname "$0")/../../../.." && pwd)"
shared="${REA_SHARED_DIR:-$root/../shared}"
runs="${BENCH_RUNS:-3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

rea="${1:-}"
if [ -z "$rea" ]; then
  (cd "$root" && cargo build -q --release -p rea)
  rea="${CARGO_TARGET_DIR:-$root/target}/release/rea"
fi

# A synthetic capture just under 32 MiB: a list and an item read per entity, JSON bodies, on a remote origin.
python3 "$root/host/crates/bundle/bench/synthetic_har.py" 32 "$work/synthetic-32mib.har"

measure() { # measure LABEL ARGS...: prints "median_seconds max_rss_mib" over $runs fresh processes
  local label="$1"; shift
  python3 - "$runs" "$work/out-$label" "$@" <<'EOF'
import os, resource, shutil, statistics, subprocess, sys, time
runs, out, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
times, peaks = [], []
for run in range(runs):
    target = "%s-%d" % (out, run)
    args = [a.replace("@DIR@", target) for a in argv]
    start = time.monotonic()
    child = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    times.append(time.monotonic() - start)
    peaks.append(usage.ru_maxrss / 1024)
    if status != 0:
        sys.exit("run failed: %s" % " ".join(args))
    shutil.rmtree(target, ignore_errors=True)
print("%.2f %.1f" % (statistics.median(times), max(peaks)))
EOF
}

binary_mib="$(python3 -c 'import os,sys; print("%.1f" % (os.path.getsize(sys.argv[1]) / 1048576))' "$rea")"
echo "rea environment-build, release binary ($binary_mib MiB, copied into each bundle), $runs runs each"
printf '%-22s %9s %8s %6s %10s %9s %10s %9s\n' capture "HAR MiB" records tools "build s" "RSS MiB" "dry-run s" "RSS MiB"
for har in "$shared"/captures/*/build.har "$work/synthetic-32mib.har"; do
  [ -f "$har" ] || continue
  case "$har" in */build.har) label="$(basename "$(dirname "$har")")" ;; *) label="synthetic-32mib" ;; esac
  report="$("$rea" environment-build "$har" --name bench --dry-run --json 2>/dev/null)"
  read -r records tools < <(python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print(r["capture"]["records"], r["tool_count"])' "$report")
  read -r build_s build_rss < <(measure "$label" "$rea" environment-build "$har" @DIR@ --name bench --json)
  read -r dry_s dry_rss < <(measure "$label-dry" "$rea" environment-build "$har" --name bench --dry-run --json)
  mib="$(python3 -c 'import os,sys; print("%.2f" % (os.path.getsize(sys.argv[1]) / 1048576))' "$har")"
  printf '%-22s %9s %8s %6s %10s %9s %10s %9s\n' "$label" "$mib" "$records" "$tools" "$build_s" "$build_rss" "$dry_s" "$dry_rss"
done
