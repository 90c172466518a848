#!/usr/bin/env bash
# Stop what scripts/start-spark-cluster.sh started: the processes named by its pid files (the
# Thrift server first, then the workers, then the master), and nothing else. The metastore and the
# warehouse stay in the cluster folder for the next start.
# Settings: INCENTIVES_SPARK_CLUSTER_DIR (./spark-cluster), as for the start script.
set -euo pipefail
cd "$(dirname "$0")/.."

DIR=$(realpath -m "${INCENTIVES_SPARK_CLUSTER_DIR:-spark-cluster}")
say() { echo "stop-spark-cluster: $*"; }

# the class each pid file's process runs: a pid reused by another process is left alone
declare -A CLASS=([thriftserver]=HiveThriftServer2 [master]=deploy.master.Master)
stop() {  # NAME
    local name=$1 file="$DIR/pids/$1.pid" pid
    [ -f "$file" ] || return 0
    pid=$(cat "$file")
    if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "${CLASS[$name]:-deploy.worker.Worker}"; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
        if kill -0 "$pid" 2>/dev/null; then
            say "$name (pid $pid) did not stop in 30s; killing it"
            kill -KILL "$pid" 2>/dev/null || true
        fi
        say "stopped $name (pid $pid)"
    fi
    rm -f "$file"
}

[ -d "$DIR/pids" ] || { say "nothing to stop (no $DIR/pids)"; exit 0; }
stop thriftserver
for file in "$DIR"/pids/worker*.pid; do
    [ -e "$file" ] && stop "$(basename "$file" .pid)"
done
stop master
