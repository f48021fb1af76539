#!/usr/bin/env bash
# Installs the Debian 12 packages gpumf needs, where they are missing. CUDA is not a
# Debian package: gpumf uses /usr/local/cuda when it is there, else builds host-only.
set -euo pipefail
packages=(libdeal.ii-dev libdeal.ii-doc libboost-context-dev cmake ninja-build g++ python3 openmpi-bin ccache doxygen)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "gpumf: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
