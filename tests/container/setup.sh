#!/usr/bin/env bash
# Installs what tests/container/run.sh needs (issue 17: a bundle's Dockerfile built and run to
# `/ready`): Podman with runc (Debian packages; .ci/run installs them) and the bundles' base image
# `debian:bookworm-slim`. The base image is pulled from its registry when that answers; where it
# does not (these machines reach Debian's package mirror but not Docker Hub) the same Debian
# release is bootstrapped from the package mirror (`debootstrap --variant=minbase`) and imported
# under the base image's name. Runs once: an image already present is kept.
set -euo pipefail
base="docker.io/library/debian:bookworm-slim"
for tool in podman runc; do
  command -v "$tool" >/dev/null || { echo "$tool is missing (apt-get install podman runc)" >&2; exit 1; }
done
if podman image exists "$base"; then
  echo "base image $base present"
  exit 0
fi
if timeout 120 podman pull -q "$base" >/dev/null 2>&1; then
  echo "base image $base pulled"
  exit 0
fi
command -v debootstrap >/dev/null || { echo "debootstrap is missing (apt-get install debootstrap)" >&2; exit 1; }
rootfs="$(mktemp -d "${TMPDIR:-/tmp}/rea-base-rootfs.XXXXXX")"
trap 'rm -rf "$rootfs"' EXIT
debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >"$rootfs.log" 2>&1 \
  || { tail -20 "$rootfs.log" >&2; rm -f "$rootfs.log"; exit 1; }
rm -f "$rootfs.log"
# debootstrap leaves its package cache behind; the registry's slim image has none.
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
tar -C "$rootfs" -c . | podman import -q - "$base" >/dev/null
echo "base image $base bootstrapped from the Debian mirror"
