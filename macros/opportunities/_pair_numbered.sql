{#- _pair_numbered(rows, participant_numbers, numbers, key, columns): the `columns` of `rows` (a
    relation or CTE with entity_id and `<key>_key`) with the one integer of its pair,
    `<key>_pair`: (participant_number - 1) x `<key>_count` + `<key>_number`, from
    int_incentives__participant_numbers and int_incentives__offer_numbers (`numbers`; key 'offer'
    or 'program'): distinct for every participant x offer (or program) and at most their product.
    A row whose participant or key has no number is left out: it matches no evaluated pair. The
    per-pair joins of int_incentives__offer_opportunities and offer_results then compare one
    integer instead of two long text keys (docs/performance.md: faster, and their hash tables a
    fraction of the size, also than two integer columns). -#}
{% macro _pair_numbered(rows, participant_numbers, numbers, key, columns) -%}
select
    {%- for column in columns %}
    numbered_rows.{{ column }},
    {%- endfor %}
    {{ incentives._pair_number('pair_participants.participant_number', 'pair_keys', key) }} as {{ key }}_pair
from (select * from {{ rows }}) as numbered_rows  -- a subquery: a ref rendered with its own alias (--empty) takes no second one
inner join (select entity_id, participant_number from {{ participant_numbers }}) as pair_participants
    on pair_participants.entity_id = numbered_rows.entity_id
inner join (select distinct {{ key }}_key, {{ key }}_number, {{ key }}_count from {{ numbers }}) as pair_keys
    on pair_keys.{{ key }}_key = numbered_rows.{{ key }}_key
{%- endmacro %}

{#- _pair_number(participant_number, numbers, key): the pair's integer from a participant's number
    and a row of int_incentives__offer_numbers (`numbers`, its alias). -#}
{% macro _pair_number(participant_number, numbers, key) -%}
({{ participant_number }} - 1) * {{ numbers }}.{{ key }}_count + {{ numbers }}.{{ key }}_number
{%- endmacro %}
