#!/usr/bin/env bash
# Builds the release server and the benchmark, then measures on loopback (the catalog reads, the
# express checkout, the open loop; the frame's first screen with Lighthouse) and rewrites
# docs/benchmarks.md. Arguments go to the harness (e.g. --quick, --rounds 3,
# --merchants 20000). Needs nothing but cargo: the load generator is the harness itself.
set -euo pipefail
# The commands' build cache (.ci/env.sh): `-p server -p bench` resolves the same features as
# cargo-leptos's release build of the server, so after `.ci/serve` or `.ci/test` only the bench
# crate itself compiles here, and the reverse.
source "$(dirname "$0")/../.ci/env.sh"

# `--only lighthouse` is the frame's first screen alone (bench/lighthouse.sh); a run without
# `--only` measures it last.
ONLY=""
PREV=""
for arg in "$@"; do
  [ "$PREV" = "--only" ] && ONLY="$arg"
  PREV="$arg"
done
if [ "$ONLY" = "lighthouse" ]; then
  exec bash "$ROOT/bench/lighthouse.sh" 3 "$ROOT/docs/benchmarks.md"
fi

cargo build --release -p server -p bench

# A private copy: a shared target directory may get another server build mid-run.
SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT
cp "$TARGET_DIR/release/server" "$TARGET_DIR/release/bench" "$SCRATCH/"

"$SCRATCH/bench" --server "$SCRATCH/server" --out "$ROOT/docs/benchmarks.md" "$@"

[ -n "$ONLY" ] || bash "$ROOT/bench/lighthouse.sh" 3 "$ROOT/docs/benchmarks.md"
