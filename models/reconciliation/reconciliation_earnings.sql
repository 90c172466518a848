-- One row per earning line on either side, for the participants a statement was read for: the
-- engine's rows (potential_earnings) and the statement's lines compared in the way of
-- audit-helper (a full outer join on the key, then classify). Matched on (entity_id, offer_key,
-- incentive_rate_key, transaction_id); what is left on both sides for one transaction of an offer,
-- one row each, is paired too (the same transaction under another rate key: a stepped offer paid
-- at another tier). The statement's amount is taken to the cent (half away from zero); a row
-- matches when the amounts are within the tolerance (var incentives_reconciliation_tolerance).
-- docs/reconciliation.md.
with engine as (
    select * from {{ ref('incentives', 'potential_earnings') }}
),

statement as (
    select * from {{ ref('incentives', 'stg_incentives__statement_earnings') }}
),

statement_qualifications as (
    select * from {{ ref('incentives', 'stg_incentives__statement_qualifications') }}
),

offers as (
    select * from {{ ref('incentives', 'stg_incentives__rules_offers') }}
),

participants as (
    {{ incentives._statement_participants('statement', 'statement_qualifications') }}
),

engine_side as (
    -- the engine's rows of the participants a statement was read for
    select
        engine.entity_id,
        engine.offer_key,
        engine.transaction_id,
        engine.incentive_rate_key,
        engine.program_key,
        engine.sku_key,
        engine.incentive_rate_value,
        engine.offer_sku_pay_rate,
        engine.incentivized_quantity,
        engine.incentivized_amount,
        engine.incentive_amount
    from engine
    inner join participants on participants.entity_id = engine.entity_id
),

statement_side as (
    select
        statement.entity_id,
        statement.offer_key,
        statement.transaction_id,
        statement.incentive_rate_key,
        offers.program_key,
        statement.sku_key,
        statement.incentive_rate_value,
        statement.offer_sku_pay_rate,
        statement.incentivized_quantity,
        statement.incentivized_amount,
        {{ incentives.round_half_away('statement.incentive_amount', 2) }} as incentive_amount
    from statement
    left join offers on offers.offer_key = statement.offer_key
),

exact_matches as (
    select
        engine_side.entity_id,
        engine_side.offer_key,
        engine_side.transaction_id,
        engine_side.incentive_rate_key as engine_rate_key,
        statement_side.incentive_rate_key as statement_rate_key
    from engine_side
    inner join statement_side
        on statement_side.entity_id = engine_side.entity_id
        and statement_side.offer_key = engine_side.offer_key
        and statement_side.incentive_rate_key = engine_side.incentive_rate_key
        and statement_side.transaction_id = engine_side.transaction_id
),

{#- the lines each side has without a line of the same key on the other, and how many such lines
    their transaction has on that side -#}
{%- for side, matched_key in [('engine', 'engine_rate_key'), ('statement', 'statement_rate_key')] %}
{{ side }}_left as (
    select
        {{ side }}_side.entity_id,
        {{ side }}_side.offer_key,
        {{ side }}_side.transaction_id,
        {{ side }}_side.incentive_rate_key,
        count(*) over (partition by {{ side }}_side.entity_id, {{ side }}_side.offer_key, {{ side }}_side.transaction_id)
            as rows_of_transaction
    from {{ side }}_side
    left join exact_matches
        on exact_matches.entity_id = {{ side }}_side.entity_id
        and exact_matches.offer_key = {{ side }}_side.offer_key
        and exact_matches.transaction_id = {{ side }}_side.transaction_id
        and exact_matches.{{ matched_key }} = {{ side }}_side.incentive_rate_key
    where exact_matches.entity_id is null
),
{% endfor %}

rate_key_pairs as (
    -- one row left on each side for the same transaction of an offer: the same line under another key
    select
        engine_left.entity_id,
        engine_left.offer_key,
        engine_left.transaction_id,
        engine_left.incentive_rate_key as engine_rate_key,
        statement_left.incentive_rate_key as statement_rate_key
    from engine_left
    inner join statement_left
        on statement_left.entity_id = engine_left.entity_id
        and statement_left.offer_key = engine_left.offer_key
        and statement_left.transaction_id = engine_left.transaction_id
    where engine_left.rows_of_transaction = 1 and statement_left.rows_of_transaction = 1
),

paired as (
    select * from exact_matches
    union all
    select * from rate_key_pairs
),

keys as (
    -- every line once: paired, then each side's alone
    select entity_id, offer_key, transaction_id, engine_rate_key, statement_rate_key from paired
    {%- for side, matched_key in [('engine', 'engine_rate_key'), ('statement', 'statement_rate_key')] %}
    union all
    select
        {{ side }}_side.entity_id,
        {{ side }}_side.offer_key,
        {{ side }}_side.transaction_id,
        {{ side ~ '_side.incentive_rate_key' if side == 'engine' else 'cast(null as ' ~ dbt.type_string() ~ ')' }},
        {{ side ~ '_side.incentive_rate_key' if side == 'statement' else 'cast(null as ' ~ dbt.type_string() ~ ')' }}
    from {{ side }}_side
    left join paired
        on paired.entity_id = {{ side }}_side.entity_id
        and paired.offer_key = {{ side }}_side.offer_key
        and paired.transaction_id = {{ side }}_side.transaction_id
        and paired.{{ matched_key }} = {{ side }}_side.incentive_rate_key
    where paired.entity_id is null
    {%- endfor %}
),

compared as (
    select
        keys.entity_id,
        coalesce(engine_side.program_key, statement_side.program_key) as program_key,
        keys.offer_key,
        keys.transaction_id,
        coalesce(keys.engine_rate_key, keys.statement_rate_key) as incentive_rate_key,
        keys.statement_rate_key as statement_incentive_rate_key,
        coalesce(engine_side.sku_key, statement_side.sku_key) as sku_key,
        engine_side.incentive_amount as engine_incentive_amount,
        statement_side.incentive_amount as statement_incentive_amount,
        coalesce(engine_side.incentive_amount, 0) - coalesce(statement_side.incentive_amount, 0)
            as incentive_amount_difference,
        engine_side.incentive_rate_value as engine_incentive_rate_value,
        statement_side.incentive_rate_value as statement_incentive_rate_value,
        engine_side.offer_sku_pay_rate as engine_offer_sku_pay_rate,
        statement_side.offer_sku_pay_rate as statement_offer_sku_pay_rate,
        engine_side.incentivized_quantity as engine_incentivized_quantity,
        statement_side.incentivized_quantity as statement_incentivized_quantity,
        engine_side.incentivized_amount as engine_incentivized_amount,
        statement_side.incentivized_amount as statement_incentivized_amount
    from keys
    left join engine_side
        on engine_side.entity_id = keys.entity_id
        and engine_side.offer_key = keys.offer_key
        and engine_side.transaction_id = keys.transaction_id
        and engine_side.incentive_rate_key = keys.engine_rate_key
    left join statement_side
        on statement_side.entity_id = keys.entity_id
        and statement_side.offer_key = keys.offer_key
        and statement_side.transaction_id = keys.transaction_id
        and statement_side.incentive_rate_key = keys.statement_rate_key
),

classified as (
    select
        compared.*,
        case
            when engine_incentive_amount is null then 'missing_in_engine'
            when statement_incentive_amount is null then 'missing_in_statement'
            when abs(incentive_amount_difference) > {{ incentives.reconciliation_tolerance() }} then 'amount_differs'
            else 'matched'
        end as status
    from compared
),

final as (
    select
        entity_id,
        program_key,
        offer_key,
        transaction_id,
        incentive_rate_key,
        statement_incentive_rate_key,
        sku_key,
        status,
        case when status = 'amount_differs' then
            case
                when {{ incentives._differs('engine_incentivized_quantity', 'statement_incentivized_quantity') }}
                    then 'incentivized_quantity'
                when {{ incentives._differs('engine_incentivized_amount', 'statement_incentivized_amount') }}
                    then 'incentivized_amount'
                when {{ incentives._differs('engine_incentive_rate_value', 'statement_incentive_rate_value') }}
                    then 'incentive_rate_value'
                when {{ incentives._differs('engine_offer_sku_pay_rate', 'statement_offer_sku_pay_rate') }}
                    then 'offer_sku_pay_rate'
                when incentive_rate_key <> statement_incentive_rate_key then 'incentive_rate_key'
                else 'incentive_amount'
            end
        end as differing_column,
        {{ incentives.cast_money('engine_incentive_amount') }} as engine_incentive_amount,
        {{ incentives.cast_money('statement_incentive_amount') }} as statement_incentive_amount,
        {{ incentives.cast_money('incentive_amount_difference') }} as incentive_amount_difference,
        {{ incentives.cast_measure('engine_incentive_rate_value') }} as engine_incentive_rate_value,
        {{ incentives.cast_measure('statement_incentive_rate_value') }} as statement_incentive_rate_value,
        {{ incentives.cast_measure('engine_offer_sku_pay_rate') }} as engine_offer_sku_pay_rate,
        {{ incentives.cast_measure('statement_offer_sku_pay_rate') }} as statement_offer_sku_pay_rate,
        {{ incentives.cast_measure('engine_incentivized_quantity') }} as engine_incentivized_quantity,
        {{ incentives.cast_measure('statement_incentivized_quantity') }} as statement_incentivized_quantity,
        {{ incentives.cast_measure('engine_incentivized_amount') }} as engine_incentivized_amount,
        {{ incentives.cast_measure('statement_incentivized_amount') }} as statement_incentivized_amount,
        {{ incentives.run_id() }} as run_id
    from classified
)

select * from final
