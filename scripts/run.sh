#!/usr/bin/env bash
# The main job: installs what is missing, builds, and solves the Helmholtz example on the
# GPU (on the host reference backend, with a one-line notice, where there is none).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec build/examples/helmholtz/helmholtz "$@"
