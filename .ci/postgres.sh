#!/usr/bin/env bash
# Installs PostgreSQL from the distribution's packages when it is missing, starts it on
# 127.0.0.1:5432 and creates the role and database the tests use:
#   jdbc:postgresql://127.0.0.1:5432/statekit  user statekit  password statekit
set -euo pipefail

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
as_postgres() { if [ "$(id -u)" -eq 0 ]; then su postgres -s /bin/sh -c "$*"; else sudo -u postgres sh -c "$*"; fi; }

if ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then
    echo "installing postgresql from the distribution's packages"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq postgresql >/dev/null
fi
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
version=$(basename "$(dirname "$bin")")

if ! pg_lsclusters -h 2>/dev/null | grep -q .; then
    as_root pg_createcluster "$version" main >/dev/null
fi
cluster=$(pg_lsclusters -h | head -1 | awk '{print $1" "$2}')
if ! pg_lsclusters -h | head -1 | grep -q online; then
    as_root pg_ctlcluster $cluster start
fi
for i in $(seq 1 30); do
    if as_postgres "psql -h 127.0.0.1 -qAtc 'select 1'" >/dev/null 2>&1 || as_postgres "psql -qAtc 'select 1'" >/dev/null 2>&1; then break; fi
    sleep 1
done
as_postgres "psql -qAtc \"select 1 from pg_roles where rolname='statekit'\"" | grep -q 1 \
    || as_postgres "psql -qc \"create role statekit login password 'statekit'\""
as_postgres "psql -qAtc \"select 1 from pg_database where datname='statekit'\"" | grep -q 1 \
    || as_postgres "psql -qc 'create database statekit owner statekit'"
PGPASSWORD=statekit psql -h 127.0.0.1 -U statekit -d statekit -qAtc 'select version()'
