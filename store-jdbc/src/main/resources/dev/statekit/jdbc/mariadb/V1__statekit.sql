-- statekit schema, version 1, for MariaDB 10.6 or later.
-- ${prefix} stands for the table prefix (statekit_ by default). JdbcStore.ddl(dialect, prefix)
-- returns this text with the prefix filled in; Flyway fills it in as a placeholder.
-- Every statement is idempotent, so applying the file twice is harmless.

create table if not exists ${prefix}schema_version (
    version     integer primary key,
    description text not null,
    applied_at  datetime(6) default current_timestamp(6) not null
) engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin;

-- FIFO sequences of new tasks (1, 2, 3, ...); front sequences are the negated values of the second one.
create sequence if not exists ${prefix}fifo_seq start with 1;
create sequence if not exists ${prefix}front_seq start with 1;
-- Fencing tokens of leases: larger with every claim.
create sequence if not exists ${prefix}fencing_seq start with 1;

create table if not exists ${prefix}tasks (
    id                   bigint auto_increment primary key,
    machine              varchar(190) not null,
    machine_version      integer not null,
    state                varchar(190) not null,
    queue                varchar(190) not null,
    priority             integer not null,
    sequence             bigint not null,
    parent_id            bigint,
    attempts             integer not null,
    retries              integer not null,
    lease_owner          varchar(190),
    lease_token          bigint,
    lease_expires_at     bigint,
    not_before           bigint,
    last_error_code      varchar(190),
    last_error_message   longtext,
    last_error_retryable boolean,
    last_error_step      varchar(190),
    attributes           longtext not null,
    payload              longtext,
    idempotency_key      varchar(500),
    created_at           bigint not null,
    updated_at           bigint not null,
    version              bigint not null,
    cancel_requested     boolean not null default false,
    constraint ${prefix}tasks_creation_key unique (machine, idempotency_key)
) engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin;

-- Every index whose columns an update changes is rewritten by it (a claim, a result): the task
-- table keeps few.
-- Claims: runnable tasks of one machine, state and queue in claim order; purges read the tasks of
-- a machine in given states from it too.
create index if not exists ${prefix}tasks_claim_idx on ${prefix}tasks (machine, state, queue, priority desc, sequence, id);
-- Due-time scans. Only the time is indexed: MariaDB has no partial indexes, and a claim or a result,
-- which change the state but rarely the time, then leave this index alone.
create index if not exists ${prefix}tasks_due_idx on ${prefix}tasks (not_before);
-- Leased tasks (as many as run at once): expired leases, and read through for the leases of one
-- owner or one queue.
create index if not exists ${prefix}tasks_lease_idx on ${prefix}tasks (lease_expires_at);
-- Children of a task.
create index if not exists ${prefix}tasks_parent_idx on ${prefix}tasks (parent_id);

create table if not exists ${prefix}history (
    task_id     bigint not null,
    version     bigint not null,
    from_state  varchar(190) not null,
    to_state    varchar(190) not null,
    event       varchar(190) not null,
    source      varchar(190) not null,
    actor       text,
    reason      longtext,
    at          bigint not null,
    command_key varchar(500),
    primary key (task_id, version)
) engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin;

-- A command key is applied to a task at most once.
create unique index if not exists ${prefix}history_command_idx on ${prefix}history (task_id, command_key);

create table if not exists ${prefix}queues (
    name          varchar(190) primary key,
    paused        boolean not null,
    pause_reason  text,
    concurrency   integer not null,
    skipped_lower integer not null
) engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin;

-- Wake-ups across processes (MariaDB has no notifications): a transaction that may make work
-- runnable inserts a row; the runtimes of every process read the largest id and the count every
-- 50 ms, and keep the table short.
create table if not exists ${prefix}wakes (
    id bigint auto_increment primary key,
    at datetime(6) not null
) engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin;

insert into ${prefix}schema_version (version, description)
    select 1, 'tasks, history, queues' from dual where not exists (select 1 from ${prefix}schema_version where version = 1);
