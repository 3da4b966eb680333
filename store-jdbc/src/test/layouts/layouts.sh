#!/bin/bash
# What a plain task's life costs PostgreSQL in each table layout of this folder, measured with
# pgbench on the database given by the usual libpq variables (PGHOST, PGPORT, PGUSER, PGPASSWORD,
# PGDATABASE). The database must be one of its own: every layout drops and creates its tables.
#
#   bash store-jdbc/src/test/layouts/layouts.sh [ROUNDS [BATCHES]]
#
# Each round runs every layout once, in turn, with BATCHES batches of 512 tasks on one connection
# (a fresh schema each time). Printed per layout and round: tasks/s; the server's execution time
# per task, in all and per statement (pg_stat_statements, when the server loads it); WAL bytes and
# records per task (pg_stat_wal); the machine's busy CPU per task (meaningful when the server runs
# on this machine); the share of the task table's updates that were HOT.
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${1:-3}
BATCHES=${2:-200}
LAYOUTS=(today jobs-deleted ready-plane claim-off-the-task one-history-row)
TASKS=$((BATCHES * 512))
PSQL=(psql -X -q -v ON_ERROR_STOP=1 -At)

schema_of() {
    case "$1" in
        claim-off-the-task|one-history-row) echo ready-plane.schema.sql ;;
        *) echo "$1.schema.sql" ;;
    esac
}

statements=$("${PSQL[@]}" -c "select count(*) from pg_extension where extname = 'pg_stat_statements'")
if [ "$statements" != 1 ]; then
    echo "pg_stat_statements is not in this database: no per-statement times (create extension pg_stat_statements)" >&2
fi

# the server's execution time (ms) of the statements of this database, per query text
snapshot_statements() {
    [ "$statements" = 1 ] || return 0
    "${PSQL[@]}" -F $'\t' -c "select queryid, total_exec_time, left(regexp_replace(query, '\s+', ' ', 'g'), 60)
        from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())"
}

busy_ticks() {
    awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat
}

for round in $(seq 1 "$ROUNDS"); do
    for layout in "${LAYOUTS[@]}"; do
        "${PSQL[@]}" -f "$(schema_of "$layout")" > /dev/null 2>&1
        before_wal=$("${PSQL[@]}" -F ' ' -c "select wal_bytes, wal_records from pg_stat_wal")
        before_statements=$(snapshot_statements)
        before_busy=$(busy_ticks)
        start=$(date +%s%N)
        pgbench -n -c 1 -t "$BATCHES" -f "$layout.sql" > /dev/null
        end=$(date +%s%N)
        after_busy=$(busy_ticks)
        after_statements=$(snapshot_statements)
        after_wal=$("${PSQL[@]}" -F ' ' -c "select wal_bytes, wal_records from pg_stat_wal")
        hot=$("${PSQL[@]}" -c "select coalesce(round(100.0 * sum(n_tup_hot_upd) / nullif(sum(n_tup_upd), 0)), 0)
            from pg_stat_user_tables where relname in ('tasks', 'jobs')")
        read -r wal_bytes0 wal_records0 <<< "$before_wal"
        read -r wal_bytes1 wal_records1 <<< "$after_wal"
        per_statement=$(join -t $'\t' -j 1 <(sort <<< "$before_statements") <(sort <<< "$after_statements") 2> /dev/null \
            | awk -F '\t' -v n="$TASKS" '{ d = ($4 - $2) * 1000 / n; if (d >= 0.05) printf "%.1f\t%s\n", d, $5 }' | sort -rn || true)
        # statements first seen in this run are new in the second snapshot only
        new_statements=$(join -t $'\t' -v 2 -j 1 <(sort <<< "$before_statements") <(sort <<< "$after_statements") 2> /dev/null \
            | awk -F '\t' -v n="$TASKS" '{ d = $2 * 1000 / n; if (d >= 0.05) printf "%.1f\t%s\n", d, $3 }' || true)
        all=$(printf '%s\n%s\n' "$per_statement" "$new_statements" | sed '/^$/d' | sort -rn)
        server=$(awk -F '\t' '{ s += $1 } END { printf "%.1f", s }' <<< "$all")
        awk -v layout="$layout" -v round="$round" -v n="$TASKS" -v ns="$((end - start))" -v busy="$((after_busy - before_busy))" \
            -v hz="$(getconf CLK_TCK)" -v server="$server" -v hot="$hot" \
            -v wb="$(awk -v a="$wal_bytes0" -v b="$wal_bytes1" 'BEGIN { print b - a }')" -v wr="$((wal_records1 - wal_records0))" \
            'BEGIN { printf "%-20s round %d: %7.0f tasks/s, server %5s us/task, busy CPU %5.1f us/task, WAL %5.0f B %4.1f records/task, HOT %3d%%\n",
                     layout, round, n / (ns / 1e9), server, busy / hz / n * 1e6, wb / n, wr / n, hot }'
        if [ -n "$all" ]; then
            while IFS=$'\t' read -r us text; do printf '    %6s us  %s\n' "$us" "$text"; done <<< "$all"
        fi
    done
done
