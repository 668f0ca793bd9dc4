#!/usr/bin/env bash
# Runs the headless example partner against a started Boxoffice server:
#
#   bash examples/headless-partner/run.sh <base_url> <admin_token>
#
# The server must run in demo mode (BOXOFFICE_DEMO=1) with the operator API on
# (<admin_token> = its BOXOFFICE_ADMIN_TOKEN) and BOXOFFICE_ALLOW_PRIVATE_OUTBOUND=1, since this
# partner's webhook receiver listens on 127.0.0.1. The client is generated afresh from the
# server's /openapi.json by openapi-python-client, into a temporary folder, every run.
set -euo pipefail

BASE_URL="${1:?usage: run.sh <base_url> <admin_token>}"
ADMIN_TOKEN="${2:?usage: run.sh <base_url> <admin_token>}"
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
VENV="${BOXOFFICE_TOOLS_DIR:-$HOME/.cache/boxoffice-tools}/judges-venv"

# openapi-python-client and standardwebhooks, pinned (idempotent).
bash "$ROOT/.ci/install-tools" judges

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
curl -fsS "${BASE_URL%/}/openapi.json" -o "$WORK/openapi.json"
# With the generator's defaults, as a partner runs it: no configuration of ours. Its warnings
# (the Apple Wallet pass responses it cannot type) only on failure.
(cd "$WORK" && "$VENV/bin/openapi-python-client" generate --path openapi.json \
  --output-path boxoffice_client --meta none >generate.log 2>&1) ||
  { cat "$WORK/generate.log" >&2; exit 1; }
PYTHONPATH="$WORK" "$VENV/bin/python" "$HERE/partner.py" "$BASE_URL" "$ADMIN_TOKEN"
