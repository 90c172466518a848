{{ config(materialized='view' if target.type == 'duckdb' else 'table') }}

-- (a view on DuckDB; a table elsewhere: Spark's runs swap tables into the live schema, not views,
-- and a PostgreSQL run moves the live offer_results_history into the new schema in place of the
-- build's, which a view would be bound to)

-- Per participant x offer, the change of accrual_to_date from the previous run of
-- offer_results_history to the latest: the month-end catch-up entry. Runs are ordered by when they
-- were recorded; a pair in only one of the two runs counts 0 in the other (an offer that ended
-- reverses its accrual). Without a previous run, the change is the whole accrual.
with history as (
    select * from {{ ref('incentives', 'offer_results_history') }}
),

runs as (
    select run_id, max(recorded_at) as recorded_at from history group by run_id
),

ranked_runs as (
    select run_id, row_number() over (order by recorded_at desc, run_id desc) as recency from runs
),

latest as (
    select history.* from history
    inner join ranked_runs on ranked_runs.run_id = history.run_id and ranked_runs.recency = 1
),

previous as (
    select history.* from history
    inner join ranked_runs on ranked_runs.run_id = history.run_id and ranked_runs.recency = 2
),

final as (
    select
        coalesce(latest.entity_id, previous.entity_id) as entity_id,
        coalesce(latest.program_key, previous.program_key) as program_key,
        coalesce(latest.offer_key, previous.offer_key) as offer_key,
        latest.run_id,
        previous.run_id as previous_run_id,
        latest.as_of,
        previous.as_of as previous_as_of,
        latest.accrual_to_date,
        previous.accrual_to_date as previous_accrual_to_date,
        {{ incentives.cast_money('coalesce(latest.accrual_to_date, 0) - coalesce(previous.accrual_to_date, 0)') }} as accrual_change
    from latest
    full outer join previous
        on previous.entity_id = latest.entity_id
        and previous.offer_key = latest.offer_key
)

select * from final
