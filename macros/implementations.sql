{#- _implementations(prefix, table, column): [(name, expressions)] for every macro of this package
    named `<prefix><name>` (one file per name: macros/qualifications/<type>.sql with prefix
    'qualification_', macros/calculators/<calculator>.sql with prefix 'calculator_'), sorted by
    name, with the dictionary of SQL expressions it returns. These files are the dbt side's one
    list of the qualification types and calculators: adding one is adding its file. The CLI's
    list (compiler/rule_tables.py) reaches dbt as the accepted_values test it writes on
    `table`.`column` of the compiled seeds (the seed incentives__<table> of the root project, in its
    _incentive_rules.yml); when dbt's graph is
    there (not in unit tests), the two lists must be the same set, else the build stops here,
    naming the difference. tests/test_dbt_unit.py checks the same without a build. -#}
{% macro _implementations(prefix, table, column) -%}
    {%- set names = [] -%}
    {%- for key in context['incentives'] if key.startswith(prefix) -%}
        {%- do names.append(key[prefix | length:]) -%}
    {%- endfor -%}
    {%- set names = names | sort -%}
    {%- if execute and graph.nodes is defined -%}
        {%- set seed_id = 'seed.' ~ project_name ~ '.incentives__' ~ table -%}
        {%- for node in graph.nodes.values()
                if node.resource_type == 'test' and node.attached_node == seed_id
                and node.column_name == column
                and (node.test_metadata or {}).get('name') == 'accepted_values' -%}
            {%- set accepted = node.test_metadata.kwargs['values'] | sort -%}
            {%- if accepted != names -%}
                {{- exceptions.raise_compiler_error(
                    "incentives: the " ~ column ~ " values of the compiled rule tables (accepted_values of seed "
                    ~ table ~ "." ~ column ~ ": " ~ accepted | join(', ') ~ ") are not the macros "
                    ~ prefix ~ "<name> of this package (" ~ names | join(', ') ~ "); missing macros: "
                    ~ (accepted | reject('in', names) | join(', ') or 'none') ~ "; macros with no such value: "
                    ~ (names | reject('in', accepted) | join(', ') or 'none')) -}}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    {%- set found = [] -%}
    {%- for name in names -%}
        {%- do found.append((name, context['incentives'][prefix ~ name]())) -%}
    {%- endfor -%}
    {{- return(found) -}}
{%- endmacro %}
