-- One row per participant x qualified offer x incentive rate key x transaction that reached a
-- rate: the rows of int_incentives__earnings (a view: computed and priced there, written here
-- once) with the run id. offer_results sums them per pair.
-- The pass-through columns come from stg_incentives__transactions, a parent whatever the var (so
-- that the unit tests give it whether or not a project sets one):
-- depends_on: {{ ref('incentives', 'stg_incentives__transactions') }}
-- Its contract (models/marts/_marts.yml) lists the contract's columns only: with pass-through
-- columns (var incentives_transaction_passthrough_columns) it is not enforced.
{{ config(contract={'enforced': not incentives.transaction_passthrough_columns()}) }}
with earnings as (
    select * from {{ ref('incentives', 'int_incentives__earnings') }}
),

final as (
    select
        entity_id,
        program_key,
        offer_key,
        offer_calculator,
        strategy_key,
        sku_key,
        incentive_rate_key,
        incentive_rate_measure,
        incentive_rate_value,
        offer_sku_pay_rate,
        transaction_id,
        provided_quantity,
        provided_uom_key,
        provided_amount,
        incentivized_quantity,
        incentivized_amount,
        incentive_amount,
        incentive_contribution_percent,
        incentive_effective_rate,
        {{ incentives.run_id() }} as run_id
    from earnings
    -- an actual participant's rows (a scenario participant's are scenario_earnings')
    where {{ incentives._actual_participant('entity_id', ref('incentives', 'int_incentives__scenario_participants')) }}
)

{%- set passthrough = incentives.transaction_passthrough_columns() %}
{%- if passthrough %},

-- the transaction columns a project passes through (var incentives_transaction_passthrough_columns)
passthrough as (
    select transaction_id {%- for column in passthrough %}, {{ column.alias }}{% endfor %}
    from {{ ref('incentives', 'stg_incentives__transactions') }}
),

with_passthrough as (
    select
        final.*
        {%- for column in passthrough %},
        passthrough.{{ column.alias }}
        {%- endfor %}
    from final
    inner join passthrough on passthrough.transaction_id = final.transaction_id
)

select * from with_passthrough
{%- else %}

select * from final
{%- endif %}
