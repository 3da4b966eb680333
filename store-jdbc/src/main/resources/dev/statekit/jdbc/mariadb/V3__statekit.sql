-- statekit schema, version 3, for MariaDB 10.6 or later: the archive of finished tasks.
-- ${prefix} stands for the table prefix (statekit_ by default). JdbcStore.ddl(dialect, prefix)
-- returns the files of every version in order with the prefix filled in; Flyway fills it in as a
-- placeholder. Every statement is idempotent, so applying the file twice is harmless.

-- Retention: tasks of a machine in given states by the time of their last change, so that a
-- retention batch reads only tasks old enough to leave the tasks table (through the claim index it
-- read every task of the machine in those states, old or not). MariaDB has no partial indexes: every
-- write of a task changes its time, and writes an entry here.
create index if not exists ${prefix}tasks_finished_idx on ${prefix}tasks (machine, state, updated_at);

-- Tasks moved out of the tasks table by retention, each with the root of the tree it moved with
-- and when it moved. The columns of the tasks table first, then root_id and archived_at. No
-- unique creation key: the key of an archived task can be used again.
create table if not exists ${prefix}archived_tasks (
    id                   bigint primary key,
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
    cancel_requested     boolean not null,
    root_id              bigint not null,
    archived_at          bigint not null
) engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin;
-- The tasks of an archived tree, deleted together.
create index if not exists ${prefix}archived_tasks_root_idx on ${prefix}archived_tasks (root_id);
-- Archived tasks of a machine, oldest first: what the deletion of old archived trees reads (MariaDB has
-- no partial indexes: the roots among them are those whose root_id is their id).
create index if not exists ${prefix}archived_tasks_age_idx on ${prefix}archived_tasks (machine, archived_at);

-- The history of archived tasks, moved with them.
create table if not exists ${prefix}archived_history (
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

insert into ${prefix}schema_version (version, description)
    select 3, 'archived tasks and history' from dual where not exists (select 1 from ${prefix}schema_version where version = 3);
