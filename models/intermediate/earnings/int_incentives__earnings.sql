-- A view: potential_earnings, its one reader, writes these rows once (a table on Spark:
-- long_query_materialization, macros/materializations.sql).
{{ config(materialized=incentives.long_query_materialization()) }}

-- The earning rows of the qualified participant x offer pairs (the strategies' models) in
-- potential_earnings' columns, each calculator's formula from its macro (macros/calculators/,
-- through _calculated_earning_rows); incentive_amount is rounded to cents row by row. A stepped
-- offer below its lowest tier keeps its earning transactions with a null rate (and null amounts):
-- potential_earnings keeps the rows with a rate.
with earning_rows as (
    select * from {{ ref('incentives', 'int_incentives__earnings_standard') }}
    union all
    select * from {{ ref('incentives', 'int_incentives__earnings_stepped') }}
    union all
    select * from {{ ref('incentives', 'int_incentives__earnings_stacked') }}
),

final as (
    {{ incentives._calculated_earning_rows('earning_rows') }}
)

select * from final
