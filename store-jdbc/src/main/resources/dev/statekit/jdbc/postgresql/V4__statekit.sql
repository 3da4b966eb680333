-- statekit schema, version 4, for PostgreSQL 10 or later: reserved for a change made alongside (this file only
-- records the version, so that the versions after it apply in order).

insert into ${prefix}schema_version (version, description)
    select 4, 'reserved' where not exists (select 1 from ${prefix}schema_version where version = 4);
