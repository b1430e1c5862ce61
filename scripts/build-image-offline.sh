#!/usr/bin/env bash
# Builds the Dockerfile on a machine that cannot pull images (npm run test:image runs it): a stand-in for
# node:20-slim is made from Debian's packages (debootstrap, bookworm minbase, as node:20-slim is bookworm)
# with this machine's Node 20 and npm in /usr/local and the user node (1000:1000), imported with podman,
# and the Dockerfile is built on it with podman build --build-arg NODE_IMAGE=…, unchanged otherwise.
#
# Needs root, debootstrap and podman (apt-get install debootstrap podman), and deb.debian.org and the npm
# registry reachable. The root file system is kept in $TOOLGATE_IMAGE_CACHE (default
# /var/tmp/toolgate-image-base) so that a second run skips debootstrap.
#
#   scripts/build-image-offline.sh [TAG]     (default localhost/toolgate:test)
set -euo pipefail
cd "$(dirname "$0")/.."
tag="${1:-localhost/toolgate:test}"
base_tag="localhost/toolgate-node-base:20"
cache="${TOOLGATE_IMAGE_CACHE:-/var/tmp/toolgate-image-base}"

for tool in debootstrap podman node; do
  command -v "$tool" >/dev/null || { echo "build-image-offline: $tool is missing (apt-get install $tool)" >&2; exit 3; }
done
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$node_major" = 20 ] || { echo "build-image-offline: this machine's Node is $(node -v), the image needs 20" >&2; exit 3; }

rootfs="$cache/rootfs"
if [ ! -e "$cache/debootstrap.done" ]; then
  rm -rf "$rootfs"
  mkdir -p "$cache"
  debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >"$cache/debootstrap.log" 2>&1 ||
    { tail -20 "$cache/debootstrap.log" >&2; exit 1; }
  touch "$cache/debootstrap.done"
fi

# The stand-in is made once (TOOLGATE_IMAGE_REBASE=1 makes it again), so podman's layer cache keeps the
# build stage's npm ci between runs.
if [ "${TOOLGATE_IMAGE_REBASE:-0}" = 1 ] || ! podman image exists "$base_tag"; then
  # Node and npm where node:20-slim has them, and its user.
  node_bin="$(readlink -f "$(command -v node)")"
  npm_dir="$(dirname "$(readlink -f "$(command -v npm)")")/.."
  install -D -m 0755 "$node_bin" "$rootfs/usr/local/bin/node"
  rm -rf "$rootfs/usr/local/lib/node_modules/npm"
  mkdir -p "$rootfs/usr/local/lib/node_modules"
  cp -a "$(readlink -f "$npm_dir")" "$rootfs/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  grep -q '^node:' "$rootfs/etc/group" || echo 'node:x:1000:' >>"$rootfs/etc/group"
  grep -q '^node:' "$rootfs/etc/passwd" || echo 'node:x:1000:1000::/home/node:/bin/bash' >>"$rootfs/etc/passwd"
  mkdir -p "$rootfs/home/node" && chown 1000:1000 "$rootfs/home/node"
  rm -rf "$rootfs/var/cache/apt/archives/"*.deb "$rootfs/var/lib/apt/lists/"*
  # The build stage's npm ci must trust what this machine trusts (an egress proxy may sign with its own CA):
  # the stand-in base gets this machine's CA bundle, where Debian's ca-certificates puts it.
  ca_bundle="${NODE_EXTRA_CA_CERTS:-${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}}"
  ca_env=()
  if [ -r "$ca_bundle" ]; then
    install -D -m 0644 "$ca_bundle" "$rootfs/etc/ssl/certs/ca-certificates.crt"
    ca_env=(--change 'ENV=NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt')
  fi

  tar -C "$rootfs" -c . | podman import \
    --change 'ENV=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    "${ca_env[@]}" --change 'CMD=["node"]' - "$base_tag" >/dev/null
fi

# chroot isolation: the build's RUN steps run without an OCI runtime, which fails here (crun cannot set
# rlimits in this sandbox). --format docker keeps HEALTHCHECK (the OCI format has no such field).
podman build --isolation chroot --format docker --pull=never \
  --build-arg "NODE_IMAGE=$base_tag" -t "$tag" . >&2
echo "$tag"
