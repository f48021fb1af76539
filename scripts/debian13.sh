#!/usr/bin/env bash
# debian13.sh <command...>: runs <command> in this checkout inside the Debian 13 (trixie) root, whose
# libdeal.ii-dev is deal.II 9.6.2 (scripts/debian-root.sh makes and keeps it).
exec bash "$(dirname "$(readlink -f "$0")")/debian-root.sh" debian13 "$@"
