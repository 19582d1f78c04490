#!/usr/bin/env bash
# A local Spark cluster from the installed pyspark: a standalone master, two workers and a
# Thrift (HiveServer2) server that submits to that master, all bound to 127.0.0.1, sharing one
# metastore and warehouse in .spark_state/cluster. The dbt target `cluster` connects to it.
#
#   scripts/cluster.sh start    start what is not running; wait until the Thrift port answers SQL
#   scripts/cluster.sh stop     stop exactly the processes this script started (recorded pids)
#   scripts/cluster.sh status   what runs, where, and where the logs are
#
# Ports (environment): SPARK_WINDOWS_MASTER_PORT (7077), SPARK_WINDOWS_THRIFT_PORT (10000);
# SPARK_WINDOWS_CLUSTER_DIR moves the state folder.
set -euo pipefail

PROJECT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE_DIR="${SPARK_WINDOWS_CLUSTER_DIR:-$PROJECT_DIR/.spark_state/cluster}"
RUN_DIR="$STATE_DIR/run"
LOG_DIR="$STATE_DIR/logs"
MASTER_PORT="${SPARK_WINDOWS_MASTER_PORT:-7077}"
THRIFT_PORT="${SPARK_WINDOWS_THRIFT_PORT:-10000}"
MASTER_URL="spark://127.0.0.1:$MASTER_PORT"
mkdir -p "$RUN_DIR" "$LOG_DIR" "$STATE_DIR/work"

# Every process this script starts names $STATE_DIR on its command line (from its first
# instant, as the spark-class script, to the JVM it becomes); a pid file whose process does not
# (the pid was reused after a reboot, say) is stale, and that process is never signalled.
DAEMON_CONF="$RUN_DIR/daemon.conf"

# What a process was started with, one argument per line; empty when it does not exist. A live
# process shows no command line while it replaces its program (execve: spark-class becomes java),
# for a moment that can last long on a loaded machine at the lowest priority: read it again then,
# for up to 10 s, rather than take a daemon starting up for a stranger or for one that exited.
command_line() { # pid
    local line tries=0
    while :; do
        if [ -r "/proc/$1/cmdline" ]; then
            line="$(tr '\0' '\n' <"/proc/$1/cmdline" 2>/dev/null || true)"
        else
            line="$(ps -o args= -p "$1" 2>/dev/null | tr ' ' '\n' || true)"
        fi
        if [ -n "$line" ] || [ "$tries" -ge 100 ] || ! alive "$1"; then
            break
        fi
        tries=$((tries + 1))
        sleep 0.1
    done
    printf '%s\n' "$line"
}

alive() { # pid: exists and is not a zombie (exited, not yet reaped by its parent)
    kill -0 "$1" 2>/dev/null && [ "$(ps -o stat= -p "$1" 2>/dev/null | cut -c1)" != Z ]
}

is_running() { # name: its pid file names a live process that this script started
    local pid_file="$RUN_DIR/$1.pid" pid
    [ -f "$pid_file" ] || return 1
    pid="$(cat "$pid_file")"
    # a here-string, not a pipe: grep -q leaves at its first match, and a pipe whose reader has
    # left kills its writer (SIGPIPE), which pipefail reports as a failure
    alive "$pid" && grep -qF -- "$STATE_DIR/" <<<"$(command_line "$pid")"
}

port_answers() { # port
    python3 - "$1" 2>/dev/null <<'PY'
import socket, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()
PY
}

# Before starting a process on a fixed port: a port that already answers belongs to another
# program (ours would fail to bind, and `start` would talk to the stranger).
require_free_port() { # name, port, variable
    if port_answers "$2"; then
        echo "cluster: port $2 (for the $1) is in use by another program; stop it, or choose" \
            "another port with $3=..." >&2
        exit 1
    fi
}

launch() { # name, command...
    local name="$1"
    shift
    if is_running "$name"; then
        echo "cluster: $name already runs (pid $(cat "$RUN_DIR/$name.pid"))"
        return 0
    fi
    # keep the previous log (of a crashed or stopped process) one launch longer
    [ -f "$LOG_DIR/$name.log" ] && mv -f "$LOG_DIR/$name.log" "$LOG_DIR/$name.log.1"
    nohup "$@" >"$LOG_DIR/$name.log" 2>&1 </dev/null 9>&- & # 9: the lock, not for daemons
    echo $! >"$RUN_DIR/$name.pid"
    echo "cluster: started $name (pid $!), log $LOG_DIR/$name.log"
}

wait_for_port() { # name, port, seconds
    local deadline=$((SECONDS + $3))
    until port_answers "$2"; do
        if ! is_running "$1"; then
            echo "cluster: $1 exited; last lines of $LOG_DIR/$1.log:" >&2
            tail -n 20 "$LOG_DIR/$1.log" >&2
            return 1
        fi
        if [ $SECONDS -ge $deadline ]; then
            echo "cluster: $1 did not open port $2 within $3 s; see $LOG_DIR/$1.log" >&2
            return 1
        fi
        sleep 1
    done
}

wait_for_sql() { # seconds
    local deadline=$((SECONDS + $1))
    until python - "$THRIFT_PORT" "$STATE_DIR/warehouse" >/dev/null 2>&1 <<'PY'; do
import sys
from pyhive import hive
connection = hive.connect(host="127.0.0.1", port=int(sys.argv[1]), username="dbt")
cursor = connection.cursor()
cursor.execute("select 1")
assert cursor.fetchall() == [(1,)]
cursor.execute("set spark.sql.warehouse.dir")  # ours, not another server on this port
assert sys.argv[2] in cursor.fetchall()[0][1]
PY
        if ! is_running thrift; then
            return 3 # exited; the caller decides whether that is an error
        fi
        if [ $SECONDS -ge $deadline ]; then
            echo "cluster: the Thrift server does not answer SQL on port $THRIFT_PORT within $1 s;" \
                "see $LOG_DIR/thrift.log" >&2
            return 1
        fi
        sleep 2
    done
}

start() {
    source "$PROJECT_DIR/scripts/_setup.sh" # Java 17 and .venv, installed when missing
    SPARK_HOME="$(python -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')"
    export SPARK_HOME SPARK_LOCAL_IP=127.0.0.1 SPARK_MASTER_HOST=127.0.0.1
    export SPARK_DAEMON_MEMORY="${SPARK_DAEMON_MEMORY:-512m}"
    # master and workers: no silent move to the next port when theirs is taken, no REST
    # server, and workers delete the folders of finished applications
    cat >"$DAEMON_CONF" <<CONF
spark.port.maxRetries 0
spark.master.rest.enabled false
spark.worker.cleanup.enabled true
spark.worker.cleanup.appDataTtl 3600
CONF
    is_running master || require_free_port master "$MASTER_PORT" SPARK_WINDOWS_MASTER_PORT
    is_running thrift || require_free_port "Thrift server" "$THRIFT_PORT" SPARK_WINDOWS_THRIFT_PORT
    launch master "$SPARK_HOME/bin/spark-class" org.apache.spark.deploy.master.Master \
        --host 127.0.0.1 --port "$MASTER_PORT" --webui-port 0 --properties-file "$DAEMON_CONF"
    wait_for_port master "$MASTER_PORT" 60
    for worker in 1 2; do
        launch "worker$worker" "$SPARK_HOME/bin/spark-class" org.apache.spark.deploy.worker.Worker \
            --host 127.0.0.1 --cores 1 --memory 1536m --webui-port 0 \
            --work-dir "$STATE_DIR/work/worker$worker" --properties-file "$DAEMON_CONF" "$MASTER_URL"
    done
    # A Thrift server that was told to stop (or crashed) can still be alive for a few seconds
    # while it shuts down: `start` then finds it "running", sees it exit, and starts a new one.
    local was_running=0 waited=0
    is_running thrift && was_running=1
    launch_thrift
    wait_for_sql 180 || waited=$?
    if [ "$waited" -eq 3 ] && [ "$was_running" -eq 1 ]; then
        echo "cluster: the Thrift server that was running has exited; starting a new one"
        waited=0
        launch_thrift
        wait_for_sql 180 || waited=$?
    fi
    if [ "$waited" -eq 3 ]; then
        echo "cluster: the Thrift server exited; last lines of $LOG_DIR/thrift.log:" >&2
        tail -n 20 "$LOG_DIR/thrift.log" >&2
    fi
    if [ "$waited" -ne 0 ]; then
        echo "cluster: start failed; 'scripts/cluster.sh stop' stops what did start" >&2
        return 1
    fi
    echo "cluster: Thrift server answers SQL on 127.0.0.1:$THRIFT_PORT (master $MASTER_URL)"
}

# the driver and executors use the parallel collector, as the local target does (profiles.yml):
# the whole project built on this cluster in 138 s and 88 s (a cold, then a warm server) against
# 158 s and 107 s with Java's default G1
launch_thrift() {
    launch thrift "$SPARK_HOME/bin/spark-submit" \
        --class org.apache.spark.sql.hive.thriftserver.HiveThriftServer2 \
        --name spark_windows_thrift \
        --master "$MASTER_URL" \
        --driver-memory 1g --executor-memory 1g --total-executor-cores 2 \
        --conf spark.driver.host=127.0.0.1 \
        --conf spark.ui.enabled=false \
        --conf spark.sql.session.timeZone=UTC \
        --conf spark.sql.shuffle.partitions=4 \
        --conf "spark.sql.warehouse.dir=$STATE_DIR/warehouse" \
        --conf "spark.hadoop.javax.jdo.option.ConnectionURL=jdbc:derby:;databaseName=$STATE_DIR/metastore_db;create=true" \
        --conf "spark.driver.extraJavaOptions=-XX:+UseParallelGC -Dderby.system.home=$STATE_DIR" \
        --conf spark.executor.extraJavaOptions=-XX:+UseParallelGC \
        --hiveconf hive.server2.thrift.bind.host=127.0.0.1 \
        --hiveconf "hive.server2.thrift.port=$THRIFT_PORT" \
        spark-internal
}

stop() {
    local name pid
    for name in thrift worker2 worker1 master; do
        if is_running "$name"; then
            pid="$(cat "$RUN_DIR/$name.pid")"
            kill "$pid" 2>/dev/null || true # it may have exited just now
            for _ in $(seq 1 30); do
                alive "$pid" || break
                sleep 1
            done
            if alive "$pid"; then kill -9 "$pid" 2>/dev/null || true; fi
            echo "cluster: stopped $name (pid $pid)"
        fi
        rm -f "$RUN_DIR/$name.pid"
    done
}

status() {
    local name running=0
    for name in master worker1 worker2 thrift; do
        if is_running "$name"; then
            running=$((running + 1))
            echo "cluster: $name runs (pid $(cat "$RUN_DIR/$name.pid")), log $LOG_DIR/$name.log"
        else
            echo "cluster: $name is not running, log $LOG_DIR/$name.log"
        fi
    done
    echo "cluster: master $MASTER_URL, Thrift 127.0.0.1:$THRIFT_PORT, state $STATE_DIR"
    [ "$running" -eq 4 ]
}

# one start or stop at a time (where util-linux's flock exists)
exec 9>"$RUN_DIR/lock"
if command -v flock >/dev/null 2>&1; then flock 9; fi

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) status ;;
    *)
        echo "usage: scripts/cluster.sh start|stop|status" >&2
        exit 2
        ;;
esac
