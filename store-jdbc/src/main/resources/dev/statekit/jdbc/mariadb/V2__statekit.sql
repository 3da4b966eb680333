-- statekit schema, version 2, for MariaDB 10.6 or later: groups of children and of dependencies.
-- ${prefix} stands for the table prefix (statekit_ by default). JdbcStore.ddl(dialect, prefix)
-- returns the files of every version in order with the prefix filled in; Flyway fills it in as a
-- placeholder. Every statement is idempotent, so applying the file twice is harmless.

-- One row per task that owns a group: its children, or the tasks it was created depending on.
-- Written with its owner's row locked; counts are kept by the resolution passes.
create table if not exists ${prefix}groups (
    owner_id      bigint primary key,
    owner_machine varchar(190) not null,
    kind          varchar(190) not null,
    sealed        boolean not null,
    total         bigint not null,
    resolution    varchar(190),
    hold          boolean not null,
    awaiting      boolean not null,
    checked       bigint not null
) engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin;
-- Groups a pass looks at again without a mark, least recently checked first (MariaDB has no partial indexes).
create index if not exists ${prefix}groups_awaiting_idx on ${prefix}groups (awaiting, owner_machine, checked);
-- The order in which passes checked groups: larger with every group checked.
create sequence if not exists ${prefix}check_seq start with 1;

-- How many members of a group are in each state of their machine, as of the group's last pass.
create table if not exists ${prefix}group_counts (
    owner_id bigint not null,
    machine  varchar(190) not null,
    state    varchar(190) not null,
    n        bigint not null,
    primary key (owner_id, machine, state)
) engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin;

-- The tasks a task was created depending on, in the order given.
create table if not exists ${prefix}dependencies (
    owner_id  bigint not null,
    member_id bigint not null,
    position  integer not null,
    primary key (owner_id, member_id)
) engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin;
-- The dependents of a task, whom its changes mark.
create index if not exists ${prefix}dependencies_member_idx on ${prefix}dependencies (member_id);

-- Marks: a member's change of state (from no state: its creation) for its owner's next pass, or,
-- without a member machine, a request to look at the owner. Written in the transaction of the
-- change, deleted by the pass that counts them; read by owner (InnoDB keys its rows by the id).
create table if not exists ${prefix}marks (
    id             bigint auto_increment primary key,
    owner_id       bigint not null,
    owner_machine  varchar(190) not null,
    member_machine varchar(190),
    from_state     varchar(190),
    to_state       varchar(190)
) engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin;
-- The marks of an owner, in the order written.
create index if not exists ${prefix}marks_owner_idx on ${prefix}marks (owner_id, id);
-- The owners of given machines with marks, oldest mark first.
create index if not exists ${prefix}marks_pick_idx on ${prefix}marks (owner_machine, id);

insert into ${prefix}schema_version (version, description)
    select 2, 'groups, counts, dependencies, marks' from dual where not exists (select 1 from ${prefix}schema_version where version = 2);
