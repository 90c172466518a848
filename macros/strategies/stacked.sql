{#- Private CTE bodies of the stacked strategy, shared by int_earnings_stacked (qualified pairs)
    and stack_coverage (every evaluated pair). They read the CTEs `set_skus`, `transactions`,
    `stacks`, `set_transactions`, `set_coverage` and the given `pairs` CTE (entity_id, offer_key,
    calculator_key, strategy_key) of the calling model. -#}

{#- A set's transactions with their coverage units (only where the uom is the conversion's from). -#}
{% macro _stacked_set_transactions(pairs) -%}
    select
        {{ pairs }}.entity_id,
        set_skus.program_key,
        set_skus.offer_key,
        {{ pairs }}.calculator_key as offer_calculator,
        {{ pairs }}.strategy_key,
        set_skus.set_key,
        set_skus.sku_key,
        set_skus.rate,
        set_skus.measure,
        transactions.transaction_id,
        transactions.quantity,
        transactions.uom_key,
        transactions.amount,
        transactions.value,
        {{ incentives.divide('transactions.quantity', 'set_skus.conversion_rate', 10) }} as coverage
    from set_skus
    inner join {{ pairs }} on {{ pairs }}.offer_key = set_skus.offer_key
    inner join transactions
        on transactions.entity_id = {{ pairs }}.entity_id
        and transactions.sku_key = set_skus.sku_key
    where (set_skus.transaction_type is null or set_skus.transaction_type = transactions.transaction_type)
        and transactions.transaction_date >= set_skus.start_date
        and transactions.transaction_date <= set_skus.end_date
        and transactions.uom_key = set_skus.from_uom
{%- endmacro %}

{#- The participant's net coverage per set. -#}
{% macro _stacked_set_coverage() -%}
    select entity_id, offer_key, set_key, sum(coverage) as set_coverage
    from set_transactions
    group by entity_id, offer_key, set_key
{%- endmacro %}

{#- A stack's overlap: the smallest coverage among its sets, 0 if any is <= 0 (or absent). -#}
{% macro _stacked_overlap(pairs) -%}
    select
        {{ pairs }}.entity_id,
        stacks.offer_key,
        stacks.stack_key,
        case when min(coalesce(set_coverage.set_coverage, 0)) > 0
             then min(set_coverage.set_coverage) else 0 end as overlap
    from stacks
    inner join {{ pairs }} on {{ pairs }}.offer_key = stacks.offer_key
    left join set_coverage
        on set_coverage.entity_id = {{ pairs }}.entity_id
        and set_coverage.offer_key = stacks.offer_key
        and set_coverage.set_key = stacks.set_key
    group by {{ pairs }}.entity_id, stacks.offer_key, stacks.stack_key
{%- endmacro %}
