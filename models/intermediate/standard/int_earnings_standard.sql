-- materialized as a view: potential_earnings computes and writes the earning rows once
{{ config(materialized='view') }}

-- Standard offers' earning rows of the qualified participant x offer pairs: the standard
-- strategy's query (macros/strategies/standard.sql, which int_offer_opportunities runs for the
-- unqualified pairs).
with qualified as (
    select * from {{ ref('int_offer_status') }}
    where strategy_key = 'standard' and qualified
),

final as (
    {{ incentives._standard_earning_rows('qualified', ref('stg_rules__standard_rates'),
                                         ref('int_transaction_buckets'), ref('int_transactions')) }}
)

select * from final
