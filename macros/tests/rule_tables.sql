{#- Data tests of the compiled rule tables (seeds): dbt refuses rule tables the compiler would not
    have written, so a hand-edited or stale seed fails `dbt build` with a test naming it. -#}

{#- Every row comes from the same compile as the catalogue seed: returns the rows whose
    catalogue_hash is not the catalogue's (a table left from another compile). -#}
{% test compiled_with_the_catalogue(model, column_name) %}
select {{ column_name }} as catalogue_hash, count(*) as rows_from_another_compile
from {{ model }}
where {{ column_name }} is null
   or {{ column_name }} not in (select catalogue_hash from {{ incentives.rule_table('catalogue') }})
   or (select count(*) from {{ incentives.rule_table('catalogue') }}) <> 1
group by {{ column_name }}
{% endtest %}

{#- The last `incentives compile` succeeded: returns the catalogue row when it failed (the rule
    tables were emptied; run `incentives compile` again and read its errors). -#}
{% test last_compile_succeeded(model, column_name) %}
select {{ column_name }} as status, source
from {{ model }}
where {{ column_name }} <> 'compiled'
{% endtest %}

{#- Every key of a qualifier term names a qualification defined at the same level: a program
    qualifier's keys (offer_key empty) a program qualification, an offer qualifier's keys one of
    that offer. Returns the terms naming a missing qualification (a term that can never be met
    would silently make its offer unqualified). -#}
{% test qualifier_terms_name_qualifications(model) %}
select terms.program_key, terms.offer_key, terms.term_id, terms.qualification_key
from {{ model }} as terms
left join {{ incentives.rule_table('qualifications') }} as qualifications
    on qualifications.program_key = terms.program_key
    and coalesce(qualifications.offer_key, '') = coalesce(terms.offer_key, '')
    and qualifications.qualification_key = terms.qualification_key
where qualifications.qualification_id is null
{% endtest %}

{#- stacked_weights_match_rates: every SKU's conversion_rate x coverage_weight is its set's
    set_conversion_rate, and every set's set_conversion_rate x offer_coverage_multiplier is its
    offer's one common denominator (docs/semantics.md, "Stacked coverage"), all of them positive:
    a row that breaks either would compute coverage
    from numbers the programs do not hold. -#}
{% test stacked_weights_match_rates(model) %}
with rows as (
    -- typed here: a seed's columns may be loaded as text (Spark)
    select
        offer_key,
        set_key,
        sku_key,
        cast(conversion_rate as decimal(38,10)) as conversion_rate,
        cast(coverage_weight as decimal(38,0)) as coverage_weight,
        cast(set_conversion_rate as decimal(38,10)) as set_conversion_rate,
        cast(offer_coverage_multiplier as decimal(38,0)) as offer_coverage_multiplier
    from {{ model }}
)

select offer_key, set_key, sku_key
from rows
where conversion_rate * coverage_weight <> set_conversion_rate
    or coverage_weight < 1
    or set_conversion_rate <= 0
    or offer_coverage_multiplier < 1
union all
select offer_key, cast(null as {{ dbt.type_string() }}) as set_key, cast(null as {{ dbt.type_string() }}) as sku_key
from rows
group by offer_key
having count(distinct set_conversion_rate * offer_coverage_multiplier) > 1
{% endtest %}
