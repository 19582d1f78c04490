#!/usr/bin/env bash
# Makes .venv-flink, a virtual environment of its own with Apache Flink's Python API (PyFlink),
# for scripts/bench_flink.py; safe to run again (installs only when the pin below changed).
# Checks for Java 17+ as scripts/_setup.sh does (and installs it the same way); leaves .venv
# alone. PyFlink ships Flink's jars (a local mini-cluster; connectors: filesystem, blackhole,
# datagen, print; formats: csv, json, raw): nothing else is downloaded.
# Usage: bash scripts/flink_env.sh   then   .venv-flink/bin/python scripts/bench_flink.py --help
set -euo pipefail

PROJECT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$PROJECT_DIR"

FLINK_PIN="apache-flink==2.3.0"
python="${PYTHON:-python3}" # before _setup.sh puts .venv/bin first on PATH

SPARK_WINDOWS_SETUP_VENV=false source scripts/_setup.sh # the Java check only

if ! .venv-flink/bin/python -m pip --version >/dev/null 2>&1; then
    rm -rf .venv-flink
    if ! "$python" -m venv .venv-flink; then
        echo "flink_env: '$python -m venv' failed; install Python 3 with its venv module" \
            "(Debian/Ubuntu: 'apt-get install python3-venv'), then run this again." >&2
        exit 1
    fi
fi
stamp=".venv-flink/.pin"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$FLINK_PIN" ]; then
    echo "flink_env: installing $FLINK_PIN into .venv-flink" >&2
    .venv-flink/bin/python -m pip install --quiet --upgrade pip
    .venv-flink/bin/python -m pip install --quiet "$FLINK_PIN"
    echo "$FLINK_PIN" >"$stamp"
fi
.venv-flink/bin/python -c "import pyflink.version; print('flink_env: PyFlink', pyflink.version.__version__)"
