#!/usr/bin/env bash
# Start a PostgreSQL server for `incentives run --target postgres` and the engine tests.
#
# Idempotent: installs Debian's `postgresql` package when no server is installed (apt-get, as root
# or through sudo), creates a cluster when none exists, starts it listening on 127.0.0.1 only, and
# creates the login role and the database the `postgres` target of profiles/profiles.yml uses.
# Settings (the same environment variables the profile reads):
#   INCENTIVES_PG_PORT (5432)  INCENTIVES_PG_USER (incentives)  INCENTIVES_PG_PASSWORD (incentives)
#   INCENTIVES_PG_DATABASE (incentives)  INCENTIVES_PG_CLUSTER (main)
set -euo pipefail

PORT=${INCENTIVES_PG_PORT:-5432}
ROLE=${INCENTIVES_PG_USER:-incentives}
PASSWORD=${INCENTIVES_PG_PASSWORD:-incentives}
DATABASE=${INCENTIVES_PG_DATABASE:-incentives}
CLUSTER=${INCENTIVES_PG_CLUSTER:-main}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else sudo -u postgres "$@"; fi; }
say() { echo "start-postgres: $*"; }

if ! command -v pg_lsclusters >/dev/null 2>&1 || ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
    say "installing Debian's postgresql package"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
fi

VERSION=$(ls /usr/lib/postgresql | sort -n | tail -1)
if ! pg_lsclusters -h | awk -v v="$VERSION" -v c="$CLUSTER" '$1 == v && $2 == c {found=1} END {exit !found}'; then
    say "creating cluster $VERSION/$CLUSTER on port $PORT"
    as_root pg_createcluster "$VERSION" "$CLUSTER" --port "$PORT" >/dev/null
fi

CLUSTER_PORT=$(pg_lsclusters -h | awk -v v="$VERSION" -v c="$CLUSTER" '$1 == v && $2 == c {print $3}')
if [ "$CLUSTER_PORT" != "$PORT" ]; then
    echo "start-postgres: cluster $VERSION/$CLUSTER uses port $CLUSTER_PORT, not $PORT;" \
         "set INCENTIVES_PG_PORT=$CLUSTER_PORT (or INCENTIVES_PG_CLUSTER)" >&2
    exit 1
fi

# loopback only (a drop-in of the cluster's conf.d, read by Debian's postgresql.conf)
CONF_D=/etc/postgresql/$VERSION/$CLUSTER/conf.d
if [ ! -f "$CONF_D/incentives.conf" ]; then
    printf "# written by incentives' scripts/start-postgres.sh\nlisten_addresses = '127.0.0.1'\n" \
        | as_root tee "$CONF_D/incentives.conf" >/dev/null
fi
STATUS=$(pg_lsclusters -h | awk -v v="$VERSION" -v c="$CLUSTER" '$1 == v && $2 == c {print $4}')
if [ "$STATUS" != "online" ]; then
    say "starting cluster $VERSION/$CLUSTER"
    as_root pg_ctlcluster "$VERSION" "$CLUSTER" start
fi

for _ in $(seq 1 60); do
    as_postgres pg_isready -q -h 127.0.0.1 -p "$PORT" && break
    sleep 0.5
done
as_postgres pg_isready -q -h 127.0.0.1 -p "$PORT" || { echo "start-postgres: the server did not come up" >&2; exit 1; }

as_postgres psql -q -X -v ON_ERROR_STOP=1 -p "$PORT" -d postgres \
    -v role="$ROLE" -v password="$PASSWORD" -v database="$DATABASE" <<'SQL'
select format('create role %I login password %L', :'role', :'password')
 where not exists (select from pg_roles where rolname = :'role') \gexec
select format('alter role %I login password %L', :'role', :'password') \gexec
select format('create database %I owner %I template template0 encoding %L', :'database', :'role', 'UTF8')
 where not exists (select from pg_database where datname = :'database') \gexec
SQL
say "PostgreSQL $VERSION listening on 127.0.0.1:$PORT, database $DATABASE, role $ROLE"
