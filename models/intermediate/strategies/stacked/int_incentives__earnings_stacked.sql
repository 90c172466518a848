-- A view: potential_earnings computes and writes the earning rows once (a table on Spark:
-- long_query_materialization, macros/materializations.sql).
{{ config(materialized=incentives.long_query_materialization()) }}

-- Stacked offers' earning rows of the qualified participant x offer pairs: the stacked strategy's
-- query (macros/strategies/stacked.sql, which int_incentives__offer_opportunities runs for the unqualified
-- pairs). Coverage and overlap are computed once, in int_incentives__stack_coverage.
with qualified as (
    select * from {{ ref('incentives', 'int_incentives__offer_status') }}
    where strategy_key = 'stacked' and qualified
),

final as (
    {{ incentives._stacked_earning_rows('qualified', ref('incentives', 'stg_incentives__rules_stacked_set_skus'),
                                        ref('incentives', 'int_incentives__transactions'), ref('incentives', 'int_incentives__stack_coverage')) }}
)

select * from final
