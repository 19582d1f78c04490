#!/usr/bin/env bash
# Runs the whole test suite: fast tests (no Spark) and slow tests (dbt on a local Spark).
# Usage: scripts/test.sh [pytest arguments], e.g. scripts/test.sh -m fast
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_setup.sh"
ensure_class_archive
python -m pytest "$@"
