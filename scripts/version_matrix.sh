#!/usr/bin/env bash
# Builds the package with every dbt minor it admits (require-dbt-version in dbt_project.yml):
# for each minor, a virtual environment of its own in .venv-versions/<minor> (made again only
# when its pins below change; pip's cache is reused), then on the embedded local Spark
#   - the Flink reference models of this project, with their seeds and equals_expected tests;
#   - the consumer project integration_tests/consumer (spark_windows installed as a package):
#     `dbt ls` must list none of spark_windows' models, seeds or data tests, and `dbt build`
#     must pass.
# Usage: scripts/version_matrix.sh [--install-only] [minor ...]   (default: every minor below)
# Prints one line per minor and ends with a summary; exits 1 when any minor failed.
set -euo pipefail

PROJECT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$PROJECT_DIR"

# dbt-core minor -> what is installed with it (dbt-spark 1.10 and 1.11 accept pyspark 3 and 4).
# Not 1.8 and 1.9: this project's data tests nest their arguments under `arguments:`, which dbt
# 1.10 introduced (README, "dbt versions").
pins() {
    case "$1" in
        1.10) echo "dbt-core~=1.10.0 dbt-spark[session]~=1.10.0 pyspark==4.1.4" ;;
        1.11) echo "dbt-core~=1.11.0 dbt-spark[session]~=1.11.0 pyspark==4.1.4" ;;
        *) return 1 ;;
    esac
}
ALL_MINORS=(1.10 1.11)

install_only=false
minors=()
for arg in "$@"; do
    case "$arg" in
        --install-only) install_only=true ;;
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

# Java 17 and the environment dbt needs (profiles, SPARK_LOCAL_IP); not the project's own .venv
SPARK_WINDOWS_SETUP_VENV=false source scripts/_setup.sh
VENVS="$PROJECT_DIR/.venv-versions"
LOGS="$VENVS/logs"
mkdir -p "$LOGS"

ensure_minor_venv() {
    local minor="$1" venv="$VENVS/$1" wanted
    wanted="$(pins "$minor")"
    if [ -f "$venv/.pins" ] && [ "$(cat "$venv/.pins")" = "$wanted" ] && "$venv/bin/dbt" --version >/dev/null 2>&1; then
        return 0
    fi
    rm -rf "$venv"
    "${PYTHON:-python3}" -m venv "$venv"
    # shellcheck disable=SC2086 # the pins are separate words
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check $wanted
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
    for step in flink consumer_deps consumer_ls consumer_build; do
        echo "version_matrix: dbt $minor, $step" >>"$log"
        case "$step" in
            flink) "$dbt" build --target local --select path:seeds/flink_reference path:models/flink_reference \
                --target-path "target/versions/$minor" >>"$log" 2>&1 ;;
            consumer_deps) consumer "$dbt" deps >>"$log" 2>&1 ;;
            consumer_ls) check_consumer_lists_nothing_of_ours "$dbt" "$log" ;;
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
        echo "dbt $minor: install FAILED ($(pins "$minor")); the end of $LOGS/$minor.install.log:" >&2
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
