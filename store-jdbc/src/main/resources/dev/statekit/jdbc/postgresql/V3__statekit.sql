-- statekit schema, version 3, for PostgreSQL 10 or later: the archive of finished tasks.
-- ${prefix} stands for the table prefix (statekit_ by default). JdbcStore.ddl(dialect, prefix)
-- returns the files of every version in order with the prefix filled in; Flyway fills it in as a
-- placeholder. Every statement is idempotent, so applying the file twice is harmless.

-- Retention: lease-free tasks of a machine in given states by the time of their last change, so
-- that a retention batch reads only tasks old enough to leave the tasks table (through the claim
-- index it read every finished task of the machine, old or not). Partial, as the claim index: a
-- claimed task is not in it, so a claim adds no entry; a creation and a result add one each.
create index if not exists ${prefix}tasks_finished_idx
    on ${prefix}tasks (machine, state, updated_at) where lease_token is null;

-- Tasks moved out of the tasks table by retention, each with the root of the tree it moved with
-- and when it moved. The columns of the tasks table first, then root_id and archived_at. No
-- unique creation key: the key of an archived task can be used again.
create table if not exists ${prefix}archived_tasks (
    id                   bigint primary key,
    machine              text not null,
    machine_version      integer not null,
    state                text not null,
    queue                text not null,
    priority             integer not null,
    sequence             bigint not null,
    parent_id            bigint,
    attempts             integer not null,
    retries              integer not null,
    lease_owner          text,
    lease_token          bigint,
    lease_expires_at     timestamp(6) with time zone,
    not_before           timestamp(6) with time zone,
    last_error_code      text,
    last_error_message   text,
    last_error_retryable boolean,
    last_error_step      text,
    attributes           text not null,
    payload              text,
    idempotency_key      text,
    created_at           timestamp(6) with time zone not null,
    updated_at           timestamp(6) with time zone not null,
    version              bigint not null,
    cancel_requested     boolean not null,
    root_id              bigint not null,
    archived_at          timestamp(6) with time zone not null
);
-- The tasks of an archived tree, deleted together.
create index if not exists ${prefix}archived_tasks_root_idx on ${prefix}archived_tasks (root_id);
-- Archived roots of a machine, oldest first: what the deletion of old archived trees reads.
create index if not exists ${prefix}archived_tasks_age_idx
    on ${prefix}archived_tasks (machine, archived_at) where root_id = id;

-- The history of archived tasks, moved with them.
create table if not exists ${prefix}archived_history (
    task_id     bigint not null,
    version     bigint not null,
    from_state  text not null,
    to_state    text not null,
    event       text not null,
    source      text not null,
    actor       text,
    reason      text,
    at          timestamp(6) with time zone not null,
    command_key text,
    primary key (task_id, version)
);

insert into ${prefix}schema_version (version, description)
    select 3, 'archived tasks and history' where not exists (select 1 from ${prefix}schema_version where version = 3);
