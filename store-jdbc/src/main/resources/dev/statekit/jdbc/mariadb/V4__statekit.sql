-- statekit schema, version 4, for MariaDB 10.6 or later: recurring schedules.
-- ${prefix} stands for the table prefix (statekit_ by default). JdbcStore.ddl(dialect, prefix)
-- returns the files of every version in order with the prefix filled in; Flyway fills it in as a
-- placeholder. Every statement is idempotent, so applying the file twice is harmless.

-- One row per schedule: the fixed parts of the task each occurrence creates, the timing as text
-- (a cron expression and zone, or an interval as an ISO-8601 duration and an anchor), the misfire
-- policy, whether it is paused, and its progress: occurrences at or before last_at were created or
-- passed over, and the next falls due at next_due. A schedule pass locks due rows, creates their
-- occurrences with idempotency keys and writes their progress in one transaction.
create table if not exists ${prefix}schedules (
    name              varchar(190) primary key,
    machine           varchar(190) not null,
    queue             varchar(190),
    priority          integer not null,
    attributes        longtext not null,
    payload           longtext,
    kind              varchar(190) not null,
    expression        text,
    zone              varchar(190),
    every_interval    varchar(190),
    anchor            bigint,
    misfire           varchar(190) not null,
    misfire_limit     integer not null,
    misfire_threshold varchar(190) not null,
    paused            boolean not null,
    last_at           bigint,
    next_due          bigint not null,
    version           bigint not null
) engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin;
-- The due schedules, earliest first: what a schedule pass reads.
create index if not exists ${prefix}schedules_due_idx on ${prefix}schedules (next_due);

insert into ${prefix}schema_version (version, description)
    select 4, 'recurring schedules' from dual where not exists (select 1 from ${prefix}schema_version where version = 4);
