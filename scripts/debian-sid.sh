#!/usr/bin/env bash
# debian-sid.sh <command...>: runs <command> in this checkout inside the Debian sid root, whose
# libdeal.ii-dev is deal.II 9.8.0 from experimental (scripts/debian-root.sh makes and keeps it).
exec bash "$(dirname "$(readlink -f "$0")")/debian-root.sh" sid "$@"
