-- statekit schema, version 5, for MariaDB 10.6 or later: unique keys.
-- ${prefix} stands for the table prefix (statekit_ by default). JdbcStore.ddl(dialect, prefix)
-- returns the files of every version in order with the prefix filled in; Flyway fills it in as a
-- placeholder. Every statement is idempotent, so applying the file twice is harmless.

-- The unique key a task holds while it is in one of its machine's unique states: set when the task
-- is created, cleared by the change that moves it out of them (a task never comes back). MariaDB has no
-- partial indexes; a unique index lets any number of rows hold null, so the column itself says
-- whether the key holds: unique per machine where it is set.
alter table ${prefix}tasks add column if not exists unique_key varchar(500);
create unique index if not exists ${prefix}tasks_unique_idx on ${prefix}tasks (machine, unique_key);
-- Archived tasks keep the columns of the tasks table; no index: an archived task holds no key.
alter table ${prefix}archived_tasks add column if not exists unique_key varchar(500);

insert into ${prefix}schema_version (version, description)
    select 5, 'unique keys' from dual where not exists (select 1 from ${prefix}schema_version where version = 5);
