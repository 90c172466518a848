{{ config(materialized=incentives.materialized_when(incentives.using_scenarios(), 'view')) }}

-- The transactions of every evaluated participant: the actual transactions, and for each scenario
-- participant (int_incentives__scenario_participants) a copy of its participant's actual
-- transactions plus the scenario's hypothetical ones, under the scenario participant's id. Without
-- scenarios, the actual transactions as they are.
with actual as (
    select * from {{ ref('incentives', 'stg_incentives__transactions') }}
),

scenario_transactions as (
    select * from {{ ref('incentives', 'int_incentives__hypothetical_transactions') }}
),

scenario_participants as (
    select * from {{ ref('incentives', 'int_incentives__scenario_participants') }}
),

final as (
    select transaction_id, entity_id, transaction_type, transaction_date, sku_key, quantity, uom_key, amount
    from actual
    {%- if incentives.using_scenarios() %}
    union all
    select
        actual.transaction_id, scenario_participants.evaluation_entity_id, actual.transaction_type,
        actual.transaction_date, actual.sku_key, actual.quantity, actual.uom_key, actual.amount
    from actual
    inner join scenario_participants on scenario_participants.entity_id = actual.entity_id
    union all
    select
        scenario_transactions.transaction_id, scenario_participants.evaluation_entity_id,
        scenario_transactions.transaction_type, scenario_transactions.transaction_date,
        scenario_transactions.sku_key, scenario_transactions.quantity, scenario_transactions.uom_key,
        scenario_transactions.amount
    from scenario_transactions
    inner join scenario_participants
        on scenario_participants.scenario_id = scenario_transactions.scenario_id
        and scenario_participants.entity_id = scenario_transactions.entity_id
    {%- endif %}
)

select * from final
