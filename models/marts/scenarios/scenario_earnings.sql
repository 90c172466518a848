-- One row per scenario x participant x qualified offer x incentive rate key x transaction that
-- reached a rate, within the scenario: the earning rows of the scenario participants
-- (int_incentives__scenario_participants), computed by the same models as potential_earnings'
-- (int_incentives__earnings), in potential_earnings' columns with the scenario and the flag
-- `hypothetical` (a transaction of the scenario, not an actual one). Pass-through columns are not
-- carried. docs/scenarios.md.
{%- if incentives.scenario_models_built() %}
with earnings as (
    -- a view: the range spares it the actual participants' rows (_scenario_participant_range)
    select * from {{ ref('incentives', 'int_incentives__earnings') }}
    where {{ incentives._scenario_participant_range('entity_id') }}
),

scenario_participants as (
    -- the what-if scenarios' (the forecast has its own marts: forecast_results)
    select * from {{ ref('incentives', 'int_incentives__scenario_participants') }}
    where not is_forecast
),

scenario_transactions as (
    select scenario_id, entity_id, transaction_id from {{ ref('incentives', 'stg_incentives__scenarios') }}
),

final as (
    select
        scenario_participants.scenario_id,
        scenario_participants.entity_id,
        earnings.program_key,
        earnings.offer_key,
        earnings.offer_calculator,
        earnings.strategy_key,
        earnings.sku_key,
        earnings.incentive_rate_key,
        earnings.incentive_rate_measure,
        earnings.incentive_rate_value,
        earnings.offer_sku_pay_rate,
        earnings.transaction_id,
        earnings.provided_quantity,
        earnings.provided_uom_key,
        earnings.provided_amount,
        earnings.incentivized_quantity,
        earnings.incentivized_amount,
        earnings.incentive_amount,
        earnings.incentive_contribution_percent,
        earnings.incentive_effective_rate,
        scenario_transactions.transaction_id is not null as hypothetical,
        {{ incentives.run_id() }} as run_id
    from earnings
    inner join scenario_participants on scenario_participants.evaluation_entity_id = earnings.entity_id
    left join scenario_transactions
        on scenario_transactions.scenario_id = scenario_participants.scenario_id
        and scenario_transactions.entity_id = scenario_participants.entity_id
        and scenario_transactions.transaction_id = earnings.transaction_id
)

select * from final
{%- else %}
-- scenarios off: no rows, the contract's columns
-- (built after the body's first input, as with it: {{ ref('incentives', 'int_incentives__earnings') }})
{{ incentives._no_rows_of_contract() }}
{%- endif %}
