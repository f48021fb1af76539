#!/usr/bin/env bash
# devpack.sh [--debian13 | --sid] <out folder> <program>...: packs programs built here with the
# deal.II run-time they need for the lent GPU machine (Ubuntu 24.04, CUDA, Open MPI; no deal.II), as
# ../shared/gpu/devlibs.py does (its README: carry <out folder>, then `. ./env.sh` there), each
# <out folder> unpacking to its own /tmp/devlibs-<name> there.
#
# --debian13: the programs were built in the Debian 13 root (scripts/debian13.sh; deal.II 9.6):
# devlibs.py runs in the root, so that it packs the root's deal.II 9.6, Trilinos and p4est. The
# C and C++ run-time and Open MPI are the GPU machine's (Open MPI 5's libmpi.so.40, which the
# root's libraries were linked against, keeps the C ABI of the machine's 4.1): this script checks
# that no packed library or program needs a newer glibc or libstdc++ than the GPU machine has
# (GLIBC_2.39, GLIBCXX_3.4.33) and stops, naming the file, where one does.
#
# --sid: built in the sid root (scripts/debian-sid.sh; deal.II 9.8), whose glibc (2.43) and
# libstdc++ are newer than the GPU machine's: the pack also carries the root's loader, its C/C++
# run-time and its Open MPI (rt/; sid's Open MPI is 6.0, whose predefined datatypes the machine's
# 4.1 does not take: "MPI_Allreduce: the reduction operation MPI_SUM is not defined for
# non-intrinsic datatypes"), and Kokkos (deal.II 9.8 keeps its vectors in Kokkos views). Each
# program in bin/ is a script that starts the real one (bin/.programs/) through that loader, with
# the machine's CUDA driver after the packed libraries; bin/mpirun is sid's (PRRTE's prterun,
# through the same loader): `bin/mpirun -np 4 bin/prog`. Singletons (`bin/prog`) need no mpirun.
set -euo pipefail
cd "$(dirname "$0")/.."
root=""
case "${1:-}" in
  --debian13) root=debian13 && shift ;;
  --sid) root=sid && shift ;;
esac
out=$1
shift
devlibs=${GPUMF_DEVLIBS:-../shared/gpu/devlibs.py}
mkdir -p "$out"
cp "$devlibs" "$out/devlibs.py"
# A stub defines no symbol that the C/C++ run-time defines: C++ libraries export their copies of
# std:: template and inline functions, which a stub would make return 0. A stub's `_M_assign` came
# before libstdc++'s in gpumf_benchmark built against deal.II 9.8: every std::string it copied was
# left empty (the CSV's text columns, the --json file name), without an error.
python3 - "$out/devlibs.py" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
old = '        if name not in wanted or name in defined'
anchor = 'import argparse, os, re, shutil, subprocess, sys, tarfile, tempfile\n'
if old not in s or anchor not in s:
    sys.exit("gpumf: devlibs.py's stub writer changed: cannot keep the run-time's symbols out of its stubs")
runtime = """
# (scripts/devpack.sh) the symbols the C/C++ run-time defines: never in a stub
RUNTIME = set()
for _lib in ("libstdc++.so.6", "libgcc_s.so.1", "libm.so.6", "libc.so.6"):
    _path = subprocess.run(["g++", "-print-file-name=" + _lib], capture_output=True, text=True).stdout.strip()
    if os.path.isabs(_path):
        RUNTIME |= {l.split()[-1].split("@")[0] for l in subprocess.run(
            ["nm", "-D", "--defined-only", _path], capture_output=True, text=True).stdout.splitlines() if l.strip()}
"""
s = s.replace(anchor, anchor + runtime, 1)
open(p, "w").write(s.replace(old, '        if name in RUNTIME or name not in wanted or name in defined', 1))
PY
if [ "$root" = sid ]; then
  # Kokkos copied, not stubbed (deal.II 9.8's host vectors allocate through it); of Trilinos 17 only
  # Kokkos, Kokkos Kernels, Teuchos and Tpetra (the rest, MueLu, Ifpack2, Belos, ..., is 60 MB
  # that no gpumf program calls: stubbed, to keep the pack under the call's 64 MiB)
  sed -i -e 's/r"gmp|mpfr|openblas|atlas|blis)"/r"gmp|mpfr|openblas|atlas|blis|kokkos)"/' \
         -e 's/|trilinos_|/|trilinos_(?:kokkos|teuchos|tpetra\\.|tpetraclassic)|/' "$out/devlibs.py"
  grep -q 'blis|kokkos' "$out/devlibs.py" && grep -q 'trilinos_(?:kokkos' "$out/devlibs.py" ||
    { echo "gpumf: devlibs.py's list of copied libraries changed: cannot adapt it to deal.II 9.8"; exit 1; }
fi
if [ -n "$root" ]; then
  bash scripts/debian-root.sh "$root" python3 "$out/devlibs.py" --out "$out" "$@"
else
  python3 "$out/devlibs.py" --out "$out" "$@"
fi
rm "$out/devlibs.py"
name=$(basename "$out")
# a run-time folder of its own on the GPU machine, so that packs of several deal.II versions run in one call
sed -i "s|/tmp/devlibs|/tmp/devlibs-$name|g" "$out/env.sh"
if [ "$root" = sid ]; then
  # the root's loader and C/C++ run-time, its Open MPI (libmpi and PRRTE's launcher with what they
  # link, found by the root's loader), and a starter script per program
  sid_root=${GPUMF_SID_ROOT:-/var/lib/gpumf/sid}
  sid_lib=$sid_root/usr/lib/x86_64-linux-gnu
  rt=$(mktemp -d)
  mkdir "$rt/rt"
  for lib in ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libdl.so.2 librt.so.1 libpthread.so.0 libstdc++.so.6 libgcc_s.so.1; do
    cp -L "$sid_lib/$lib" "$rt/rt/"
  done
  for f in "$sid_lib/libmpi.so.40" "$sid_root/usr/bin/prte"; do
    "$sid_lib/ld-linux-x86-64.so.2" --library-path "$sid_lib" --list "$f"
  done | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | sort -u | while read -r soname path; do
    soname=$(basename "$soname") # (the loader lists itself by its path)
    [ -e "$rt/rt/$soname" ] || cp -L "$path" "$rt/rt/$soname"
  done
  cp -L "$sid_lib/libmpi.so.40" "$rt/rt/" # (the loader lists what a file needs, not the file)
  [ -e "$rt/rt/libmpi.so.40" ] && [ -e "$rt/rt/libprrte.so.5" ] ||
    { echo "gpumf: sid's Open MPI (libmpi.so.40, libprrte.so.5) not found in $sid_root"; exit 1; }
  cp -L "$sid_root/usr/bin/prte" "$rt/rt/prte"
  tar cJf "$out/rt.tar.xz" -C "$rt" rt
  rm -rf "$rt"
  cat >> "$out/env.sh" <<ENV
[ -d /tmp/devlibs-$name/rt ] || tar xJf "\$here/rt.tar.xz" -C /tmp/devlibs-$name
ENV
  mkdir -p "$out/bin/.programs"
  for p in "$@"; do
    prog=$(basename "$p")
    mv "$out/bin/$prog" "$out/bin/.programs/$prog"
    cat > "$out/bin/$prog" <<STARTER
#!/bin/sh
# $prog, built against Debian sid's deal.II 9.8: through sid's loader, C/C++ run-time and Open
# MPI, then the packed libraries, then the machine's (the CUDA driver)
d=/tmp/devlibs-$name
exec \$d/rt/ld-linux-x86-64.so.2 --library-path "\$d/rt:\$d/lib:/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64:\${LD_LIBRARY_PATH:-}" "\$(dirname "\$0")/.programs/$prog" "\$@"
STARTER
    chmod +x "$out/bin/$prog"
  done
  cat > "$out/bin/mpirun" <<MPIRUN
#!/bin/sh
# sid's Open MPI launcher (PRRTE's prterun) through sid's loader: start the programs of this pack
# with it (bin/mpirun -np 4 bin/prog), not with the machine's Open MPI 4.1
d=/tmp/devlibs-$name
exec \$d/rt/ld-linux-x86-64.so.2 --library-path "\$d/rt" --argv0 prterun "\$d/rt/prte" --allow-run-as-root "\$@"
MPIRUN
  chmod +x "$out/bin/mpirun"
  echo "gpumf: $out: sid's loader, C/C++ run-time and Open MPI packed (rt.tar.xz); bin/ starts each program through them, bin/mpirun is sid's"
  exit 0
fi

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
