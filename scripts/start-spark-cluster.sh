#!/usr/bin/env bash
# Start a local Spark cluster as teams run one: a standalone master, two workers and a Spark Thrift
# server (HiveThriftServer2) running its queries on them, all on 127.0.0.1, all from the jars of the
# installed pyspark wheel (nothing is downloaded). The `spark_thrift` target of
# profiles/profiles.yml connects to the Thrift server (dbt-spark's thrift method).
#
# Returns once the Thrift server accepts connections; says where the logs are. Idempotent: a
# cluster this script started and that still runs is left as it is. scripts/stop-spark-cluster.sh
# stops what this script started (the pid files in the cluster folder).
# Settings (environment variables; the profile reads the same port):
#   INCENTIVES_SPARK_CLUSTER_DIR (./spark-cluster)   pid files, logs, metastore, warehouse
#   INCENTIVES_SPARK_THRIFT_PORT (10000)  INCENTIVES_SPARK_MASTER_PORT (7077)
#   INCENTIVES_SPARK_WORKERS (2)  INCENTIVES_SPARK_WORKER_CORES (1)  INCENTIVES_SPARK_WORKER_MEMORY (2g)
#   INCENTIVES_SPARK_EXECUTOR_MEMORY (1536m)  INCENTIVES_SPARK_THRIFT_DRIVER_MEMORY (4g)
#   INCENTIVES_SPARK_SHUFFLE_PARTITIONS (4)  INCENTIVES_SPARK_MASTER_UI_PORT (0: any free port)
#   INCENTIVES_SPARK_UI_PORT (4040: the server application's web UI and REST API, on 127.0.0.1;
#   Spark takes the next free port when it is taken, the start script prints the one it got)
#   INCENTIVES_SPARK_START_TIMEOUT (240: seconds to wait for each process to accept connections)
#   INCENTIVES_PYTHON (.venv/bin/python: the Python whose pyspark provides the jars)
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${INCENTIVES_PYTHON:-.venv/bin/python}
DIR=$(realpath -m "${INCENTIVES_SPARK_CLUSTER_DIR:-spark-cluster}")
HOST=127.0.0.1
MASTER_PORT=${INCENTIVES_SPARK_MASTER_PORT:-7077}
THRIFT_PORT=${INCENTIVES_SPARK_THRIFT_PORT:-10000}
WORKERS=${INCENTIVES_SPARK_WORKERS:-2}
WORKER_CORES=${INCENTIVES_SPARK_WORKER_CORES:-1}
WORKER_MEMORY=${INCENTIVES_SPARK_WORKER_MEMORY:-2g}
DRIVER_MEMORY=${INCENTIVES_SPARK_THRIFT_DRIVER_MEMORY:-4g}
SHUFFLE_PARTITIONS=${INCENTIVES_SPARK_SHUFFLE_PARTITIONS:-4}
TIMEOUT=${INCENTIVES_SPARK_START_TIMEOUT:-240}

say() { echo "start-spark-cluster: $*"; }
fail() { echo "start-spark-cluster: $*" >&2; exit 1; }
accepts() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }
alive() { [ -f "$DIR/pids/$1.pid" ] && kill -0 "$(cat "$DIR/pids/$1.pid")" 2>/dev/null; }
# the server application's UI (stages, SQL plans; REST API under /api/v1) on the port its log reports
say_ui() {
    local port
    port=$(sed -n "s/.*Successfully started service 'SparkUI' on port \([0-9]*\).*/\1/p" \
           "$DIR/logs/thriftserver.log" 2>/dev/null | tail -n 1)
    if [ -n "$port" ]; then
        say "the server's Spark UI: http://$HOST:$port (REST API: http://$HOST:$port/api/v1/applications)"
    fi
}

scripts/ensure-java.sh >/dev/null
[ -x "$PYTHON" ] || fail "$PYTHON not found: run 'make install' first (or set INCENTIVES_PYTHON)"
SPARK_HOME=$("$PYTHON" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))') \
    || fail "pyspark is not installed in $PYTHON: run 'make install'"
ls "$SPARK_HOME"/jars/spark-hive-thriftserver_*.jar >/dev/null 2>&1 \
    || fail "the pyspark wheel in $SPARK_HOME has no spark-hive-thriftserver jar"

mkdir -p "$DIR/pids" "$DIR/logs" "$DIR/work" "$DIR/tmp"
if alive thriftserver; then
    if accepts "$THRIFT_PORT"; then
        say "already running: Thrift server on $HOST:$THRIFT_PORT (logs in $DIR/logs)"
        say_ui
        exit 0
    fi
fi
for name in thriftserver master $(seq -f 'worker%g' 1 "$WORKERS"); do
    if alive "$name"; then
        fail "$name of an earlier start (pid $(cat "$DIR/pids/$name.pid")) still runs but the Thrift server" \
             "does not answer on $HOST:$THRIFT_PORT: run scripts/stop-spark-cluster.sh first"
    fi
done
rm -f "$DIR"/pids/*.pid
accepts "$THRIFT_PORT" && fail "port $THRIFT_PORT on $HOST is taken by another process (set INCENTIVES_SPARK_THRIFT_PORT)"
accepts "$MASTER_PORT" && fail "port $MASTER_PORT on $HOST is taken by another process (set INCENTIVES_SPARK_MASTER_PORT)"

export SPARK_HOME SPARK_LOCAL_IP=$HOST SPARK_LOCAL_HOSTNAME=localhost SPARK_DAEMON_MEMORY=512m
export SPARK_MASTER_OPTS="-Dspark.master.rest.enabled=false"
export SPARK_WORKER_DIR="$DIR/work" SPARK_LOCAL_DIRS="$DIR/tmp" SPARK_LOG_DIR="$DIR/logs"
unset SPARK_CONF_DIR PYSPARK_SUBMIT_ARGS

# start NAME CLASS-OR-SUBMIT ARGS...: a detached process (own session: a Ctrl-C in this terminal
# does not reach it), its output in logs/NAME.log, its pid in pids/NAME.pid
start() {
    local name=$1; shift
    setsid "$@" >"$DIR/logs/$name.log" 2>&1 </dev/null &
    echo $! >"$DIR/pids/$name.pid"
}
wait_for_port() {  # NAME PORT
    local deadline=$((SECONDS + TIMEOUT))
    until accepts "$2"; do
        if ! alive "$1"; then
            tail -n 30 "$DIR/logs/$1.log" >&2 || true
            fail "$1 stopped while starting; its log: $DIR/logs/$1.log"
        fi
        [ $SECONDS -lt $deadline ] || fail "$1 does not accept connections on $HOST:$2 after ${TIMEOUT}s; its log: $DIR/logs/$1.log"
        sleep 1
    done
}

MASTER_URL="spark://$HOST:$MASTER_PORT"
say "starting the standalone master $MASTER_URL"
start master "$SPARK_HOME/bin/spark-class" org.apache.spark.deploy.master.Master \
    --host "$HOST" --port "$MASTER_PORT" --webui-port "${INCENTIVES_SPARK_MASTER_UI_PORT:-0}"
wait_for_port master "$MASTER_PORT"

say "starting $WORKERS workers ($WORKER_CORES core, $WORKER_MEMORY each)"
for i in $(seq 1 "$WORKERS"); do
    mkdir -p "$DIR/work/worker$i"
    start "worker$i" "$SPARK_HOME/bin/spark-class" org.apache.spark.deploy.worker.Worker \
        --host "$HOST" --webui-port 0 --cores "$WORKER_CORES" --memory "$WORKER_MEMORY" \
        --work-dir "$DIR/work/worker$i" "$MASTER_URL"
done

# The Thrift server is the application's driver; its executors run on the workers. The decimal
# settings are the project's (see profiles/profiles.yml, target spark): exact products and
# quotients, and ANSI mode (an overflow or a bad cast fails instead of returning NULL).
say "starting the Thrift server on $HOST:$THRIFT_PORT"
EXECUTOR_MEMORY=${INCENTIVES_SPARK_EXECUTOR_MEMORY:-1536m}
# INCENTIVES_SPARK_JAVA_OPTIONS: more options of the server's and the executors' JVMs (make test
# passes the tests' ones, see the Makefile)
JAVA_OPTIONS=${INCENTIVES_SPARK_JAVA_OPTIONS:-}
EXECUTOR_JAVA=()
if [ -n "$JAVA_OPTIONS" ]; then EXECUTOR_JAVA=(--conf "spark.executor.extraJavaOptions=$JAVA_OPTIONS"); fi
# Spark's launcher sizes the Thrift server's JVM from SPARK_DAEMON_MEMORY (not --driver-memory)
start thriftserver env SPARK_DAEMON_MEMORY="$DRIVER_MEMORY" "$SPARK_HOME/bin/spark-submit" \
    --master "$MASTER_URL" --name incentives-thrift-server \
    --class org.apache.spark.sql.hive.thriftserver.HiveThriftServer2 \
    --driver-memory "$DRIVER_MEMORY" \
    --driver-java-options "-Dderby.system.home=$DIR $JAVA_OPTIONS" "${EXECUTOR_JAVA[@]}" \
    --conf spark.driver.host="$HOST" --conf spark.driver.bindAddress="$HOST" \
    --conf spark.executor.cores="$WORKER_CORES" --conf spark.executor.memory="$EXECUTOR_MEMORY" \
    --conf spark.cores.max=$((WORKERS * WORKER_CORES)) \
    --conf spark.ui.port="${INCENTIVES_SPARK_UI_PORT:-4040}" --conf spark.ui.killEnabled=false \
    --conf spark.ui.retainedJobs=5000 --conf spark.ui.retainedStages=5000 \
    --conf spark.sql.ui.retainedExecutions=5000 \
    --conf spark.sql.warehouse.dir="$DIR/warehouse" \
    --conf spark.hadoop.javax.jdo.option.ConnectionURL="jdbc:derby:;databaseName=$DIR/metastore_db;create=true" \
    --conf spark.sql.decimalOperations.allowPrecisionLoss=false \
    --conf spark.sql.ansi.enabled=true \
    --conf spark.sql.storeAssignmentPolicy=ANSI \
    --conf spark.sql.session.timeZone=UTC \
    --conf spark.sql.parquet.datetimeRebaseModeInWrite=CORRECTED \
    --conf spark.sql.parquet.datetimeRebaseModeInRead=CORRECTED \
    --conf spark.sql.parquet.int96RebaseModeInWrite=CORRECTED \
    --conf spark.sql.parquet.int96RebaseModeInRead=CORRECTED \
    --conf spark.sql.shuffle.partitions="$SHUFFLE_PARTITIONS" \
    spark-internal \
    --hiveconf hive.server2.thrift.bind.host="$HOST" \
    --hiveconf hive.server2.thrift.port="$THRIFT_PORT"
wait_for_port thriftserver "$THRIFT_PORT"

say "Spark Thrift server on $HOST:$THRIFT_PORT (master $MASTER_URL, $WORKERS workers)"
say_ui
say "logs: $DIR/logs (executors: $DIR/work); stop with scripts/stop-spark-cluster.sh"
