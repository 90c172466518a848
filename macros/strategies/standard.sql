{#- Private query of the standard strategy, read by int_incentives__earnings_standard (qualified pairs) and
    int_incentives__offer_opportunities (the pairs whose earnings potential_earnings does not hold). -#}

{#- _standard_earning_rows(pairs, rates, buckets, transactions): the earning rows of the standard
    offers of `pairs` (entity_id, offer_key, calculator_key): each incentives[] entry of `rates`
    (stg_incentives__rules_standard_rates) pays the pair's transactions of `transactions` (int_incentives__transactions)
    matching its period, transaction type and a SKU of its rates; `buckets`
    (int_incentives__transaction_buckets) says which participant x SKU pairs have transactions. fixed_amount
    shares the entry x SKU total over those transactions in proportion to value (nothing when they
    sum to 0 or less). One query (its CTE names start with `standard_`); the transactions meet a
    narrow build side (participant, rate id, match keys) and the rates' text columns are joined to
    the matched rows afterwards from the small rates table. -#}
{% macro _standard_earning_rows(pairs, rates, buckets, transactions) -%}
with standard_rate_rows as (
    select * from {{ rates }}
),

standard_bucket_rows as (
    select * from {{ buckets }}
),

standard_transactions as (
    select * from {{ transactions }}
),

standard_calculators as (
    select distinct offer_key, calculator_key from {{ pairs }}
),

standard_rates as (
    -- with the offer's calculator, so the matched rows need one join for all their text columns
    select
        standard_rate_rows.*,
        standard_calculators.calculator_key,
        row_number() over (
            order by standard_rate_rows.offer_key, standard_rate_rows.incentive_rate_key,
                standard_rate_rows.sku_key, standard_rate_rows.transaction_type,
                standard_rate_rows.start_date, standard_rate_rows.end_date
        ) as rate_id
    from standard_rate_rows
    inner join standard_calculators on standard_calculators.offer_key = standard_rate_rows.offer_key
),

standard_entity_skus as (
    select distinct entity_id, sku_key from standard_bucket_rows
),

standard_rate_pairs as (
    -- the rates of the SKUs a participant has transactions for (standard_entity_skus), kept for
    -- its pairs: a semi join, which the optimizer does not reorder with the joins around it (a
    -- pair x its offer's rates first would be hundreds of millions of rows without enrollments)
    select
        standard_entity_skus.entity_id,
        standard_rates.rate_id,
        standard_rates.sku_key,
        standard_rates.transaction_type,
        standard_rates.start_date,
        standard_rates.end_date,
        standard_rates.calculator_key = 'fixed_amount' as is_shared
    from standard_rates
    inner join standard_entity_skus on standard_entity_skus.sku_key = standard_rates.sku_key
    where exists (
        select 1 from {{ pairs }}
        where {{ pairs }}.entity_id = standard_entity_skus.entity_id
            and {{ pairs }}.offer_key = standard_rates.offer_key
    )
),

standard_matched as (
    select
        standard_rate_pairs.rate_id,
        standard_rate_pairs.is_shared,
        standard_transactions.entity_id,
        standard_transactions.transaction_id,
        standard_transactions.quantity,
        standard_transactions.uom_key,
        standard_transactions.amount,
        standard_transactions.value
    from standard_transactions
    inner join standard_rate_pairs
        on standard_rate_pairs.entity_id = standard_transactions.entity_id
        and standard_rate_pairs.sku_key = standard_transactions.sku_key
    where (standard_rate_pairs.transaction_type is null
            or standard_rate_pairs.transaction_type = standard_transactions.transaction_type)
        and standard_transactions.transaction_date >= standard_rate_pairs.start_date
        and standard_transactions.transaction_date <= standard_rate_pairs.end_date
),

{%- for part in ['unshared', 'shared'] %}

standard_{{ part }} as (
    -- a left join (every rate_id exists) keeps the wide rate columns out of the join above
    select
        standard_matched.entity_id,
        standard_rates.program_key,
        standard_rates.offer_key,
        standard_rates.calculator_key as offer_calculator,
        'standard' as strategy_key,
        standard_rates.sku_key,
        standard_rates.incentive_rate_key,
        standard_rates.measure as incentive_rate_measure,
        standard_rates.rate,
        standard_matched.transaction_id,
        standard_matched.quantity,
        standard_matched.uom_key,
        standard_matched.amount,
        standard_matched.value
    from standard_matched
    left join standard_rates on standard_rates.rate_id = standard_matched.rate_id
    where {{ 'not ' if part == 'unshared' }}standard_matched.is_shared
),
{%- endfor %}

standard_earning_rows as (
    -- only fixed_amount shares a total: the entry x SKU total over its transactions
    {{ incentives._shared_earning_rows('standard_unshared', 'standard_shared',
                                       'entity_id, offer_key, incentive_rate_key, sku_key') }}
)

select
    entity_id, program_key, offer_key, offer_calculator, strategy_key, sku_key,
    incentive_rate_key, incentive_rate_measure, rate, transaction_id,
    quantity as provided_quantity, uom_key as provided_uom_key, amount as provided_amount,
    {{ incentives.cast_measure('quantity') }} as quantity,
    value,
    share_total,
    {{ incentives._no_stacked_coverage() }}
from standard_earning_rows
{%- endmacro %}
