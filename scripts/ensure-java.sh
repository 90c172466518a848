#!/usr/bin/env bash
# Make sure a Java runtime that PySpark 4 accepts (17 or newer) is installed: Debian's
# default-jre-headless (OpenJDK 17 on bookworm, 21 on trixie) through apt-get when it is missing.
# Idempotent; PySpark runs Spark in-process from the pip wheel's jars (nothing is downloaded at run time).
set -euo pipefail

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

java_major() {
    java -version 2>&1 | awk -F'"' '/version/ {split($2, v, "."); print (v[1] == "1" ? v[2] : v[1]); exit}'
}

if ! command -v java >/dev/null 2>&1 || [ "$(java_major)" -lt 17 ]; then
    echo "ensure-java: installing Debian's default-jre-headless (PySpark needs Java 17+)"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends default-jre-headless >/dev/null
fi
MAJOR=$(java_major)
if [ "$MAJOR" -lt 17 ]; then
    echo "ensure-java: java $MAJOR found; PySpark 4 needs Java 17 or newer (set JAVA_HOME or PATH)" >&2
    exit 1
fi
echo "ensure-java: java $MAJOR"
