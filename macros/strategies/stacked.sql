{#- Private queries of the stacked strategy, shared by int_incentives__stack_coverage (every evaluated pair:
    coverage and overlap), int_incentives__earnings_stacked (qualified pairs: the paying transactions) and
    int_incentives__offer_opportunities (the other pairs), models/intermediate/.

    Coverage is exact (docs/semantics.md, "Stacked coverage"): a transaction of SKU s covers
    quantity x coverage_weight / set_conversion_rate units, where coverage_weight is an integer and
    set_conversion_rate the set's common conversion rate (compiler/strategies/stacked.py). Sums of
    weighted quantities are exact decimals; every share is one exact quotient of them. -#}

{#- _stacked_set_transactions(pairs, set_skus, transactions): per row of `pairs` (entity_id,
    offer_key, calculator_key, strategy_key), the transactions of `transactions` in a SKU set of
    `set_skus` of its offer (SKU, transaction type, period), only where the uom is the
    conversion's `from`, with their weighted quantity (quantity x coverage_weight: the coverage
    units times the set's conversion rate, an exact decimal). -#}
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
        {{ set_skus }}.set_conversion_rate,
        {{ transactions }}.transaction_id,
        {{ transactions }}.quantity,
        {{ transactions }}.uom_key,
        {{ transactions }}.amount,
        {{ transactions }}.value,
        cast({{ transactions }}.quantity * {{ set_skus }}.coverage_weight as {{ incentives.type_measure() }}) as weighted_quantity
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

{#- _stacked_share(x, x_places, scale): x x (the stack's overlap / the set's coverage), rounded once
    to `scale` places, over a row of _stacked_earning_rows: overlap / set coverage =
    (overlap_weighted_quantity / overlap_conversion_rate) / (set_weighted_quantity /
    set_conversion_rate), so one exact quotient x x set_conversion_rate x overlap_weighted_quantity /
    (overlap_conversion_rate x set_weighted_quantity). -#}
{% macro _stacked_share(x, x_places, scale) -%}
{{ incentives.quotient_of_products([[x, x_places], ['set_conversion_rate', 10]], [['overlap_weighted_quantity', 4]],
                                   [['overlap_conversion_rate', 10], ['set_weighted_quantity', 4]], scale) }}
{%- endmacro %}

{#- _no_stacked_coverage(): the stacked columns of an earning row of another strategy (null). -#}
{% macro _no_stacked_coverage() -%}
cast(null as {{ incentives.type_measure() }}) as weighted_quantity,
    cast(null as {{ incentives.type_measure() }}) as set_weighted_quantity,
    cast(null as {{ incentives.type_measure() }}) as set_conversion_rate,
    cast(null as {{ incentives.type_measure() }}) as overlap_weighted_quantity,
    cast(null as {{ incentives.type_measure() }}) as overlap_conversion_rate
{%- endmacro %}

{#- _stacked_earning_rows(pairs, set_skus, transactions, stack_coverage): the earning rows of the
    stacked offers of `pairs` (entity_id, offer_key, calculator_key, strategy_key): each paying
    transaction of a set (`set_skus`, `transactions`) in a stack with overlap > 0 earns coverage x
    rate x overlap / set coverage. The set's and the overlap's weighted quantities and conversion
    rates come from `stack_coverage` (int_incentives__stack_coverage, every evaluated pair). The rows carry
    them, so every derived column is one exact quotient (divide last): incentivized quantity and
    amount are quantity x overlap / set coverage and value x overlap / set coverage; the
    calculator pays weighted quantity x rate x overlap / (set coverage x set conversion rate).
    One query (its CTE names start with `stacked_`). -#}
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
        stacked_coverage.set_weighted_quantity,
        stacked_coverage.overlap_weighted_quantity,
        stacked_coverage.overlap_conversion_rate
    from stacked_set_transactions
    inner join stacked_coverage
        on stacked_coverage.entity_id = stacked_set_transactions.entity_id
        and stacked_coverage.offer_key = stacked_set_transactions.offer_key
        and stacked_coverage.set_key = stacked_set_transactions.set_key
    where stacked_coverage.overlap_weighted_quantity > 0 and stacked_set_transactions.rate > 0
)

select
    entity_id, program_key, offer_key, offer_calculator, strategy_key, sku_key,
    stack_key as incentive_rate_key, measure as incentive_rate_measure, rate, transaction_id,
    quantity as provided_quantity, uom_key as provided_uom_key, amount as provided_amount,
    {{ incentives._stacked_share('quantity', 4, 10) }} as quantity,
    {{ incentives._stacked_share('value', 8, 10) }} as value,
    cast(null as {{ incentives.type_measure() }}) as share_total,
    weighted_quantity,
    set_weighted_quantity,
    set_conversion_rate,
    overlap_weighted_quantity,
    overlap_conversion_rate
from stacked_contributions
{%- endmacro %}
