#!/usr/bin/env bash
# Usage: bench/slow-disk/wrap.sh SERVER_BINARY OUT_SCRIPT [MICROSECONDS]
# Writes OUT_SCRIPT, which runs SERVER_BINARY with every flush to disk MICROSECONDS (default
# 1000) slower; pass it to the harness as --server (the harness clears the environment, so the
# setting lives in the script). Needs a C compiler (Debian's gcc).
set -euo pipefail
server="$(realpath "$1")"
out="$2"
us="${3:-1000}"
lib="$(dirname "$(realpath "$out")")/slow_sync.so"
cc -shared -fPIC -O2 -o "$lib" "$(dirname "$0")/slow_sync.c" -ldl
printf '#!/bin/sh\nexport LD_PRELOAD=%s SLOW_SYNC_US=%s\nexec %s "$@"\n' "$lib" "$us" "$server" >"$out"
chmod +x "$out"
