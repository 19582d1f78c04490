#!/usr/bin/env bash
# The `iceberg` target's environment, then pytest on it: Apache Iceberg 1.10.2 on Spark 3.5.8,
# embedded as the `local` target is (profiles/profiles.yml).
# - .venv-iceberg: the project's requirements with pyspark 3.5.8 instead of requirements.txt's
#   release (no package here ships Iceberg for Spark 4), and the PyPI package
#   snowpark-connect-deps-iceberg, which holds Iceberg's Spark runtime jar; made again only when
#   what it is made of changes;
# - .venv-iceberg/jars/jackson-relocated.jar: that runtime refers to Jackson under Iceberg's
#   shaded prefix without holding it; scripts/relocate_jackson.py copies pyspark's own Jackson
#   there;
# - SPARK_WINDOWS_ICEBERG_JARS names the two jars (the profile's spark.jars).
# Usage: scripts/iceberg.sh [--install-only | --python ARGS... | pytest arguments]
#   scripts/iceberg.sh -m slow tests/functional/test_incremental_iceberg.py
#   scripts/iceberg.sh --python scripts/bench.py --incremental --iceberg --new-rows 1000
set -euo pipefail
SPARK_WINDOWS_SETUP_VENV=false source "$(dirname "${BASH_SOURCE[0]}")/_setup.sh"

VENV="$PROJECT_DIR/.venv-iceberg"
SPARK_PIN="pyspark==3.5.8"
ICEBERG_PIN="snowpark-connect-deps-iceberg==1.0.3"
RUNTIME_JAR="iceberg-spark-runtime-3.5_2.12-1.10.2.jar"

# requirements.txt and requirements-dev.txt as one list, pyspark's line replaced by Spark 3.5's
wanted_requirements() {
    grep -v -e '^pyspark' -e '^#' -e '^-r' -e '^$' requirements.txt requirements-dev.txt | cut -d: -f2-
    echo "$SPARK_PIN"
    echo "$ICEBERG_PIN"
}

ensure_iceberg_venv() {
    local wanted stamp="$VENV/.requirements"
    wanted="$(wanted_requirements)"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ] && "$VENV/bin/python" -c 'import pyspark, dbt' 2>/dev/null; then
        return 0
    fi
    echo "iceberg: installing Spark 3.5 with Iceberg into .venv-iceberg" >&2
    rm -rf "$VENV"
    "${PYTHON:-python3}" -m venv "$VENV"
    local list
    list="$(mktemp)"
    echo "$wanted" >"$list"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-compile -r "$list"
    rm -f "$list"
    echo "$wanted" >"$stamp"
}

ensure_iceberg_jars() {
    local site runtime jackson="$VENV/jars/jackson-relocated.jar"
    site="$("$VENV/bin/python" -c 'import os, pyspark; print(os.path.dirname(os.path.dirname(pyspark.__file__)))')"
    runtime="$site/snowpark_connect_deps_iceberg/jars/$RUNTIME_JAR"
    if [ ! -f "$runtime" ]; then
        echo "iceberg: $ICEBERG_PIN holds no $RUNTIME_JAR" >&2
        exit 1
    fi
    if [ ! -f "$jackson" ]; then
        mkdir -p "$VENV/jars"
        "$VENV/bin/python" scripts/relocate_jackson.py "$jackson.part" \
            "$site"/pyspark/jars/jackson-core-2*.jar "$site"/pyspark/jars/jackson-databind-2*.jar \
            "$site"/pyspark/jars/jackson-annotations-2*.jar
        mv "$jackson.part" "$jackson"
    fi
    export SPARK_WINDOWS_ICEBERG_JARS="$runtime,$jackson"
}

ensure_iceberg_venv
ensure_iceberg_jars
if [ "${1:-}" = --install-only ]; then
    exit 0
fi
export PATH="$VENV/bin:$PATH"
export SPARK_WINDOWS_TARGET=iceberg
# dbt parses into folders of the target's own: its partial parse (partial_parse.msgpack) keeps the
# file_format dbt_project.yml chose by target, and a later run on `local` must not take it up
export DBT_TARGET_PATH="${DBT_TARGET_PATH:-$PROJECT_DIR/target/iceberg}" DBT_LOG_PATH="${DBT_LOG_PATH:-$PROJECT_DIR/logs/iceberg}"
if [ "${1:-}" = --python ]; then
    shift
    exec "$VENV/bin/python" "$@"
fi
"$VENV/bin/python" -m pytest --target iceberg "$@"
