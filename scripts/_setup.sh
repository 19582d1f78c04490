#!/usr/bin/env bash
# Shared set-up for scripts/demo.sh and scripts/test.sh; safe to run again and again.
# - checks for Java 17+ (Spark 4 needs it) and installs openjdk-17-jre-headless with apt-get
#   when it is missing;
# - creates .venv and installs into it the requirements file named by SPARK_WINDOWS_REQUIREMENTS
#   (default requirements-dev.txt: tests, lint and tools; scripts/demo.sh asks only for
#   requirements.txt), again only when what it names changed; with SPARK_WINDOWS_SETUP_VENV=false
#   it leaves .venv alone (scripts/version_matrix.sh, which makes virtual environments of its own);
# - defines ensure_class_archive, which scripts/test.sh calls (a class-data archive of Spark's classes);
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
    # one stamp per requirements file, holding the hash of that file and of requirements.txt
    # (which requirements-dev.txt includes): a change to either installs again
    local wanted_file="${SPARK_WINDOWS_REQUIREMENTS:-requirements-dev.txt}"
    local stamp=".venv/.${wanted_file%.txt}.sha256"
    local wanted
    wanted="$(cat "$wanted_file" requirements.txt | sha256sum | cut -d' ' -f1)"
    if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
        echo "setup: installing $wanted_file into .venv" >&2
        .venv/bin/python -m pip install --quiet --upgrade pip
        .venv/bin/python -m pip install --quiet -r "$wanted_file"
        echo "$wanted" >"$stamp"
    fi
}

# A class-data archive of an embedded Spark's classes (scripts/_class_archive.py), one per Java
# and pyspark release, kept beside pip's cache: each Spark the profile's `local` target starts
# maps it (SPARK_WINDOWS_JAVA_OPTIONS) and starts 3-5 s sooner. Written once, in 30-45 s, so
# only scripts/test.sh, which starts a dozen Sparks, asks for it (a first demo would wait
# longer for it than it saves); SPARK_WINDOWS_CLASS_ARCHIVE=false neither writes nor uses one.
ensure_class_archive() {
    [ "${SPARK_WINDOWS_CLASS_ARCHIVE:-true}" != false ] || return 0
    local java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java" key archive
    # the key names Java's and pyspark's releases; options the environment gives every JVM
    # (.ci/run gives some beside the suite) change `java -version`'s output, not the archive
    key="$({ env -u JAVA_TOOL_OPTIONS -u JDK_JAVA_OPTIONS "$java_bin" -version 2>&1; .venv/bin/python -c 'import importlib.metadata as m; print(m.version("pyspark"))'; } |
        sha256sum | cut -c1-16)"
    archive="${XDG_CACHE_HOME:-$HOME/.cache}/spark_windows/spark-classes-$key.jsa"
    if [ ! -f "$archive" ]; then
        echo "setup: writing a class-data archive of Spark's classes (once per Java and pyspark release)" >&2
        if ! .venv/bin/python scripts/_class_archive.py "$archive" >/dev/null 2>&1; then
            echo "setup: no class-data archive was written; Spark starts without one" >&2
        fi
    fi
    if [ -f "$archive" ]; then
        export SPARK_WINDOWS_JAVA_OPTIONS="-XX:SharedArchiveFile=$archive -Xlog:disable -Xlog:all=error:stderr"
    fi
}

ensure_java
if [ "${SPARK_WINDOWS_SETUP_VENV:-true}" != false ]; then
    ensure_venv
fi

export PATH="$PROJECT_DIR/.venv/bin:$PATH"
export DBT_PROFILES_DIR="$PROJECT_DIR/profiles"
export SPARK_LOCAL_IP="${SPARK_LOCAL_IP:-127.0.0.1}"
export DBT_SEND_ANONYMOUS_USAGE_STATS=false
export PYTHONDONTWRITEBYTECODE=1
