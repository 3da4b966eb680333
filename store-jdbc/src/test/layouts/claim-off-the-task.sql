-- The claim writes only the ready row's lease and the history row; the task row is updated once,
-- by the result. Readers would take a running task's state and lease from its ready row.
-- (Schema: ready-plane.schema.sql.)
begin;
with t as (insert into tasks (machine, machine_version, state, queue, priority, sequence, attempts, retries, attributes, created_at, updated_at, version)
 select 'm', 1, 'QUEUED', 'q', 0, nextval('fifo'), 0, 0, '{}', now(), now(), 1 from generate_series(1,512) returning id, queue, priority, sequence)
insert into ready select id, queue, priority, sequence, null from t;
commit;
begin;
with c as (select task_id from ready where queue='q' and lease_expires_at is null order by priority desc, sequence limit 512 for update skip locked),
u as (update ready set lease_expires_at = now() + interval '30 s' from c where ready.task_id = c.task_id returning ready.task_id),
h as (insert into history (task_id, version, from_state, to_state, event, source, actor, reason, at) select task_id, 2, 'QUEUED','RUNNING','START','SYSTEM','worker-1','claimed', now() from u)
select array_agg(task_id)::text as ids from u \gset
commit;
begin;
with d as (delete from ready where task_id = any(':ids'::bigint[])),
u as (update tasks t set state='DONE', attempts=attempts+1, updated_at=now(), version=version+2 where t.id = any(':ids'::bigint[]) returning t.id, t.version)
insert into history (task_id, version, from_state, to_state, event, source, actor, reason, at) select id, version, 'RUNNING','DONE','SUCCEED','SYSTEM','worker-1','done', now() from u;
commit;
