-- statekit schema, version 4, for H2 2: reserved for a change made alongside (this file only
-- records the version, so that the versions after it apply in order).

insert into ${prefix}schema_version (version, description)
    select 4, 'reserved' where not exists (select 1 from ${prefix}schema_version where version = 4);
