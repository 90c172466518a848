{{ config(materialized=incentives.materialized_when(incentives.using_forecast(), 'table')) }}

-- One row per actual participant with transactions: how the forecast projects the rest of its
-- season (docs/forecast.md). as_of is the var incentives_as_of, else `incentives run --as-of`
-- (run_context.as_of: data, not a var, so that another date reuses dbt's parse), else the latest
-- transaction_date; the horizon is the var incentives_forecast_until, else run_context's
-- forecast_until, else the latest end_date of the catalogue's periods that contain as_of (an open
-- end does not count; none: as_of, nothing is projected).
-- seasonal: it has transactions in (as_of - 1 year, horizon - 1 year], projected one year later
-- and scaled by the growth factor g = growth_numerator / growth_denominator (the value of its
-- transactions in [horizon - 1 year + 1 day, as_of] over that of [horizon - 2 years + 1 day,
-- as_of - 1 year]; 1 when the latter is <= 0, at most incentives_forecast_max_growth, at least 0);
-- recent: else its transactions in [as_of - L + 1, as_of], L = horizon - as_of days, projected L
-- days later, unscaled; none: neither. Values are the transactions' amounts, every SKU counted.
with transactions as (
    select entity_id, transaction_date, amount
    from {{ ref('incentives', 'stg_incentives__transactions') }}
    where entity_id is not null and transaction_date is not null
    {%- if not incentives.using_forecast() %}
        and 1 = 0  -- incentives_using_forecast is false: no participant (an empty table)
    {%- endif %}
),

periods as (
    select * from {{ ref('incentives', 'stg_incentives__rules_periods') }}
),

{%- set in_context = incentives.setting('incentives_run_context') %}
{%- if in_context %}

-- `incentives run --as-of / --forecast-until` (null when not given); cast: a warehouse may hold the
-- all-null columns as text
context as (
    select cast(max(as_of) as date) as as_of, cast(max(forecast_until) as date) as forecast_until
    from {{ incentives.run_context() }}
),
{%- endif %}

as_of as (
    {%- if var('incentives_as_of', none) %}
    select cast('{{ var('incentives_as_of') }}' as date) as as_of
    {%- elif in_context %}
    select coalesce(context.as_of, latest.as_of) as as_of
    from context
    cross join (select max(transaction_date) as as_of from transactions) as latest
    {%- else %}
    select max(transaction_date) as as_of from transactions
    {%- endif %}
),

season as (
    {%- if var('incentives_forecast_until', none) %}
    select as_of, cast('{{ var('incentives_forecast_until') }}' as date) as horizon from as_of
    {%- else %}
    select
        as_of.as_of,
        coalesce({% if in_context %}max(context.forecast_until), {% endif %}max(periods.end_date), as_of.as_of) as horizon
    from as_of
    {%- if in_context %}
    cross join context
    {%- endif %}
    left join periods
        on periods.start_date <= as_of.as_of
        and as_of.as_of <= periods.end_date
        and periods.end_date < cast('9999-12-31' as date)
    group by as_of.as_of
    {%- endif %}
),

bounds as (
    select
        as_of,
        horizon,
        {{ incentives.add_years('as_of', -1) }} as as_of_last_year,
        {{ incentives.add_years('horizon', -1) }} as horizon_last_year,
        {{ incentives.add_days(incentives.add_years('horizon', -1), 1) }} as season_start,
        {{ incentives.add_days(incentives.add_years('horizon', -2), 1) }} as prior_season_start,
        {{ incentives.days_between('as_of', 'horizon') }} as lag_days
    from season
),

windows as (
    select bounds.*, {{ incentives.add_days('as_of', '1 - lag_days') }} as recent_start
    from bounds
),

per_participant as (
    select
        transactions.entity_id,
        sum(case when transactions.transaction_date > windows.as_of_last_year
                  and transactions.transaction_date <= windows.horizon_last_year then 1 else 0 end) as seasonal_rows,
        sum(case when transactions.transaction_date >= windows.recent_start
                  and transactions.transaction_date <= windows.as_of then 1 else 0 end) as recent_rows,
        coalesce(sum(case when transactions.transaction_date >= windows.season_start
                           and transactions.transaction_date <= windows.as_of then transactions.amount end), 0) as current_value,
        coalesce(sum(case when transactions.transaction_date >= windows.prior_season_start
                           and transactions.transaction_date <= windows.as_of_last_year then transactions.amount end), 0) as prior_value
    from transactions
    cross join windows
    group by transactions.entity_id
),

methods as (
    select
        per_participant.*,
        case when seasonal_rows > 0 then 'seasonal' when recent_rows > 0 then 'recent' else 'none' end as method,
        cast({{ var('incentives_forecast_max_growth', 3) }} as {{ incentives.type_measure() }}) as max_growth
    from per_participant
),

growth as (
    -- g as a fraction, divided only where it is applied (int_incentives__forecast_transactions)
    select
        methods.*,
        case when method <> 'seasonal' then null
             when prior_value <= 0 then 1
             when current_value <= 0 then 0
             when current_value > max_growth * prior_value then max_growth
             else current_value end as growth_numerator,
        case when method <> 'seasonal' then null
             when prior_value <= 0 or current_value <= 0 or current_value > max_growth * prior_value then 1
             else prior_value end as growth_denominator
    from methods
),

final as (
    select
        growth.entity_id,
        windows.as_of,
        windows.horizon,
        growth.method,
        {{ incentives.cast_measure('growth.growth_numerator') }} as growth_numerator,
        {{ incentives.cast_measure('growth.growth_denominator') }} as growth_denominator,
        {{ incentives.cast_measure(
            "case when growth.method = 'seasonal'
                  then " ~ incentives.divide('growth.growth_numerator', 'growth.growth_denominator', 10) ~ "
                  when growth.method = 'recent' then 1 end") }} as growth_factor,
        {{ incentives.cast_measure('growth.current_value') }} as current_value,
        {{ incentives.cast_measure('growth.prior_value') }} as prior_value,
        windows.lag_days,
        windows.as_of_last_year,
        windows.horizon_last_year,
        windows.recent_start
    from growth
    cross join windows
)

select * from final
