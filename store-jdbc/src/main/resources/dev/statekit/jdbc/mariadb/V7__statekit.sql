-- statekit schema, version 7, for MariaDB 10.6 or later: process records and error details.
-- ${prefix} stands for the table prefix (statekit_ by default). JdbcStore.ddl(dialect, prefix)
-- returns the files of every version in order with the prefix filled in; Flyway fills it in as a
-- placeholder. Every statement is idempotent, so applying the file twice is harmless.

-- The detail of a task's last error: the stack trace of the exception a worker threw, at most
-- 8,192 characters (TaskError.MAX_DETAIL).
alter table ${prefix}tasks add column if not exists last_error_detail text;
alter table ${prefix}archived_tasks add column if not exists last_error_detail text;

-- The error a change recorded, kept in its history entry (null for a change that recorded none).
alter table ${prefix}history add column if not exists error_code varchar(190);
alter table ${prefix}history add column if not exists error_message text;
alter table ${prefix}history add column if not exists error_retryable boolean;
alter table ${prefix}history add column if not exists error_step varchar(190);
alter table ${prefix}history add column if not exists error_detail text;
alter table ${prefix}archived_history add column if not exists error_code varchar(190);
alter table ${prefix}archived_history add column if not exists error_message text;
alter table ${prefix}archived_history add column if not exists error_retryable boolean;
alter table ${prefix}archived_history add column if not exists error_step varchar(190);
alter table ${prefix}archived_history add column if not exists error_detail text;

-- One row per process (task runtime) that serves the store, by its lease owner name: written at its
-- start, last_seen refreshed at its heartbeats, stopped_at set by a graceful stop. machines and
-- queues are the names it serves, one per line. Rows last seen long ago are deleted by runtimes.
create table if not exists ${prefix}processes (
    owner          varchar(190) primary key,
    host           text,
    pid            bigint,
    machines       text not null,
    queues         text not null,
    started_at     bigint not null,
    last_seen      bigint not null,
    gone_after_ms  bigint not null,
    stopped_at     bigint
) engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin;

insert into ${prefix}schema_version (version, description)
    select 7, 'process records and error details' from dual where not exists (select 1 from ${prefix}schema_version where version = 7);
