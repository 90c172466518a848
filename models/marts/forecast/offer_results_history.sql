{{ config(materialized='incremental', incremental_strategy='append', on_schema_change='fail') }}

-- One row per run x participant x offer: what offer_results and forecast_results said on that run
-- (accrual and projection null when the run had no forecast). Incremental: each build appends its
-- run's rows once (a run already in the table is not appended again). `incentives run` builds into
-- a new file or schemas: on DuckDB it copies the previous results' history there first; on the
-- warehouses only the latest run's rows (what accrual_changes reads), and its swap appends the
-- run's rows to the live history (compiler/targets/). Either way a failed run leaves the history as
-- it was. With dbt alone, a build without a run id (incentives_run_id / run_context) is recorded
-- under 'manual-' and dbt's invocation id. docs/forecast.md.
with offers as (
    select * from {{ ref('incentives', 'offer_results') }}
),

forecast as (
    select * from {{ ref('incentives', 'forecast_results') }}
),

final as (
    select
        -- offer_results' run id, typed as its contract (an incremental model checks the types it
        -- appends against its table's); a build without a run id (`manual`) gets dbt's invocation id
        case when offers.run_id = 'manual' then 'manual-{{ invocation_id }}' else offers.run_id end as run_id,
        cast({{ dbt.current_timestamp() }} as {{ dbt.type_timestamp() }}) as recorded_at,
        forecast.as_of,
        offers.entity_id,
        offers.program_key,
        offers.offer_key,
        offers.incentive_amount,
        offers.potential_if_qualified,
        forecast.accrual_to_date,
        forecast.projected_season_amount,
        offers.current_tier_key,
        forecast.projected_tier_key
    from offers
    left join forecast
        on forecast.entity_id = offers.entity_id
        and forecast.offer_key = offers.offer_key
)

select * from final
{%- if is_incremental() %}
-- an anti join: PostgreSQL runs `not in (subquery)` as a scan of the subquery for each row when
-- the subquery does not fit its work_mem, quadratic in the history's rows
where not exists (select 1 from {{ this }} as recorded where recorded.run_id = final.run_id)
{%- endif %}
