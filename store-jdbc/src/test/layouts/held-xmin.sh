#!/bin/bash
# The claim rate of a layout while another transaction holds the xmin horizon, on the database
# given by the usual libpq variables (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE; a database of
# its own: the script drops and creates its tables).
#
#   bash store-jdbc/src/test/layouts/held-xmin.sh [LAYOUT [SLICES]]     (LAYOUT: today, today-cursor)
#
# Opens a transaction that takes a transaction id and sleeps (HOLD=no: none), then runs SLICES
# slices of 40 batches of 512 tasks and prints each slice's tasks/s. Vacuum cannot remove the row
# versions that the held transaction might still see, so every claim of today's layout reads past
# the claim index entries of the tasks claimed since it began.
set -euo pipefail
cd "$(dirname "$0")"
LAYOUT=${1:-today}
SLICES=${2:-10}
psql -X -q -v ON_ERROR_STOP=1 -f today.schema.sql > /dev/null 2>&1
holder=
if [ "${HOLD:-yes}" != no ]; then
    psql -X -q -c "begin; select txid_current(); select pg_sleep(3600);" > /dev/null 2>&1 &
    holder=$!
    trap 'kill $holder 2> /dev/null; psql -X -qAt -c "select pg_terminate_backend(pid) from pg_stat_activity where query like '"'"'%pg_sleep(3600)%'"'"' and pid <> pg_backend_pid()" > /dev/null' EXIT
    until [ "$(psql -X -qAt -c "select count(*) from pg_stat_activity where backend_xid is not null and query like '%pg_sleep(3600)%'")" = 1 ]; do
        sleep 0.1
    done
fi
last=0
for slice in $(seq 1 "$SLICES"); do
    start=$(date +%s%N)
    pgbench -n -c 1 -t 40 -D last="$last" -f "$LAYOUT.sql" > /dev/null
    end=$(date +%s%N)
    last=$(psql -X -qAt -c "select coalesce(max(sequence), 0) from tasks where state <> 'QUEUED'")
    echo "$LAYOUT, slice $slice: $((40 * 512 * 1000000000 / (end - start))) tasks/s"
done
