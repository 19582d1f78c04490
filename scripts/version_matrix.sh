#!/usr/bin/env bash
# Builds the package with every dbt minor it admits (require-dbt-version in dbt_project.yml):
# for each minor, a virtual environment of its own in .venv-versions/<minor> (made again only
# when its pins below change; pip's cache is reused), then on the embedded local Spark
#   - the Flink reference models of this project, with their seeds and equals_expected tests, and
#     the microbatch example (sensor_vehicles_microbatch, its input and the singular data test
#     that compares it with the same call computed at once);
#   - the consumer project integration_tests/consumer (spark_windows installed as a package):
#     `dbt ls` must list none of spark_windows' models, seeds or data tests; `dbt build --empty`
#     (every model empty, then the consumer's unit tests) and `dbt build` must pass.
# Usage: scripts/version_matrix.sh [--install-only | --pins] [minor ...]   (default: every minor below)
# Prints one line per minor and ends with a summary; exits 1 when any minor failed. --pins prints
# what each minor's environment is made of (`<minor>: <pins>`, as its .pins stamp holds them) and
# installs and runs nothing.
set -euo pipefail

PROJECT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$PROJECT_DIR"

# dbt-core minor -> what is installed with it (dbt-spark 1.10 and 1.11 accept pyspark 3 and 4).
# Not 1.8 and 1.9: this project's data tests nest their arguments under `arguments:`, which dbt
# 1.10 introduced (README, "dbt versions").
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
pins() {
    case "$1" in
        1.10) echo "dbt-core~=1.10.0 dbt-spark[session]~=1.10.0 pyspark==4.1.4" ;;
        1.11) echo "dbt-core~=1.11.0 dbt-spark[session]~=1.11.0 pyspark==4.1.4" ;;
        1.12) echo "pyspark==4.1.4 sqlparams>=3.0.0 ${DBT_CORE_1_12_REQUIRES//$'\n'/ }" ;;
        *) return 1 ;;
    esac
}
# what is installed after pins(), with --no-deps (nothing for most minors)
no_deps_pins() {
    case "$1" in
        1.12) echo "dbt-core==1.12.6 dbt-spark==1.11.0" ;;
        *) echo "" ;;
    esac
}
ALL_MINORS=(1.10 1.11 1.12)

# what a minor's environment is made of, as its .pins stamp holds it
wanted_pins() {
    local normal no_deps
    normal="$(pins "$1")"
    no_deps="$(no_deps_pins "$1")"
    echo "$normal${no_deps:+ --no-deps $no_deps}"
}

install_only=false
print_pins=false
minors=()
for arg in "$@"; do
    case "$arg" in
        --install-only) install_only=true ;;
        --pins) print_pins=true ;;
        *)
            if ! pins "$arg" >/dev/null; then
                echo "version_matrix: unknown dbt minor '$arg'; known: ${ALL_MINORS[*]}" >&2
                exit 2
            fi
            minors+=("$arg")
            ;;
    esac
done
[ ${#minors[@]} -gt 0 ] || minors=("${ALL_MINORS[@]}")
if $print_pins; then
    for minor in "${minors[@]}"; do
        echo "$minor: $(wanted_pins "$minor")"
    done
    exit 0
fi

# Java 17 and the environment dbt needs (profiles, SPARK_LOCAL_IP); not the project's own .venv
SPARK_WINDOWS_SETUP_VENV=false source scripts/_setup.sh
VENVS="$PROJECT_DIR/.venv-versions"
LOGS="$VENVS/logs"
mkdir -p "$LOGS"

ensure_minor_venv() {
    local minor="$1" venv="$VENVS/$1" wanted normal no_deps
    wanted="$(wanted_pins "$minor")"
    if [ -f "$venv/.pins" ] && [ "$(cat "$venv/.pins")" = "$wanted" ] && "$venv/bin/dbt" --version >/dev/null 2>&1; then
        return 0
    fi
    # the pins as separate words (read -a splits without globbing: mashumaro[msgpack] stays as it is)
    read -ra normal <<<"$(pins "$minor")"
    read -ra no_deps <<<"$(no_deps_pins "$minor")"
    rm -rf "$venv"
    "${PYTHON:-python3}" -m venv "$venv" || return 1
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${normal[@]}" || return 1
    if [ ${#no_deps[@]} -gt 0 ]; then
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "${no_deps[@]}" || return 1
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

# dbt in the consumer project, with its profile (the README's consumer profile, which keeps its
# Spark state under $HOME/.spark_state), a HOME of this minor's own and its compiled files apart
consumer() {
    local dbt="$1"
    shift
    HOME="$SPARK_WINDOWS_STATE_DIR/consumer_home" DBT_PROFILES_DIR="$PROJECT_DIR/integration_tests/consumer" \
        DBT_TARGET_PATH="$SPARK_WINDOWS_STATE_DIR/consumer_target" \
        "$dbt" "$@" --project-dir "$PROJECT_DIR/integration_tests/consumer"
}

run_minor() {
    local minor="$1" log="$LOGS/$1.log" dbt="$VENVS/$1/bin/dbt"
    export SPARK_WINDOWS_STATE_DIR="$PROJECT_DIR/.spark_state/versions/$minor"
    export SPARK_WINDOWS_TARGET=local
    rm -rf "$SPARK_WINDOWS_STATE_DIR"
    mkdir -p "$SPARK_WINDOWS_STATE_DIR/consumer_home"
    : >"$log"
    local step
    for step in flink consumer_deps consumer_ls consumer_build_empty consumer_build; do
        echo "version_matrix: dbt $minor, $step" >>"$log"
        case "$step" in
            flink) "$dbt" build --target local --select path:seeds/flink_reference path:models/flink_reference +sensor_vehicles_microbatch \
                --target-path "target/versions/$minor" >>"$log" 2>&1 ;;
            consumer_deps) consumer "$dbt" deps >>"$log" 2>&1 ;;
            consumer_ls) check_consumer_lists_nothing_of_ours "$dbt" "$log" ;;
            consumer_build_empty) consumer "$dbt" build --empty >>"$log" 2>&1 ;;
            consumer_build) consumer "$dbt" build >>"$log" 2>&1 ;;
        esac || {
            echo "dbt $minor: $step failed; the end of $log:" >&2
            tail -n 25 "$log" >&2
            return 1
        }
    done
}

failed=()
for minor in "${minors[@]}"; do
    start=$SECONDS
    if ! ensure_minor_venv "$minor" >"$LOGS/$minor.install.log" 2>&1; then
        echo "dbt $minor: install FAILED ($(wanted_pins "$minor")); the end of $LOGS/$minor.install.log:" >&2
        tail -n 20 "$LOGS/$minor.install.log" >&2
        failed+=("$minor")
        continue
    fi
    versions="$("$VENVS/$minor/bin/python" -c 'from importlib.metadata import version as v
print(" ".join(f"{p}=={v(p)}" for p in ("dbt-core", "dbt-spark", "pyspark")))')"
    if $install_only; then
        echo "dbt $minor: installed ($versions) in $((SECONDS - start)) s"
        continue
    fi
    if run_minor "$minor"; then
        echo "dbt $minor: passed ($versions) in $((SECONDS - start)) s"
    else
        echo "dbt $minor: FAILED ($versions); see $LOGS/$minor.log" >&2
        failed+=("$minor")
    fi
done

passed=$((${#minors[@]} - ${#failed[@]}))
echo "version_matrix: $passed passed, ${#failed[@]} failed"
if [ ${#failed[@]} -gt 0 ]; then
    echo "version_matrix: failed with dbt ${failed[*]}" >&2
    exit 1
fi
