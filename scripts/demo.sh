#!/usr/bin/env bash
# Builds the example models on the embedded local Spark and prints a few of their windows.
# Usage: scripts/demo.sh
set -euo pipefail
export SPARK_WINDOWS_REQUIREMENTS=requirements.txt # running dbt needs no test tools
source "$(dirname "${BASH_SOURCE[0]}")/_setup.sh"
export SPARK_WINDOWS_STATE_DIR="$PROJECT_DIR/.spark_state/demo"
python scripts/demo.py
