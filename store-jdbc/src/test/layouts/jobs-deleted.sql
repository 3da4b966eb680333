-- A batch of 512 jobs as graphile-worker handles them: inserted, locked (one narrow update),
-- deleted when done.
begin;
insert into jobs (task_identifier) select 'noop' from generate_series(1,512);
commit;
begin;
with j as (select id from jobs where is_available = true and run_at <= now() and task_identifier = any(array['noop']) order by priority, run_at limit 512 for update skip locked),
u as (update jobs set attempts = jobs.attempts + 1, locked_by = 'w1', locked_at = now() from j where jobs.id = j.id returning jobs.id)
select array_agg(id)::text as ids from u \gset
commit;
begin;
delete from jobs where id = any(':ids'::bigint[]);
commit;
