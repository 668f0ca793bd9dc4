# Sourced by .ci/serve and .ci/test: the workspace root, the tool paths and the target dir.
# shellcheck shell=bash

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

TOOLS_DIR="${BOXOFFICE_TOOLS_DIR:-$HOME/.cache/boxoffice-tools}"
# npm's binaryen 132 first: Debian's wasm-opt (108) builds a WASM that fails to hydrate.
export PATH="$TOOLS_DIR/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
# Playwright must never try to download a browser; Debian's Chromium is used.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
# The fake Stripe's Python (.ci/install-tools stripe): the tests run
# `$BOXOFFICE_LOCALSTRIPE_PYTHON end2end/stripe/fake_stripe.py --port 0`.
export BOXOFFICE_LOCALSTRIPE_PYTHON="$TOOLS_DIR/localstripe-venv/bin/python"
# The same venv checks the invoices against the CII schema (server/tests/api/invoices.rs).
export BOXOFFICE_FACTURX_PYTHON="$BOXOFFICE_LOCALSTRIPE_PYTHON"

# One build cache per machine, outside the clone, for both commands, local or CI (unless
# CARGO_TARGET_DIR is already set): CI clones afresh each run, and what `.ci/serve` built (the
# release server and WASM) is what `.ci/test` builds again, in any clone of the project. The
# site itself is always ./target/site in the clone.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/boxoffice-target}"
TARGET_DIR="$CARGO_TARGET_DIR"
case "$TARGET_DIR" in /*) ;; *) TARGET_DIR="$ROOT/$TARGET_DIR" ;; esac

log() { printf '[%s] %s\n' "$(basename "$0")" "$*" >&2; }

# Fails unless the wasm-opt on PATH is npm's binaryen 132.
check_wasm_opt() {
  local version
  version="$(wasm-opt --version 2>/dev/null || true)"
  case "$version" in
    *"version 132"*) ;;
    *)
      log "wasm-opt on PATH is '${version:-missing}' ($(command -v wasm-opt || echo none)); expected binaryen 132 from $TOOLS_DIR (run .ci/install-tools)"
      return 1
      ;;
  esac
}
