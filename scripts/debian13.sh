#!/usr/bin/env bash
# debian13.sh <command...>: runs <command> in this checkout inside a Debian 13 (trixie) root, whose
# libdeal.ii-dev is deal.II 9.6 (Debian 12 has 9.4). The root is made from Debian's registry with
# mmdebstrap at the first call (about 3 minutes) and kept for later calls in $GPUMF_DEBIAN13_ROOT
# (default /var/lib/gpumf/debian13); a call installs what the package list below adds since.
# The checkout, CUDA (/usr/local/cuda-13.0, where installed), ccache's folder, /proc, /sys and /dev are
# bind-mounted into the root for the command and unmounted after it. Needs root (or sudo).
#
#   scripts/debian13.sh bash -c 'cmake -S . -B build-debian13 -G Ninja && cmake --build build-debian13'
set -euo pipefail
cd "$(dirname "$0")/.."
root=${GPUMF_DEBIAN13_ROOT:-/var/lib/gpumf/debian13}
packages=(libdeal.ii-dev libdeal.ii-doc libboost-context-dev cmake ninja-build g++ binutils-gold python3
          openmpi-bin ccache)
mirror=${GPUMF_DEBIAN_MIRROR:-http://deb.debian.org/debian}
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo

if [ ! -x "$root/usr/bin/apt-get" ]; then
  if ! command -v mmdebstrap >/dev/null; then
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends mmdebstrap
  fi
  echo "gpumf: making a Debian 13 root with deal.II 9.6 in $root (mmdebstrap; kept for later runs)"
  $sudo mkdir -p "$(dirname "$root")"
  $sudo rm -rf "$root.new"
  $sudo mmdebstrap --variant=apt --include="$(IFS=,; echo "${packages[*]}")" trixie "$root.new" "$mirror"
  $sudo mv "$root.new" "$root"
fi
missing=()
for p in "${packages[@]}"; do
  $sudo chroot "$root" dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "gpumf: installing ${missing[*]} in the Debian 13 root"
  $sudo chroot "$root" apt-get update -q
  $sudo chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# Bind mounts for the command, undone on exit (also on failure).
mounted=()
unmount_all() {
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    $sudo umount -R -l "${mounted[$i]}" 2>/dev/null || true
  done
}
trap unmount_all EXIT
bind() { # bind <host path> <path in the root> [--rbind: with the mounts below it]
  $sudo mkdir -p "$root$2"
  $sudo mount "${3:---bind}" "$1" "$root$2"
  mounted+=("$root$2")
}
here=$(pwd -P)
bind "$here" "$here"
bind /proc /proc
bind /sys /sys
bind /dev /dev --rbind # /dev/shm for MPI's shared memory
if [ -d /usr/local/cuda-13.0 ]; then
  bind /usr/local/cuda-13.0 /usr/local/cuda-13.0
  [ -e "$root/usr/local/cuda" ] || $sudo ln -s cuda-13.0 "$root/usr/local/cuda"
fi
ccache_dir=${CCACHE_DIR:-${HOME:-/root}/.cache/ccache}
mkdir -p "$ccache_dir"
bind "$ccache_dir" /root/.cache/ccache

$sudo chroot "$root" env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin CCACHE_DIR=/root/.cache/ccache \
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ${CI:+CI=$CI} ${CCACHE_DISABLE:+CCACHE_DISABLE=$CCACHE_DISABLE} \
  bash -c 'cd "$1" && shift && exec "$@"' bash "$here" "$@"
