{#- _earning_sums(earning_rows, thresholds): per participant x offer of `earning_rows` (priced
    earning rows in potential_earnings' columns: entity_id, offer_key, strategy_key,
    offer_calculator, incentivized_quantity, incentivized_amount, incentive_amount), one pass:
      incentive_amount       the sum of the rows' incentive_amount;
      next_tier_rows         how many of a stepped offer's rows have a next tier in `thresholds`
                             (int_incentives__stepped_thresholds: entity_id, offer_key,
                             next_tier_key, next_tier_rate);
      next_tier_row_amount   those rows priced at the next tier's rate by their calculator
                             (calculate: `rate`, `quantity`, `value`), each rounded to cents as
                             _calculated_earning_rows rounds a row (percent_of_amount,
                             dollars_per_unit; a fixed_amount tier's dollar total is not a row's
                             price: its readers take next_tier_rate when next_tier_rows > 0).
    Partial sums: int_incentives__offer_opportunities gives them for the rows it computes (the
    pairs potential_earnings does not hold), offer_results for potential_earnings' rows, and adds
    the two. One query (its CTE names start with `earning_sums_`). -#}
{% macro _earning_sums(earning_rows, thresholds) -%}
with earning_sums_next_tier as (
    select entity_id, offer_key, next_tier_rate
    from {{ thresholds }}
    where next_tier_key is not null
),

earning_sums_rows as (
    -- each earning row, and a stepped offer's row as its calculator would price it at the next
    -- tier's rate (`rate`, `quantity`, `value`: the columns the calculators read)
    select
        earning_rows.entity_id,
        earning_rows.offer_key,
        earning_rows.offer_calculator,
        earning_rows.incentive_amount,
        next_tier.entity_id is not null as at_next_tier,
        next_tier.next_tier_rate as rate,
        earning_rows.incentivized_quantity as quantity,
        earning_rows.incentivized_amount as value
    from (select * from {{ earning_rows }}) as earning_rows  -- a subquery: a ref rendered with its own alias (--empty) takes no second one
    left join earning_sums_next_tier as next_tier
        on next_tier.entity_id = earning_rows.entity_id
        and next_tier.offer_key = earning_rows.offer_key
        and earning_rows.strategy_key = 'stepped'
)

select
    entity_id,
    offer_key,
    sum(incentive_amount) as incentive_amount,
    count(case when at_next_tier then 1 end) as next_tier_rows,
    sum(case when at_next_tier then {{ incentives.calculate('incentive', ['percent_of_amount', 'dollars_per_unit']) }} end)
        as next_tier_row_amount
from earning_sums_rows
group by entity_id, offer_key
{%- endmacro %}
