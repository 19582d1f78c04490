#!/usr/bin/env bash
# Shared set-up for scripts/demo.sh and scripts/test.sh; safe to run again and again.
# - checks for Java 17+ (Spark 4.1 needs it) and installs openjdk-17-jre-headless with apt-get
#   when it is missing;
# - creates .venv and installs requirements.txt into it (again only when the file changed);
# - exports what dbt needs to find this project's profiles and its local Spark state.
set -euo pipefail

PROJECT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$PROJECT_DIR"

java_major() {
    local java_bin="$1"
    "$java_bin" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1
}

ensure_java() {
    local java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java"
    if command -v "$java_bin" >/dev/null 2>&1 && [ "$(java_major "$java_bin")" -ge 17 ] 2>/dev/null; then
        return 0
    fi
    echo "setup: Java 17 or newer not found; installing openjdk-17-jre-headless with apt-get" >&2
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then sudo="sudo"; fi
    fi
    if ! command -v apt-get >/dev/null 2>&1 ||
        ! $sudo apt-get update -qq ||
        ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq openjdk-17-jre-headless >/dev/null; then
        echo "setup: could not install Java. Install a Java 17 runtime (Debian/Ubuntu:" \
            "'apt-get install openjdk-17-jre-headless') and set JAVA_HOME, then run this again." >&2
        exit 1
    fi
    local home
    home="$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")"
    export JAVA_HOME="$home"
    if [ "$(java_major "$JAVA_HOME/bin/java")" -lt 17 ] 2>/dev/null; then
        for candidate in /usr/lib/jvm/java-17-openjdk-*; do
            [ -x "$candidate/bin/java" ] && export JAVA_HOME="$candidate"
        done
    fi
}

ensure_venv() {
    local python="${PYTHON:-python3}"
    # a .venv left half-made (say, venv failed for want of python3-venv) is made again
    if ! .venv/bin/python -m pip --version >/dev/null 2>&1; then
        rm -rf .venv
        if ! "$python" -m venv .venv; then
            echo "setup: '$python -m venv' failed; install Python 3.10+ with its venv module" \
                "(Debian/Ubuntu: 'apt-get install python3-venv'), then run this again." >&2
            exit 1
        fi
    fi
    local stamp=.venv/.requirements.sha256
    local wanted
    wanted="$(sha256sum requirements.txt | cut -d' ' -f1)"
    if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
        echo "setup: installing requirements.txt into .venv" >&2
        .venv/bin/python -m pip install --quiet --upgrade pip
        .venv/bin/python -m pip install --quiet -r requirements.txt
        echo "$wanted" >"$stamp"
    fi
}

ensure_java
ensure_venv

export PATH="$PROJECT_DIR/.venv/bin:$PATH"
export DBT_PROFILES_DIR="$PROJECT_DIR/profiles"
export SPARK_LOCAL_IP="${SPARK_LOCAL_IP:-127.0.0.1}"
export DBT_SEND_ANONYMOUS_USAGE_STATS=false
export PYTHONDONTWRITEBYTECODE=1
