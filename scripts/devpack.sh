#!/usr/bin/env bash
# devpack.sh [--debian13] <out folder> <program>...: packs programs built here with the deal.II
# run-time they need for the lent GPU machine (Ubuntu 24.04, CUDA, Open MPI; no deal.II), as
# ../shared/gpu/devlibs.py does (its README: carry <out folder>, then `. ./env.sh` there), each
# <out folder> unpacking to its own /tmp/devlibs-<name> there.
#
# --debian13: the programs were built in the Debian 13 root (scripts/debian13.sh; deal.II 9.6):
# devlibs.py runs in the root, so that it packs the root's deal.II 9.6, Trilinos and p4est. The
# C and C++ run-time and Open MPI are the GPU machine's (Open MPI 5's libmpi.so.40, which the
# root's libraries were linked against, keeps the C ABI of the machine's 4.1): this script checks
# that no packed library or program needs a newer glibc or libstdc++ than the GPU machine has
# (GLIBC_2.39, GLIBCXX_3.4.33) and stops, naming the file, where one does.
set -euo pipefail
cd "$(dirname "$0")/.."
in_root=0
if [ "${1:-}" = --debian13 ]; then
  in_root=1
  shift
fi
out=$1
shift
devlibs=${GPUMF_DEVLIBS:-../shared/gpu/devlibs.py}
mkdir -p "$out"
cp "$devlibs" "$out/devlibs.py"
if [ $in_root = 1 ]; then
  bash scripts/debian13.sh python3 "$out/devlibs.py" --out "$out" "$@"
else
  python3 "$out/devlibs.py" --out "$out" "$@"
fi
rm "$out/devlibs.py"
# a run-time folder of its own on the GPU machine, so that packs of both deal.II versions run in one call
sed -i "s|/tmp/devlibs|/tmp/devlibs-$(basename "$out")|g" "$out/env.sh"

# The newest glibc / libstdc++ symbol versions the packed files need, against the GPU machine's.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar xJf "$out/devlibs.tar.xz" -C "$tmp"
status=0
for f in "$tmp"/lib/* "$out"/bin/*; do
  for need in $(objdump -T "$f" 2>/dev/null | grep -o 'GLIBC_2\.[0-9]*\|GLIBCXX_3\.4\.[0-9]*' | sort -u); do
    case $need in
      GLIBC_2.*) limit=39 ;;
      GLIBCXX_3.4.*) limit=33 ;;
    esac
    if [ "${need##*.}" -gt "$limit" ]; then
      echo "gpumf: $(basename "$f") needs $need, newer than the GPU machine's: pack the root's C/C++ run-time and loader"
      status=1
    fi
  done
done
[ $status = 0 ] && echo "gpumf: $out: no file needs a newer glibc (2.39) or libstdc++ (3.4.33) than the GPU machine's"
exit $status
