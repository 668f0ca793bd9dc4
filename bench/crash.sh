#!/usr/bin/env bash
# Kills the release server with SIGKILL under express-checkout load several times, restarts it
# over the same database, and checks the database's invariants afterwards, on SQLite and on
# Postgres; writes the "Crash" section of docs/benchmarks.md. Arguments go to the harness
# (e.g. --no-postgres). See docs/benchmarks.md, "Crash: SIGKILL under load".
set -euo pipefail
exec "$(dirname "$0")/run.sh" --only crash "$@"
