-- A job table as graphile-worker 0.18 makes it (the columns and indexes a job's life touches):
-- no history; a finished job is deleted.
drop table if exists tasks, history, ready, jobs cascade; drop sequence if exists fence, fifo;
create table jobs (id bigserial primary key, queue_name text, task_identifier text not null, payload json default '{}' not null, priority smallint default 0 not null, run_at timestamptz default now() not null, attempts smallint default 0 not null, max_attempts smallint default 25 not null, last_error text, created_at timestamptz default now() not null, updated_at timestamptz default now() not null, key text, locked_at timestamptz, locked_by text, revision int default 0 not null, flags jsonb, is_available boolean generated always as ((locked_at is null) and (attempts < max_attempts)) stored not null);
create index jobs_main_index on jobs (priority, run_at) include (id, task_identifier) where is_available = true;
create index jobs_no_queue_index on jobs (priority, run_at) include (id, task_identifier) where is_available = true and queue_name is null;
