#!/usr/bin/env bash
# The size of the `rea` a bundle ships (issue 14: at most 30 MB). Builds a bundle of the README's
# quick-start capture with the release binary and prints the binary's size, the bundled `bin/rea`'s
# size, the sections left in it (what takes the room) and the ratio; exits 1 when `bin/rea` is over
# the bound. A release build takes long, so this is a benchmark script, not a timed test
# (host/crates/bundle/src/strip.rs's tests check what stripping removes).
#
#   host/crates/bundle/bench/binary_size.sh [REA_BINARY]     # default: builds and uses the release binary
#
# Nothing leaves the machine.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
bound=$((30 * 1000 * 1000))

rea="${1:-}"
if [ -z "$rea" ]; then
  (cd "$root" && cargo build -q --release -p rea)
  rea="${CARGO_TARGET_DIR:-$root/target}/release/rea"
fi

"$rea" environment-build "$root/examples/captures/json-server.har" "$work/bundle" --name json-server --quiet >/dev/null
bundled="$work/bundle/envs/json-server/bin/rea"
source_bytes="$(stat -c %s "$rea")"
bundled_bytes="$(stat -c %s "$bundled")"
echo "$("$rea" --version | head -1): $source_bytes bytes; bundled bin/rea: $bundled_bytes bytes ($(python3 -c "print(f'{$bundled_bytes / 1e6:.1f} MB, {100 * $bundled_bytes / $source_bytes:.1f}% of the build')"))"
echo "largest sections of bin/rea:"
size -A "$bundled" | sort -k2 -n -r | sed -n '2,9p'
if [ "$bundled_bytes" -gt "$bound" ]; then
  echo "FAIL: bin/rea is $bundled_bytes bytes, over the bound of $bound"
  exit 1
fi
echo "ok: bin/rea is within $bound bytes"
