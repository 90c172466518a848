-- A view: potential_earnings, its one reader, writes these rows once (a table on Spark:
-- long_query_materialization, macros/materializations.sql).
{{ config(materialized=incentives.long_query_materialization()) }}

-- One row per participant x qualified offer x incentive rate key x transaction that reached a
-- rate: the earning rows of the qualified pairs (the strategies' models) in potential_earnings'
-- columns (without run_id and pass-through columns), each calculator's formula from its macro
-- (macros/calculators/, through _calculated_earning_rows); incentive_amount is rounded to cents
-- row by row. A stepped offer below its lowest tier has earning transactions with a null rate
-- (and null amounts): they are not kept here (int_incentives__offer_opportunities prices them
-- for what the offer would pay at its next tier).
with earning_rows as (
    select * from {{ ref('incentives', 'int_incentives__earnings_standard') }}
    union all
    select * from {{ ref('incentives', 'int_incentives__earnings_stepped') }}
    union all
    select * from {{ ref('incentives', 'int_incentives__earnings_stacked') }}
),

calculated as (
    {{ incentives._calculated_earning_rows('earning_rows') }}
),

final as (
    select * from calculated
    where incentive_rate_value is not null
)

select * from final
