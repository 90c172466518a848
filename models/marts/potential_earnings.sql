-- One row per participant x qualified offer x incentive rate key x transaction. Each
-- calculator's formula comes from its macro in macros/calculators/; incentive_amount is rounded
-- to cents row by row.
with earning_rows as (
    select * from {{ ref('int_earnings_standard') }}
    union all
    select * from {{ ref('int_earnings_stepped') }}
    union all
    select * from {{ ref('int_earnings_stacked') }}
),

calculated as (
    select
        earning_rows.*,
        {{ incentives.cast_measure(incentives.calculate('pay_rate')) }} as offer_sku_pay_rate,
        {{ incentives.cast_money(incentives.calculate('incentive')) }} as incentive_amount,
        {{ incentives.cast_measure(incentives.calculate('contribution')) }} as incentive_contribution_percent
    from earning_rows
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
        rate as incentive_rate_value,
        offer_sku_pay_rate,
        transaction_id,
        provided_quantity,
        provided_uom_key,
        provided_amount,
        quantity as incentivized_quantity,
        value as incentivized_amount,
        incentive_amount,
        incentive_contribution_percent,
        {{ incentives.divide('incentive_amount', 'value', 10) }} as incentive_effective_rate,
        {{ incentives.run_id() }} as run_id
    from calculated
)

{%- set passthrough = incentives.transaction_passthrough_columns() %}
{%- if passthrough %},

-- the transaction columns a project passes through (var incentives_transaction_passthrough_columns)
passthrough as (
    select transaction_id {%- for column in passthrough %}, {{ column.alias }}{% endfor %}
    from {{ ref('stg_transactions') }}
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
