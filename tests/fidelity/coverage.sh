#!/usr/bin/env bash
# Coverage per corpus app: what the environment built from each app's build.har serves from the
# state and what it withholds, from `rea environment-build build.har DIR --dry-run --json`
# (nothing is written). Prints a Markdown table (README.md's "Coverage" table is this output):
# tools, reads answered from the state or from recordings, writes served or withheld, and the
# withheld writes' reasons; and the writes and reads an opt-in sibling transfer (`[manifest]
# sibling_transfer = true`, a second dry run with the default pipeline plus that key) adds as
# inferred tools.
#
#   tests/fidelity/coverage.sh [REA_BINARY]     # default: target/debug/rea (built)
set -euo pipefail
cd "$(dirname "$0")/../.."
rea="${1:-}"
if [ -z "$rea" ]; then
  cargo build -q --locked -p rea --bin rea
  rea="${CARGO_TARGET_DIR:-target}/debug/rea"
fi
shared="${REA_SHARED_DIR:-$(pwd)/../shared}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir "$work/sibling"
sed 's/^route_forms = \(.*\)$/route_forms = \1\nsibling_transfer = true/' \
  host/crates/pipeline/src/default.toml >"$work/sibling/pipeline.toml"
grep -q '^sibling_transfer = true$' "$work/sibling/pipeline.toml"

for app in "$shared"/captures/*/ tests/corpus/apps/*/; do
  [ -f "$app/build.har" ] || continue
  name="$(basename "$app")"
  "$rea" environment-build "$app/build.har" "$work/$name" --dry-run --json 2>/dev/null \
    >"$work/$name.json"
  "$rea" environment-build "$app/build.har" "$work/sibling/$name" --dry-run --json \
    --pipeline "$work/sibling/pipeline.toml" 2>/dev/null >"$work/sibling/$name.json"
done

python3 - "$work" <<'PY'
import json, pathlib, sys
from collections import Counter
rows = []
for path in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    report = json.loads(path.read_text())
    coverage = report["coverage"]
    reads, writes = coverage["reads"], coverage["writes"]
    reasons = Counter(item["reason"] for item in writes["withheld"])
    why = ", ".join(f"{reason} {count}" for reason, count in sorted(reasons.items()))
    sibling = json.loads((path.parent / "sibling" / path.name).read_text())
    inferred = [
        f"{item['tool']} (from {item['inferred_from']})"
        for item in sibling["coverage"]["writes"]["served"]
        + sibling["coverage"]["reads"].get("inferred", [])
        if "inferred_from" in item
    ]
    rows.append(
        f"| {path.stem} | {report['tool_count']} | {reads['state']} | {reads['recorded']} "
        f"| {len(writes['served'])} | {len(writes['withheld'])} | {why or '-'} "
        f"| {len(inferred)}{': ' + ', '.join(inferred) if inferred else ''} |"
    )
print("| app | tools | reads from the state | reads from recordings | writes served | writes withheld | withheld because | inferred with sibling transfer on |")
print("| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |")
print("\n".join(rows))
PY
