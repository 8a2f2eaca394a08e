#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests of the relay's Postgres store (docs/spec/relay.md §4).
#
#   .ci/postgres.sh start   prints `export FAIRTABLE_TEST_DATABASE_URL=...` for `eval`
#   .ci/postgres.sh stop    stops it and removes its files
#
# The cluster lives in a temporary directory owned by the `postgres` user when run as root (postgres refuses to run as root),
# listens on 127.0.0.1 only, on PGPORT_TEST (default 55432), with its unix socket in the same directory. One
# role and one database, `fairtable`, with a password; each test makes its own schema in it.
set -euo pipefail

port="${PGPORT_TEST:-55432}"
state="${TMPDIR:-/tmp}/fairtable-ci-postgres-${port}"
password="fairtable-ci"

bindir() {
  local d
  for d in /usr/lib/postgresql/*/bin; do
    if [ -x "$d/initdb" ]; then
      echo "$d"
      return
    fi
  done
  return 1
}

# Postgres refuses to run as root: as root, the commands run as `postgres`; as anyone else, as themselves.
as_postgres() {
  if [ "$(id -u)" != "0" ]; then
    "$@"
  elif command -v runuser >/dev/null 2>&1; then
    runuser -u postgres -- "$@"
  else
    su postgres -s /bin/sh -c "$(printf '%q ' "$@")"
  fi
}

case "${1:-}" in
  start)
    if ! bin=$(bindir); then
      apt-get update >&2 && apt-get install -y postgresql >&2
      bin=$(bindir)
    fi
    if [ -f "$state/data/postmaster.pid" ] && as_postgres "$bin/pg_ctl" -D "$state/data" status >/dev/null 2>&1; then
      echo "postgres already running in $state" >&2
    else
      rm -rf "$state"
      mkdir -p "$state"
      chown postgres: "$state" 2>/dev/null || true
      printf '%s\n' "$password" >"$state/pw"
      chown postgres: "$state/pw" 2>/dev/null || true
      as_postgres "$bin/initdb" -D "$state/data" -U postgres --auth=trust --pwfile="$state/pw" -E UTF8 --locale=C.UTF-8 >"$state/initdb.log" 2>&1 ||
        as_postgres "$bin/initdb" -D "$state/data" -U postgres --auth=trust --pwfile="$state/pw" -E UTF8 >"$state/initdb.log" 2>&1
      # Local socket: trust, for the setup below; TCP from 127.0.0.1: a password (as a deployment would have).
      printf 'local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\n' >"$state/data/pg_hba.conf"
      as_postgres "$bin/pg_ctl" -D "$state/data" -l "$state/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $state -c max_connections=200 -c fsync=on" start >&2
      as_postgres "$bin/psql" -h "$state" -p "$port" -U postgres -v ON_ERROR_STOP=1 -q -d postgres \
        -c "CREATE ROLE fairtable LOGIN PASSWORD '$password'" -c "CREATE DATABASE fairtable OWNER fairtable" >&2
    fi
    echo "export FAIRTABLE_TEST_DATABASE_URL=postgres://fairtable:$password@127.0.0.1:$port/fairtable"
    ;;
  stop)
    if bin=$(bindir) && [ -f "$state/data/postmaster.pid" ]; then
      as_postgres "$bin/pg_ctl" -D "$state/data" -m fast -w stop >&2 || true
    fi
    rm -rf "$state"
    ;;
  restart)
    # For a manual check of a relay riding out a database restart (relay.md §4).
    bin=$(bindir)
    as_postgres "$bin/pg_ctl" -D "$state/data" -l "$state/server.log" -m fast -w restart \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $state -c max_connections=200" >&2
    ;;
  *)
    echo "usage: $0 start|stop|restart" >&2
    exit 2
    ;;
esac
