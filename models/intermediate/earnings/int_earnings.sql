-- A view: potential_earnings (the qualified rows) and int_offer_opportunities (per-pair sums) each
-- read it once, so no earning row is written twice. Spark keeps a view's text in its metastore
-- (Derby: 32,700 characters), and the exact quotients here are longer there: a table on Spark.
{{ config(materialized='table' if target.type in ('spark', 'databricks') else 'view') }}

-- Every earning row of every evaluated participant x offer, qualified or not, in
-- potential_earnings' columns, plus whether the offer is qualified. Each calculator's formula
-- comes from its macro in macros/calculators/; incentive_amount is rounded to cents row by row.
-- potential_earnings keeps the qualified rows that reached a rate; int_offer_opportunities sums
-- all of them (what an offer would pay if it were qualified). A stepped offer below its lowest
-- tier keeps its earning transactions with a null rate (and null amounts).
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
        qualified
    from calculated
)

select * from final
