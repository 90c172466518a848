-- materialized as a view: potential_earnings computes and writes the earning rows once
{{ config(materialized='view') }}

-- Standard offers' earning rows of the qualified participant x offer pairs: the standard
-- strategy's query (macros/strategies/standard.sql, which int_incentives__offer_opportunities runs for the
-- unqualified pairs).
with qualified as (
    select * from {{ ref('incentives', 'int_incentives__offer_status') }}
    where strategy_key = 'standard' and qualified
),

final as (
    {{ incentives._standard_earning_rows('qualified', ref('incentives', 'stg_incentives__rules_standard_rates'),
                                         ref('incentives', 'int_incentives__transaction_buckets'), ref('incentives', 'int_incentives__transactions')) }}
)

select * from final
