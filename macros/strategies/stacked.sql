{#- Private queries of the stacked strategy, shared by int_incentives__stack_coverage (every evaluated pair:
    coverage and overlap), int_incentives__earnings_stacked (qualified pairs: the paying transactions) and
    int_incentives__offer_opportunities (the other pairs), models/intermediate/. -#}

{#- _stacked_set_transactions(pairs, set_skus, transactions): per row of `pairs` (entity_id,
    offer_key, calculator_key, strategy_key), the transactions of `transactions` in a SKU set of
    `set_skus` of its offer (SKU, transaction type, period) with their coverage units: quantity /
    conversion rate, only where the uom is the conversion's `from`. -#}
{% macro _stacked_set_transactions(pairs, set_skus, transactions) -%}
    select
        {{ pairs }}.entity_id,
        {{ set_skus }}.program_key,
        {{ set_skus }}.offer_key,
        {{ pairs }}.calculator_key as offer_calculator,
        {{ pairs }}.strategy_key,
        {{ set_skus }}.set_key,
        {{ set_skus }}.sku_key,
        {{ set_skus }}.rate,
        {{ set_skus }}.measure,
        {{ transactions }}.transaction_id,
        {{ transactions }}.quantity,
        {{ transactions }}.uom_key,
        {{ transactions }}.amount,
        {{ transactions }}.value,
        {{ incentives.divide(transactions ~ '.quantity', set_skus ~ '.conversion_rate', 10) }} as coverage
    from {{ set_skus }}
    inner join {{ pairs }} on {{ pairs }}.offer_key = {{ set_skus }}.offer_key
    inner join {{ transactions }}
        on {{ transactions }}.entity_id = {{ pairs }}.entity_id
        and {{ transactions }}.sku_key = {{ set_skus }}.sku_key
    where ({{ set_skus }}.transaction_type is null or {{ set_skus }}.transaction_type = {{ transactions }}.transaction_type)
        and {{ transactions }}.transaction_date >= {{ set_skus }}.start_date
        and {{ transactions }}.transaction_date <= {{ set_skus }}.end_date
        and {{ transactions }}.uom_key = {{ set_skus }}.from_uom
{%- endmacro %}

{#- _stacked_earning_rows(pairs, set_skus, transactions, stack_coverage): the earning rows of the
    stacked offers of `pairs` (entity_id, offer_key, calculator_key, strategy_key): each paying
    transaction of a set (`set_skus`, `transactions`) in a stack with overlap > 0 earns coverage x
    rate x overlap / set coverage. Coverage and overlap come from `stack_coverage`
    (int_incentives__stack_coverage, every evaluated pair). The rows carry coverage, overlap and set coverage,
    so every derived column is one exact quotient (divide last): incentivized quantity and amount
    are q x overlap / set coverage and value x overlap / set coverage, the contribution (overlap /
    set coverage) is only reported. One query (its CTE names start with `stacked_`). -#}
{% macro _stacked_earning_rows(pairs, set_skus, transactions, stack_coverage) -%}
with stacked_set_skus as (
    select * from {{ set_skus }}
),

stacked_transactions as (
    select * from {{ transactions }}
),

stacked_coverage as (
    select * from {{ stack_coverage }}
),

stacked_set_transactions as (
    {{ incentives._stacked_set_transactions(pairs, 'stacked_set_skus', 'stacked_transactions') }}
),

stacked_contributions as (
    -- one row per stack the transaction's set is in
    select
        stacked_set_transactions.*,
        stacked_coverage.stack_key,
        stacked_coverage.overlap,
        stacked_coverage.set_coverage
    from stacked_set_transactions
    inner join stacked_coverage
        on stacked_coverage.entity_id = stacked_set_transactions.entity_id
        and stacked_coverage.offer_key = stacked_set_transactions.offer_key
        and stacked_coverage.set_key = stacked_set_transactions.set_key
    where stacked_coverage.overlap > 0 and stacked_set_transactions.rate > 0
)

select
    entity_id, program_key, offer_key, offer_calculator, strategy_key, sku_key,
    stack_key as incentive_rate_key, measure as incentive_rate_measure, rate, transaction_id,
    quantity as provided_quantity, uom_key as provided_uom_key, amount as provided_amount,
    {{ incentives.multiply_divide('quantity', '1', 'overlap', 'set_coverage', 10) }} as quantity,
    {{ incentives.multiply_divide('value', '1', 'overlap', 'set_coverage', 10) }} as value,
    cast(null as {{ incentives.type_measure() }}) as share_total,
    {{ incentives.cast_measure('coverage') }} as coverage,
    {{ incentives.cast_measure('overlap') }} as overlap,
    {{ incentives.cast_measure('set_coverage') }} as set_coverage
from stacked_contributions
{%- endmacro %}
