#!/usr/bin/env bash
# debian-root.sh <root> <command...>: runs <command> in this checkout inside a Debian root whose
# libdeal.ii-dev is another deal.II than Debian 12's 9.4:
#   debian13  Debian 13 (trixie), deal.II 9.6.2 (default folder /var/lib/gpumf/debian13)
#   sid       Debian sid with deal.II 9.8.0 from experimental (the libdeal.ii packages pinned there, all
#             else from sid: Trilinos 17 comes along), g++ 15 beside sid's default for nvcc 13.0, which
#             refuses g++ newer than 15 (default folder /var/lib/gpumf/sid)
# scripts/debian13.sh and scripts/debian-sid.sh call it with their root's name.
# A root is made from Debian's registry with mmdebstrap at the first call (minutes: sid's is ~1000
# packages) and kept for later calls in $GPUMF_<ROOT>_ROOT (GPUMF_DEBIAN13_ROOT, GPUMF_SID_ROOT); a
# call installs what the package list below adds since.
# The checkout, CUDA (/usr/local/cuda-13.0, where installed), ccache's folder, /proc, /sys and /dev are
# bind-mounted into the root for the command. mmdebstrap and the command run in a mount namespace of
# their own (unshare -m), so their mounts end with them, also when a run is killed; runs on one machine
# take turns on a root (flock on <root>.lock). Needs root (or sudo).
#
#   scripts/debian-root.sh sid bash -c 'cmake -S . -B build-sid -G Ninja && cmake --build build-sid'
set -euo pipefail
self=$(readlink -f "$0")
cd "$(dirname "$self")/.."
name=${1:-}
shift || true
packages=(libdeal.ii-dev libdeal.ii-doc libboost-context-dev cmake ninja-build g++ binutils-gold python3
          openmpi-bin ccache)
case "$name" in
  debian13)
    suite=trixie
    root=${GPUMF_DEBIAN13_ROOT:-/var/lib/gpumf/debian13}
    dealii="9.6" ;;
  sid)
    suite=sid
    root=${GPUMF_SID_ROOT:-/var/lib/gpumf/sid}
    dealii="9.8 (experimental)"
    packages+=(g++-15) ;;
  *)
    echo "usage: scripts/debian-root.sh debian13|sid <command...> (the root's name, then what to run in it)" >&2
    exit 2 ;;
esac
root=$(realpath -m "$root") # as /proc/self/mounts names it
mirror=${GPUMF_DEBIAN_MIRROR:-http://deb.debian.org/debian}
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo

# The rest runs in a mount namespace of its own: every mount below ends with the last process in
# it (the script and the command it runs), however they end. (ccache's folder is made before, as
# the calling user.)
ccache_dir=${CCACHE_DIR:-${HOME:-/root}/.cache/ccache}
if [ -z "${GPUMF_DEBIAN13_NAMESPACE:-}" ]; then
  mkdir -p "$ccache_dir"
  exec $sudo env GPUMF_DEBIAN13_NAMESPACE=1 GPUMF_DEBIAN13_ROOT="${GPUMF_DEBIAN13_ROOT:-}" GPUMF_SID_ROOT="${GPUMF_SID_ROOT:-}" \
    GPUMF_DEBIAN_MIRROR="$mirror" CCACHE_DIR="$ccache_dir" \
    ${CI:+"CI=$CI"} ${CCACHE_DISABLE:+"CCACHE_DISABLE=$CCACHE_DISABLE"} ${GPUMF_TEST_ALL_PROGRAMS:+"GPUMF_TEST_ALL_PROGRAMS=$GPUMF_TEST_ALL_PROGRAMS"} \
    unshare --mount --propagation private bash "$self" "$name" "$@"
fi

# One run at a time on the root (a second run on the same machine waits, at most an hour; the
# lock is not passed on to the commands, so that a process they leave behind does not hold it).
mkdir -p "$(dirname "$root")"
exec 9>"$root.lock"
flock -w 3600 9 || { echo "gpumf: $root.lock is held by another run for an hour: giving up"; exit 1; }

# Mounts that a run killed before this script kept its mounts private may have left under a
# half-made root (rm alone would descend into /sys and /proc): their copies in this namespace
# are detached first, then rm, which stays on the root's file system, removes the directories
# (which detaches the host's copies too).
remove_half_made_root() {
  local target
  awk -v r="$1" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/self/mounts | LC_ALL=C sort -r |
    while read -r target; do umount -l "$target" || true; done
  rm -rf --one-file-system "$1"
}

if [ ! -x "$root/usr/bin/apt-get" ]; then
  if ! command -v mmdebstrap >/dev/null; then
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends mmdebstrap
  fi
  echo "gpumf: making a Debian $suite root with deal.II $dealii in $root (mmdebstrap; kept for later runs)"
  sources=("deb $mirror $suite main")
  hooks=()
  if [ "$suite" = sid ]; then
    # deal.II 9.8 is in experimental, built against experimental's Trilinos 17: both pinned there
    # (else apt mixes in sid's Trilinos 16 -dev packages, whose libraries deal.II's CMake files do
    # not name), everything else from sid
    sources+=("deb $mirror experimental main")
    # (the registry's sid and experimental can be a snapshot whose Release files have expired)
    hooks=(--aptopt='Acquire::Check-Valid-Until "false"' --setup-hook='mkdir -p "$1/etc/apt/preferences.d" && printf "Package: libdeal.ii* *trilinos*\nPin: release a=experimental\nPin-Priority: 990\n" > "$1/etc/apt/preferences.d/gpumf-dealii"')
  fi
  made=false
  for attempt in 1 2; do # a second try where the registry failed the first
    remove_half_made_root "$root.new"
    if mmdebstrap --variant=apt ${hooks[@]+"${hooks[@]}"} --include="$(IFS=,; echo "${packages[*]}")" "$suite" "$root.new" \
         "${sources[@]}" 9>&-; then
      made=true
      break
    fi
    echo "gpumf: mmdebstrap failed (attempt $attempt of 2)"
  done
  $made || { echo "gpumf: could not make the Debian $suite root in $root.new (see mmdebstrap's messages above)"; exit 1; }
  [ ! -e "$root" ] || remove_half_made_root "$root" # a root without apt-get: broken
  mv -T "$root.new" "$root"
fi
missing=()
for p in "${packages[@]}"; do
  chroot "$root" dpkg -s "$p" >/dev/null 2>&1 9>&- || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "gpumf: installing ${missing[*]} in the Debian $suite root"
  chroot "$root" apt-get update -q 9>&-
  chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" 9>&-
fi

# Bind mounts for the command: private to this namespace, gone with it.
bind() { # bind <host path> <path in the root> [--rbind: with the mounts below it]
  mkdir -p "$root$2"
  mount "${3:---bind}" "$1" "$root$2"
}
here=$(pwd -P)
bind "$here" "$here"
bind /proc /proc
bind /sys /sys
bind /dev /dev --rbind # /dev/shm for MPI's shared memory
if [ -d /usr/local/cuda-13.0 ]; then
  bind /usr/local/cuda-13.0 /usr/local/cuda-13.0
  [ -e "$root/usr/local/cuda" ] || ln -s cuda-13.0 "$root/usr/local/cuda"
  # glibc 2.42 (sid has 2.43) declares C23's rsqrt() and rsqrtf() noexcept; CUDA 13.0's
  # crt/math_functions.h declares them without, and nvcc stops on every file ("exception
  # specification is incompatible with that of previous function rsqrt"). /opt/gpumf-cuda in the
  # root is CUDA 13.0 with that header's two declarations made noexcept in C++: its own nvcc,
  # nvcc.profile and include tree (nvcc finds its toolkit relative to itself), links to the rest.
  if grep -q 'rsqrt,' "$root/usr/include/x86_64-linux-gnu/bits/mathcalls.h" 2>/dev/null &&
     ! grep -q 'rsqrt(double x) noexcept' /usr/local/cuda-13.0/targets/x86_64-linux/include/crt/math_functions.h &&
     [ ! -x "$root/opt/gpumf-cuda/bin/nvcc" ]; then
    echo "gpumf: CUDA 13.0 for this root's glibc in $root/opt/gpumf-cuda (rsqrt, rsqrtf declared noexcept)"
    rm -rf "$root/opt/gpumf-cuda.new"
    mkdir -p "$root/opt/gpumf-cuda.new/bin" "$root/opt/gpumf-cuda.new/targets/x86_64-linux"
    for f in /usr/local/cuda-13.0/bin/*; do
      ln -s "$f" "$root/opt/gpumf-cuda.new/bin/$(basename "$f")"
    done
    rm "$root/opt/gpumf-cuda.new/bin/nvcc" "$root/opt/gpumf-cuda.new/bin/nvcc.profile"
    cp /usr/local/cuda-13.0/bin/nvcc /usr/local/cuda-13.0/bin/nvcc.profile "$root/opt/gpumf-cuda.new/bin/"
    for d in nvvm lib lib64; do
      ln -s "/usr/local/cuda-13.0/$d" "$root/opt/gpumf-cuda.new/$d"
    done
    ln -s ../../lib "$root/opt/gpumf-cuda.new/targets/x86_64-linux/lib"
    cp -rL /usr/local/cuda-13.0/targets/x86_64-linux/include "$root/opt/gpumf-cuda.new/targets/x86_64-linux/include"
    ln -s targets/x86_64-linux/include "$root/opt/gpumf-cuda.new/include"
    header="$root/opt/gpumf-cuda.new/targets/x86_64-linux/include/crt/math_functions.h"
    sed -i -e 's/^\(extern __DEVICE_FUNCTIONS_DECL__ __device_builtin__ double *rsqrt(double x)\);/\1 GPUMF_GLIBC_NOEXCEPT;/' \
           -e 's/^\(extern __DEVICE_FUNCTIONS_DECL__ __device_builtin__ float *rsqrtf(float x)\);/\1 GPUMF_GLIBC_NOEXCEPT;/' "$header"
    [ "$(grep -c GPUMF_GLIBC_NOEXCEPT "$header")" = 2 ] || { echo "gpumf: CUDA's math_functions.h changed: rsqrt not patched"; exit 1; }
    sed -i '0,/^#if !defined(__CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS__)/s//#if defined(__cplusplus)\n#define GPUMF_GLIBC_NOEXCEPT noexcept(true)\n#else\n#define GPUMF_GLIBC_NOEXCEPT\n#endif\n&/' "$header"
    grep -q 'define GPUMF_GLIBC_NOEXCEPT noexcept' "$header" || { echo "gpumf: CUDA's math_functions.h changed: no place for the macro"; exit 1; }
    mv -T "$root/opt/gpumf-cuda.new" "$root/opt/gpumf-cuda"
  fi
fi
bind "$ccache_dir" /root/.cache/ccache

chroot "$root" env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin CCACHE_DIR=/root/.cache/ccache \
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ${CI:+"CI=$CI"} ${CCACHE_DISABLE:+"CCACHE_DISABLE=$CCACHE_DISABLE"} ${GPUMF_TEST_ALL_PROGRAMS:+"GPUMF_TEST_ALL_PROGRAMS=$GPUMF_TEST_ALL_PROGRAMS"} \
  bash -c 'cd "$1" && shift && exec "$@"' bash "$here" "$@" 9>&-
