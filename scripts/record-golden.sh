#!/usr/bin/env bash
# The old name of scripts/record-golden-traces.sh, which re-records every
# golden trace (and the files CI reads them through).
exec "$(dirname "$0")/record-golden-traces.sh" "$@"
