#!/usr/bin/env bash
# Builds the package with every dbt minor it admits (require-dbt-version in dbt_project.yml) and
# every Spark release analysts' lakehouses run (3.5 to 4.3), paired so that each minor and each
# release is proven once or more: for each pair (an entry `<dbt minor>/<spark release>`), a
# virtual environment of its own in .venv-versions/<minor>-<release> (made again only when its
# pins below change; pip's cache is reused), then on the embedded local Spark
#   - the Flink reference models of this project, with their seeds and equals_expected tests, and
#     the microbatch example (sensor_vehicles_microbatch, its input and the singular data test
#     that compares it with the same call computed at once);
#   - with the first entry of each dbt minor other than the test suite's own (requirements.txt
#     pins dbt-core 1.11, and tests/functional/test_consumer_project.py builds the consumer with
#     it), the consumer project integration_tests/consumer (spark_windows installed as a package):
#     `dbt ls` must list none of spark_windows' models, seeds or data tests; `dbt build --empty`
#     (every model empty, then the consumer's unit tests) and `dbt build` must pass.
# Usage: scripts/version_matrix.sh [--install-only | --pins] [entry ...]   (default: every entry below)
# Prints one line per entry and ends with a summary; exits 1 when any entry failed. --pins prints
# what each entry's environment is made of (`<entry>: <pins>`, as its .pins stamp holds them) and
# installs and runs nothing.
set -euo pipefail

PROJECT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$PROJECT_DIR"

# dbt-core minor -> what is installed with it (dbt-spark 1.10 and 1.11 accept pyspark 3 and 4);
# pyspark comes from the entry's Spark release (spark_pin).
# Not 1.8 and 1.9: this project's data tests nest their arguments under `arguments:`, which dbt
# 1.10 introduced (README, "dbt and Spark versions").
# dbt 1.12: dbt-core 1.12.6 requires dbt-core-experimental-parser, which PyPI has only as a source
# package whose build downloads a wheel from GitHub (it fails without internet access), and dbt
# does not import it to parse, build or list. So its other requirements (dbt-core 1.12.6's
# METADATA, as written there) and dbt-spark's (dbt-adapters, dbt-common, sqlparams; pyspark for
# the `session` extra) are installed as usual, then dbt-core and dbt-spark with --no-deps (below):
# dbt-spark requires dbt-core, and pip would fetch dbt-core's requirements with it.
DBT_CORE_1_12_REQUIRES="agate>=1.7.0,<1.15 click>=8.3.0,<9.0 daff>=1.3.46 dbt-adapters>=1.24.5,<2.0
dbt-common>=1.37.5,<2.0 dbt-extractor>=0.5.0,<=0.6 dbt-protos>=1.0.514,<2.0 jinja2>=3.1.3,<4
jsonschema>=4.19.1,<5.0 mashumaro[msgpack]>=3.9,<3.18 metricflow>=0.213.0,<1.0 networkx>=2.3,<4.0
opentelemetry-api>=1.26,<2.0 packaging>20.9 pathspec>=0.9,<1.1 protobuf>=6.0,<8.0 pydantic<3
python-dotenv>=1.2 pytz>=2015.7 pyyaml>=6.0 requests<3.0.0 snowplow-tracker>=1.0.2,<2.0
sqlparse>=0.5.5,<0.7.0 typing-extensions>=4.4"
dbt_pins() {
    case "$1" in
        1.10) echo "dbt-core~=1.10.0 dbt-spark[session]~=1.10.0" ;;
        1.11) echo "dbt-core~=1.11.0 dbt-spark[session]~=1.11.0" ;;
        1.12) echo "sqlparams>=3.0.0 ${DBT_CORE_1_12_REQUIRES//$'\n'/ }" ;;
        *) return 1 ;;
    esac
}
# Spark release -> the pyspark wheel (each ships that release's Spark, embedded by dbt-spark's
# session method)
spark_pin() {
    case "$1" in
        3.5) echo "pyspark==3.5.8" ;;
        4.0) echo "pyspark==4.0.5" ;;
        4.1) echo "pyspark==4.1.4" ;;
        4.2) echo "pyspark==4.2.1" ;;
        4.3) echo "pyspark==4.3.0" ;;
        *) return 1 ;;
    esac
}
# an entry `<dbt minor>/<spark release>` -> what pip installs as usual
pins() {
    local minor="${1%/*}" release="${1#*/}"
    [ "$minor" != "$1" ] || return 1
    local dbt spark
    dbt="$(dbt_pins "$minor")" || return 1
    spark="$(spark_pin "$release")" || return 1
    echo "$dbt $spark"
}
# what is installed after pins(), with --no-deps (nothing for most minors)
no_deps_pins() {
    case "${1%/*}" in
        1.12) echo "dbt-core==1.12.6 dbt-spark==1.11.0" ;;
        *) echo "" ;;
    esac
}
# Every admitted dbt minor and every Spark release, in five environments: the oldest dbt with the
# oldest Spark, the newest with the newest, and 1.11 (today's default) with the releases between.
ALL_ENTRIES=(1.10/3.5 1.11/4.0 1.11/4.1 1.11/4.2 1.12/4.3)

# what a minor's environment is made of, as its .pins stamp holds it
wanted_pins() {
    local normal no_deps
    normal="$(pins "$1")"
    no_deps="$(no_deps_pins "$1")"
    echo "$normal${no_deps:+ --no-deps $no_deps}"
}

install_only=false
print_pins=false
entries=()
for arg in "$@"; do
    case "$arg" in
        --install-only) install_only=true ;;
        --pins) print_pins=true ;;
        *)
            if ! pins "$arg" >/dev/null; then
                echo "version_matrix: unknown entry '$arg'; expected <dbt minor>/<spark release>, such as ${ALL_ENTRIES[*]}" >&2
                exit 2
            fi
            entries+=("$arg")
            ;;
    esac
done
[ ${#entries[@]} -gt 0 ] || entries=("${ALL_ENTRIES[@]}")
if $print_pins; then
    for entry in "${entries[@]}"; do
        echo "$entry: $(wanted_pins "$entry")"
    done
    exit 0
fi

# Java 17 and the environment dbt needs (profiles, SPARK_LOCAL_IP); not the project's own .venv
SPARK_WINDOWS_SETUP_VENV=false source scripts/_setup.sh
VENVS="$PROJECT_DIR/.venv-versions"
LOGS="$VENVS/logs"
mkdir -p "$LOGS"

# an entry's name in paths: 1.11/4.1 -> 1.11-spark4.1
slug() {
    echo "${1%/*}-spark${1#*/}"
}

ensure_entry_venv() {
    local entry="$1" venv wanted normal no_deps
    venv="$VENVS/$(slug "$1")"
    wanted="$(wanted_pins "$entry")"
    if [ -f "$venv/.pins" ] && [ "$(cat "$venv/.pins")" = "$wanted" ] && "$venv/bin/dbt" --version >/dev/null 2>&1; then
        return 0
    fi
    # the pins as separate words (read -a splits without globbing: mashumaro[msgpack] stays as it is)
    read -ra normal <<<"$(pins "$entry")"
    read -ra no_deps <<<"$(no_deps_pins "$entry")"
    rm -rf "$venv"
    "${PYTHON:-python3}" -m venv "$venv" || return 1
    # --no-compile: byte-compiling every module of pyspark and dbt took 32 of an install's 45 s;
    # the few dbt processes an entry starts compile what they import (about 1.5 s each)
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-compile "${normal[@]}" || return 1
    if [ ${#no_deps[@]} -gt 0 ]; then
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-compile --no-deps "${no_deps[@]}" || return 1
    fi
    echo "$wanted" >"$venv/.pins"
}

# `dbt ls` of the consumer: it must list the consumer's own nodes and none of spark_windows'
check_consumer_lists_nothing_of_ours() {
    local dbt="$1" log="$2" listed
    listed="$(consumer "$dbt" ls --output json 2>>"$log")" || return 1
    echo "$listed" >>"$log"
    if ! grep -q '"package_name": "spark_windows_consumer"' <<<"$listed"; then
        echo "version_matrix: the consumer's dbt ls listed none of its own nodes" >>"$log"
        return 1
    fi
    if grep -q '"package_name": "spark_windows"' <<<"$listed"; then
        echo "version_matrix: the consumer's dbt ls lists nodes of spark_windows (above)" >>"$log"
        return 1
    fi
}

# dbt in the consumer project, with its profile as the README gives it: run from a directory of
# this entry's own, where the profile keeps its Spark state by default (.spark_state/), with a
# HOME of its own and its compiled files apart
consumer() {
    local dbt="$1"
    shift
    (
        cd "$SPARK_WINDOWS_STATE_DIR/consumer_cwd" &&
            env -u SPARK_STATE_DIR HOME="$SPARK_WINDOWS_STATE_DIR/consumer_home" \
                DBT_PROFILES_DIR="$PROJECT_DIR/integration_tests/consumer" \
                DBT_TARGET_PATH="$SPARK_WINDOWS_STATE_DIR/consumer_target" \
                "$dbt" "$@" --project-dir "$PROJECT_DIR/integration_tests/consumer"
    )
}

# the consumer project's steps: the first entry of each dbt minor only (the package's install,
# `dbt ls`, `--empty` and unit tests are dbt's; every Spark release builds the Flink models), and
# not for the minor of requirements.txt, whose consumer run is the test suite's
SUITE_MINOR="$(sed -n 's/^dbt-core>=\([0-9]*\.[0-9]*\),.*/\1/p' requirements.txt)"
[ -n "$SUITE_MINOR" ] || { echo "version_matrix: no 'dbt-core>=<minor>,...' line in requirements.txt" >&2; exit 2; }
declare -A consumer_minors=(["$SUITE_MINOR"]=1)
run_entry() {
    local entry="$1" name steps=(flink)
    name="$(slug "$1")"
    local log="$LOGS/$name.log" dbt="$VENVS/$name/bin/dbt"
    export SPARK_WINDOWS_STATE_DIR="$PROJECT_DIR/.spark_state/versions/$name"
    export SPARK_WINDOWS_TARGET=local
    # dbt's own log apart from the project's logs/, which the test suite may be writing (.ci/run
    # runs both at once)
    export DBT_LOG_PATH="$SPARK_WINDOWS_STATE_DIR/dbt_logs"
    rm -rf "$SPARK_WINDOWS_STATE_DIR"
    mkdir -p "$SPARK_WINDOWS_STATE_DIR/consumer_home" "$SPARK_WINDOWS_STATE_DIR/consumer_cwd"
    : >"$log"
    local step
    if [ -z "${consumer_minors[${entry%/*}]:-}" ]; then
        consumer_minors[${entry%/*}]=1
        steps+=(consumer_deps consumer_ls consumer_build_empty consumer_build consumer_state)
    fi
    for step in "${steps[@]}"; do
        echo "version_matrix: dbt $entry, $step" >>"$log"
        case "$step" in
            flink) "$dbt" build --target local --select path:seeds/flink_reference path:models/flink_reference +sensor_vehicles_microbatch \
                --target-path "target/versions/$name" >>"$log" 2>&1 ;;
            consumer_deps) consumer "$dbt" deps >>"$log" 2>&1 ;;
            consumer_ls) check_consumer_lists_nothing_of_ours "$dbt" "$log" ;;
            consumer_build_empty) consumer "$dbt" build --empty >>"$log" 2>&1 ;;
            consumer_build) consumer "$dbt" build >>"$log" 2>&1 ;;
            consumer_state) [ -d "$SPARK_WINDOWS_STATE_DIR/consumer_cwd/.spark_state/metastore_db" ] &&
                [ -d "$SPARK_WINDOWS_STATE_DIR/consumer_cwd/.spark_state/warehouse" ] ||
                { echo "version_matrix: the consumer's metastore and warehouse are not in .spark_state/ of the directory dbt ran from" >>"$log"; false; } ;;
        esac || {
            echo "dbt $entry: $step failed; the end of $log:" >&2
            tail -n 25 "$log" >&2
            return 1
        }
    done
}

failed=()
for entry in "${entries[@]}"; do
    start=$SECONDS
    name="$(slug "$entry")"
    if ! ensure_entry_venv "$entry" >"$LOGS/$name.install.log" 2>&1; then
        echo "dbt $entry: install FAILED ($(wanted_pins "$entry")); the end of $LOGS/$name.install.log:" >&2
        tail -n 20 "$LOGS/$name.install.log" >&2
        failed+=("$entry")
        continue
    fi
    versions="$("$VENVS/$name/bin/python" -c 'from importlib.metadata import version as v
print(" ".join(f"{p}=={v(p)}" for p in ("dbt-core", "dbt-spark", "pyspark")))')"
    if $install_only; then
        echo "dbt $entry: installed ($versions) in $((SECONDS - start)) s"
        continue
    fi
    if run_entry "$entry"; then
        echo "dbt $entry: passed ($versions) in $((SECONDS - start)) s"
    else
        echo "dbt $entry: FAILED ($versions); see $LOGS/$name.log" >&2
        failed+=("$entry")
    fi
done

passed=$((${#entries[@]} - ${#failed[@]}))
echo "version_matrix: $passed passed, ${#failed[@]} failed"
if [ ${#failed[@]} -gt 0 ]; then
    echo "version_matrix: failed with dbt ${failed[*]}" >&2
    exit 1
fi
