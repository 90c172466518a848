-- materialized as a view: potential_earnings computes and writes the earning rows once
{{ config(materialized='view') }}

-- Stepped offers' earning rows of the qualified participant x offer pairs: the stepped strategy's
-- query (macros/strategies/stepped.sql, which int_incentives__offer_opportunities runs for the pairs whose
-- earnings potential_earnings does not hold). Below the lowest tier the earning transactions
-- are kept with a null tier; int_incentives__earnings keeps the rows with a rate.
with qualified as (
    select * from {{ ref('incentives', 'int_incentives__offer_status') }}
    where strategy_key = 'stepped' and qualified
),

final as (
    {{ incentives._stepped_earning_rows('qualified', ref('incentives', 'stg_incentives__rules_offers'), ref('incentives', 'stg_incentives__rules_stepped_tiers'),
                                        ref('incentives', 'stg_incentives__rules_filter_keys'), ref('incentives', 'int_incentives__transaction_buckets'),
                                        ref('incentives', 'int_incentives__stepped_thresholds'), ref('incentives', 'stg_incentives__properties'),
                                        ref('incentives', 'int_incentives__transactions')) }}
)

select * from final
