#!/usr/bin/env bash
# A local Spark cluster from the installed pyspark: a standalone master, two workers and a
# Thrift (HiveServer2) server that submits to that master, all bound to 127.0.0.1, sharing one
# metastore and warehouse in .spark_state/cluster. The dbt target `cluster` connects to it.
#
#   scripts/cluster.sh start    start what is not running; wait until the Thrift port answers SQL
#   scripts/cluster.sh stop     stop exactly the processes this script started (recorded pids)
#   scripts/cluster.sh status   what runs, where, and where the logs are
#
# Ports (environment): SPARK_WINDOWS_MASTER_PORT (7077), SPARK_WINDOWS_THRIFT_PORT (10000).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_setup.sh"

STATE_DIR="$PROJECT_DIR/.spark_state/cluster"
RUN_DIR="$STATE_DIR/run"
LOG_DIR="$STATE_DIR/logs"
MASTER_PORT="${SPARK_WINDOWS_MASTER_PORT:-7077}"
THRIFT_PORT="${SPARK_WINDOWS_THRIFT_PORT:-10000}"
MASTER_URL="spark://127.0.0.1:$MASTER_PORT"
SPARK_HOME="$(python -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')"
export SPARK_HOME SPARK_LOCAL_IP=127.0.0.1 SPARK_MASTER_HOST=127.0.0.1
export SPARK_DAEMON_MEMORY="${SPARK_DAEMON_MEMORY:-512m}"
mkdir -p "$RUN_DIR" "$LOG_DIR" "$STATE_DIR/work"

is_running() { # name
    local pid_file="$RUN_DIR/$1.pid"
    [ -f "$pid_file" ] && kill -0 "$(cat "$pid_file")" 2>/dev/null
}

launch() { # name, command...
    local name="$1"
    shift
    if is_running "$name"; then
        echo "cluster: $name already runs (pid $(cat "$RUN_DIR/$name.pid"))"
        return 0
    fi
    nohup "$@" >"$LOG_DIR/$name.log" 2>&1 </dev/null &
    echo $! >"$RUN_DIR/$name.pid"
    echo "cluster: started $name (pid $!), log $LOG_DIR/$name.log"
}

wait_for_port() { # name, port, seconds
    local deadline=$((SECONDS + $3))
    until python - "$2" <<'PY' 2>/dev/null; do
import socket, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()
PY
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
    until python - "$THRIFT_PORT" >/dev/null 2>&1 <<'PY'; do
import sys
from pyhive import hive
connection = hive.connect(host="127.0.0.1", port=int(sys.argv[1]), username="dbt")
cursor = connection.cursor()
cursor.execute("select 1")
assert cursor.fetchall() == [(1,)]
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
    launch master "$SPARK_HOME/bin/spark-class" org.apache.spark.deploy.master.Master \
        --host 127.0.0.1 --port "$MASTER_PORT" --webui-port 0
    wait_for_port master "$MASTER_PORT" 60
    for worker in 1 2; do
        launch "worker$worker" "$SPARK_HOME/bin/spark-class" org.apache.spark.deploy.worker.Worker \
            --host 127.0.0.1 --cores 1 --memory 1536m --webui-port 0 \
            --work-dir "$STATE_DIR/work/worker$worker" "$MASTER_URL"
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
    [ "$waited" -eq 0 ] || return 1
    echo "cluster: Thrift server answers SQL on 127.0.0.1:$THRIFT_PORT (master $MASTER_URL)"
}

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
        --conf "spark.driver.extraJavaOptions=-Dderby.system.home=$STATE_DIR" \
        --hiveconf hive.server2.thrift.bind.host=127.0.0.1 \
        --hiveconf "hive.server2.thrift.port=$THRIFT_PORT" \
        spark-internal
}

stop() {
    local name pid
    for name in thrift worker2 worker1 master; do
        if is_running "$name"; then
            pid="$(cat "$RUN_DIR/$name.pid")"
            kill "$pid"
            for _ in $(seq 1 30); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 1
            done
            kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
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

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) status ;;
    *)
        echo "usage: scripts/cluster.sh start|stop|status" >&2
        exit 2
        ;;
esac
