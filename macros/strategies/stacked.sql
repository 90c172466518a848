{#- Private CTE body of the stacked strategy, shared by int_stack_coverage (every evaluated pair:
    coverage and overlap) and int_earnings_stacked (qualified pairs: the paying transactions),
    models/intermediate/stacked/. -#}

{#- _stacked_set_transactions(pairs, set_skus, transactions): per row of `pairs` (entity_id,
    offer_key, calculator_key, strategy_key, qualified), the transactions of `transactions` in a SKU set of
    `set_skus` of its offer (SKU, transaction type, period) with their coverage units: quantity /
    conversion rate, only where the uom is the conversion's `from`. -#}
{% macro _stacked_set_transactions(pairs, set_skus, transactions) -%}
    select
        {{ pairs }}.entity_id,
        {{ set_skus }}.program_key,
        {{ set_skus }}.offer_key,
        {{ pairs }}.calculator_key as offer_calculator,
        {{ pairs }}.strategy_key,
        {{ pairs }}.qualified,
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
