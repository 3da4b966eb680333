-- As today.sql, with the store's claim statement's first read: whether any task is runnable
-- (which decides whether the claim locks its queue's row), then the claim. Both read the runnable
-- range from its start. (Schema: today.schema.sql.)
begin;
insert into tasks (machine, machine_version, state, queue, priority, sequence, attempts, retries, attributes, created_at, updated_at, version)
 select 'm', 1, 'QUEUED', 'q', 0, nextval('fifo'), 0, 0, '{}', now(), now(), 1 from generate_series(1,512);
commit;
begin;
with p as (select (select 1 from tasks where machine='m' and state='QUEUED' and queue='q' and lease_token is null order by priority desc, sequence, id limit 1) is not null as found),
c as (select id from tasks where machine='m' and state='QUEUED' and queue='q' and lease_token is null and (select found from p) order by priority desc, sequence, id limit 512 for update skip locked),
u as (update tasks t set state='RUNNING', lease_owner='worker-1', lease_token=nextval('fence'), lease_expires_at=now()+interval '30 s', attempts=attempts+1, not_before=null, updated_at=now(), version=version+1 from c where t.id=c.id returning t.id, t.version),
h as (insert into history (task_id, version, from_state, to_state, event, source, actor, reason, at) select id, version, 'QUEUED','RUNNING','START','SYSTEM','worker-1','claimed', now() from u)
select array_agg(id)::text as ids from u \gset
commit;
begin;
with u as (update tasks t set state='DONE', lease_owner=null, lease_token=null, lease_expires_at=null, updated_at=now(), version=version+1 where t.id = any(':ids'::bigint[]) returning t.id, t.version)
insert into history (task_id, version, from_state, to_state, event, source, actor, reason, at) select id, version, 'RUNNING','DONE','SUCCEED','SYSTEM','worker-1','done', now() from u;
commit;
