#!/usr/bin/env bash
# Runs every cargo-fuzz target for SECONDS each (default 60) and fails on the first crash; the
# crashing input is left in fuzz/artifacts/<target>/, the corpus in fuzz/corpus/<target>/ (the
# unit tests in server/src/fuzzing.rs replay it too). Installs cargo-fuzz when missing
# (`.ci/install-tools fuzz`), and builds with RUSTC_BOOTSTRAP=1, since libFuzzer's flags are
# nightly-only. Not part of the test command, which fuzzes the same entry points without
# libFuzzer; see docs/development.md, "Fuzzing".
set -euo pipefail
cd "$(dirname "$0")"
SECONDS_EACH="${1:-60}"
export RUSTC_BOOTSTRAP=1
export PATH="$HOME/.cargo/bin:$PATH"
bash ../.ci/install-tools fuzz
# FUZZ_TARGET_DIR keeps the instrumented build elsewhere (CI keeps it beside its build cache).
TARGET_DIR=(--target-dir "${FUZZ_TARGET_DIR:-target}")
cargo fuzz build -s none -O "${TARGET_DIR[@]}"
for target in cursor visit_date accept_language request_body; do
  echo "fuzz: $target for ${SECONDS_EACH}s"
  mkdir -p "corpus/$target"
  cargo fuzz run -s none -O "${TARGET_DIR[@]}" "$target" "corpus/$target" -- \
    -max_total_time="$SECONDS_EACH" -max_len=4096 -print_final_stats=1 2>&1 \
    | grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|==[0-9]+==|SUMMARY|artifact_prefix|Test unit written)' || true
  test "${PIPESTATUS[0]}" -eq 0
done
