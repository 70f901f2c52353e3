#!/usr/bin/env bash
# deploy/kubernetes/ checked offline (issue 17): every manifest validates strictly
# (kubernetes-validate, its bundled schemas: unknown fields and wrong types are refused) and agrees
# with the image a bundle's Dockerfile builds (tests/deploy/check.py: port, user, /ready probe with
# an allowed Host, Service selector and target port, the Service's names allowed); a manifest with
# a misspelled field is refused, so the validator is known to validate.
#
#   tests/deploy/run.sh REA_BINARY
#
# kubernetes-validate comes from REA_TOOLS_VENV (.ci/run installs it there) or is installed into a
# temporary venv. Prints one line per check and `N passed, M failed`; exits 1 when any failed.
set -uo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
rea="${1:?usage: tests/deploy/run.sh REA_BINARY}"
shared="${REA_SHARED_DIR:-$root/../shared}"
work="$(mktemp -d "${TMPDIR:-/tmp}/rea-deploy.XXXXXX")"
trap 'rm -rf "$work"' EXIT
passed=0; failed=0
step() { # step STATUS NAME DETAIL
  if [ "$1" -eq 0 ]; then passed=$((passed + 1)); echo "PASS $2 ${3:-}"; else failed=$((failed + 1)); echo "FAIL $2 ${3:-}"; fi
}

venv="${REA_TOOLS_VENV:-$work/venv}"
if [ ! -x "$venv/bin/kubernetes-validate" ]; then
  python3 -m venv "$venv" && "$venv/bin/pip" install -q kubernetes-validate==1.37.0
fi
step $? tools.kubernetes-validate "$venv"

manifests=("$root"/deploy/kubernetes/*.yaml)
[ "${#manifests[@]}" -ge 2 ]; step $? manifests.present "${#manifests[@]} files"
for manifest in "${manifests[@]}"; do
  out="$("$venv/bin/kubernetes-validate" --strict --no-warn "$manifest" 2>&1)"
  step $? "validate.$(basename "$manifest")" "$(echo "$out" | tail -1)"
done

sed 's/periodSeconds:/periodSecond:/' "$root/deploy/kubernetes/deployment.yaml" >"$work/misspelled.yaml"
out="$("$venv/bin/kubernetes-validate" --strict --no-warn "$work/misspelled.yaml" 2>&1)"
[ $? -ne 0 ] && grep -q "periodSecond" <<<"$out"; step $? validate.refuses-a-misspelled-field "$(echo "$out" | tail -1 | cut -c1-160)"

# The image the manifests run: a bundle's Dockerfile (a stand-in bundled binary keeps it small).
printf '#!/bin/sh\necho stand-in rea\n' >"$work/stand-in"
"$rea" environment-build "$shared/captures/json-server/build.har" "$work/bundle" --name json-server \
  --binary "$work/stand-in" --json >"$work/build.json" 2>"$work/build.err"
step $? bundle.build "$(tail -1 "$work/build.err")"
"$venv/bin/python" "$root/tests/deploy/check.py" "$root/deploy/kubernetes" "$work/bundle/envs/json-server/Dockerfile"
step $? manifests.agree-with-the-image

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
