-- materialized as a view: potential_earnings computes and writes the earning rows once
{{ config(materialized='view') }}

-- Stepped offers' earning rows of the qualified participant x offer pairs: the stepped strategy's
-- query (macros/strategies/stepped.sql, which int_offer_opportunities runs for the pairs whose
-- earnings potential_earnings does not hold). Below the lowest tier the earning transactions are
-- kept with a null tier; potential_earnings keeps the rows with a rate.
with qualified as (
    select * from {{ ref('int_offer_status') }}
    where strategy_key = 'stepped' and qualified
),

final as (
    {{ incentives._stepped_earning_rows('qualified', ref('stg_rules__offers'), ref('stg_rules__stepped_tiers'),
                                        ref('stg_rules__filter_keys'), ref('int_transaction_buckets'),
                                        ref('int_stepped_thresholds'), ref('stg_properties'),
                                        ref('int_transactions')) }}
)

select * from final
