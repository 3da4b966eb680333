-- Claim and result as today (the task row updated twice, two history rows), plus a ready row per
-- task: inserted with the task, its lease set by the claim, deleted by the result.
begin;
with t as (insert into tasks (machine, machine_version, state, queue, priority, sequence, attempts, retries, attributes, created_at, updated_at, version)
 select 'm', 1, 'QUEUED', 'q', 0, nextval('fifo'), 0, 0, '{}', now(), now(), 1 from generate_series(1,512) returning id, queue, priority, sequence)
insert into ready select id, queue, priority, sequence, null from t;
commit;
begin;
with c as (select task_id from ready where queue='q' and lease_expires_at is null order by priority desc, sequence limit 512 for update skip locked),
r as (update ready set lease_expires_at = now() + interval '30 s' from c where ready.task_id = c.task_id returning ready.task_id),
u as (update tasks t set state='RUNNING', lease_owner='worker-1', lease_token=nextval('fence'), lease_expires_at=now()+interval '30 s', attempts=attempts+1, not_before=null, updated_at=now(), version=t.version+1 from r where t.id=r.task_id returning t.id, t.version),
h as (insert into history (task_id, version, from_state, to_state, event, source, actor, reason, at) select id, version, 'QUEUED','RUNNING','START','SYSTEM','worker-1','claimed', now() from u)
select array_agg(id)::text as ids from u \gset
commit;
begin;
with d as (delete from ready where task_id = any(':ids'::bigint[])),
u as (update tasks t set state='DONE', lease_owner=null, lease_token=null, lease_expires_at=null, updated_at=now(), version=version+1 where t.id = any(':ids'::bigint[]) returning t.id, t.version)
insert into history (task_id, version, from_state, to_state, event, source, actor, reason, at) select id, version, 'RUNNING','DONE','SUCCEED','SYSTEM','worker-1','done', now() from u;
commit;
