-- statekit schema, version 6, for MariaDB 10.6 or later: rate limits.
-- ${prefix} stands for the table prefix (statekit_ by default). JdbcStore.ddl(dialect, prefix)
-- returns the files of every version in order with the prefix filled in; Flyway fills it in as a
-- placeholder. Every statement is idempotent, so applying the file twice is harmless.

-- A queue's rate limit (rate_limit starts per rate_period_ms, for the queue or per value of the
-- task attribute rate_key_attribute; 0 means none) and the latest end of a key hold, null when
-- none is left: a claim of a queue with either takes the exclusive way (locking the queue's row).
alter table ${prefix}queues add column if not exists rate_limit integer not null default 0;
alter table ${prefix}queues add column if not exists rate_period_ms bigint not null default 0;
alter table ${prefix}queues add column if not exists rate_key_attribute text;
alter table ${prefix}queues add column if not exists held_until bigint;

-- The starts of rate-limited queues, one row per claimed task with its rate key, kept while they
-- are within the window: each claim of the queue deletes the rows the window left behind.
create table if not exists ${prefix}rate_starts (
    queue      varchar(190) not null,
    rate_key   varchar(190) not null,
    started_at bigint not null
) engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin;
create index if not exists ${prefix}rate_starts_idx on ${prefix}rate_starts (queue, started_at);

-- Key holds: no task of (queue, rate_key) is claimed before held_until.
create table if not exists ${prefix}rate_holds (
    queue      varchar(190) not null,
    rate_key   varchar(190) not null,
    held_until bigint not null,
    primary key (queue, rate_key)
) engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin;

insert into ${prefix}schema_version (version, description)
    select 6, 'rate limits' from dual where not exists (select 1 from ${prefix}schema_version where version = 6);
