-- Stacked offers: set coverage = the participant's net coverage units (quantity / conversion
-- rate, only where the uom is the conversion's `from`); a stack's overlap = the smallest set
-- coverage (0 if any <= 0). Each paying transaction of a set in a stack with overlap earns
-- coverage x contribution x rate, contribution = overlap / set coverage.
with qualified as (
    select * from {{ ref('int_offer_status') }}
    where qualified and strategy_key = 'stacked'
),

set_skus as (
    select * from {{ ref('stg_rules__stacked_set_skus') }}
),

stacks as (
    select * from {{ ref('stg_rules__stacked_stacks') }}
),

transactions as (
    select * from {{ ref('int_transactions') }}
),

set_transactions as (
    select
        qualified.entity_id,
        set_skus.program_key,
        set_skus.offer_key,
        qualified.calculator_key as offer_calculator,
        qualified.strategy_key,
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
    inner join qualified on qualified.offer_key = set_skus.offer_key
    inner join transactions
        on transactions.entity_id = qualified.entity_id
        and transactions.sku_key = set_skus.sku_key
    where (set_skus.transaction_type is null or set_skus.transaction_type = transactions.transaction_type)
        and transactions.transaction_date >= set_skus.start_date
        and transactions.transaction_date <= set_skus.end_date
        and transactions.uom_key = set_skus.from_uom
),

set_coverage as (
    select entity_id, offer_key, set_key, sum(coverage) as set_coverage
    from set_transactions
    group by entity_id, offer_key, set_key
),

stack_overlap as (
    select
        qualified.entity_id,
        stacks.offer_key,
        stacks.stack_key,
        case when min(coalesce(set_coverage.set_coverage, 0)) > 0
             then min(set_coverage.set_coverage) else 0 end as overlap
    from stacks
    inner join qualified on qualified.offer_key = stacks.offer_key
    left join set_coverage
        on set_coverage.entity_id = qualified.entity_id
        and set_coverage.offer_key = stacks.offer_key
        and set_coverage.set_key = stacks.set_key
    group by qualified.entity_id, stacks.offer_key, stacks.stack_key
),

contributions as (
    select
        set_transactions.*,
        stacks.stack_key,
        {{ incentives.divide('stack_overlap.overlap', 'set_coverage.set_coverage', 10) }} as contribution
    from set_transactions
    inner join stacks
        on stacks.offer_key = set_transactions.offer_key
        and stacks.set_key = set_transactions.set_key
    inner join stack_overlap
        on stack_overlap.entity_id = set_transactions.entity_id
        and stack_overlap.offer_key = set_transactions.offer_key
        and stack_overlap.stack_key = stacks.stack_key
    inner join set_coverage
        on set_coverage.entity_id = set_transactions.entity_id
        and set_coverage.offer_key = set_transactions.offer_key
        and set_coverage.set_key = set_transactions.set_key
    where stack_overlap.overlap > 0 and set_transactions.rate > 0
),

final as (
    select
        entity_id, program_key, offer_key, offer_calculator, strategy_key, sku_key,
        stack_key as incentive_rate_key, measure as incentive_rate_measure, rate, transaction_id,
        quantity as provided_quantity, uom_key as provided_uom_key, amount as provided_amount,
        {{ incentives.round_half_away('cast(quantity as decimal(38,10)) * contribution', 10) }} as quantity,
        {{ incentives.round_half_away('value * contribution', 10) }} as value,
        cast(null as {{ incentives.type_measure() }}) as share_total,
        {{ incentives.round_half_away('coverage * contribution', 10) }} as covered_units,
        contribution
    from contributions
)

select * from final
