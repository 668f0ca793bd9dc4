#!/usr/bin/env bash
# Builds the release server and the benchmark, then measures the catalog reads on loopback and
# rewrites docs/benchmarks.md. Arguments go to the harness (e.g. --quick, --rounds 3,
# --merchants 20000). Needs nothing but cargo: the load generator is the harness itself.
set -euo pipefail
# The commands' build cache (.ci/env.sh): `-p server -p bench` resolves the same features as
# cargo-leptos's release build of the server, so after `.ci/serve` or `.ci/test` only the bench
# crate itself compiles here, and the reverse.
source "$(dirname "$0")/../.ci/env.sh"

cargo build --release -p server -p bench

# A private copy: a shared target directory may get another server build mid-run.
SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT
cp "$TARGET_DIR/release/server" "$TARGET_DIR/release/bench" "$SCRATCH/"

"$SCRATCH/bench" --server "$SCRATCH/server" --out "$ROOT/docs/benchmarks.md" "$@"
