-- potential_earnings with each row's transaction_date: the rows the semantic model
-- potential_earnings aggregates by transaction month (models/semantic/_semantic.yml). A view, read
-- only by the semantic layer, which sits on the marts: the mart keeps its columns and its build
-- its cost.
with earnings as (
    select * from {{ ref('incentives', 'potential_earnings') }}
),

transactions as (
    select entity_id, transaction_id, transaction_date from {{ ref('incentives', 'int_incentives__transactions') }}
),

final as (
    select
        earnings.*,
        transactions.transaction_date
    from earnings
    inner join transactions
        on transactions.entity_id = earnings.entity_id
        and transactions.transaction_id = earnings.transaction_id
)

select * from final
