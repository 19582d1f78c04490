-- The model `scripts/bench.py --dbt` builds once per case and times: a table of windowed
-- aggregates, as an analyst's model computes them. Enabled only by the benchmark (var
-- spark_windows_bench), which creates its input and passes the case in var
-- spark_windows_bench_case: a window_aggregate call (time_col, window, group_by, aggregates,
-- optionally agg_phase_strategy and plan) or, for the plans it is compared with, the query text (`sql`,
-- reading `{source}`).
{{ config(
    materialized='table',
    enabled=var('spark_windows_bench', false)
) }}

{%- set case = var('spark_windows_bench_case', {}) -%}
{%- set source = var('spark_windows_bench_source', 'bench_events') -%}
{#- a relation, as ref() gives one: window_aggregate knows its column types -#}
{%- set relation = source -%}
{%- if execute and '.' in source -%}
    {%- set relation = adapter.get_relation(database=none, schema=source.split('.')[0], identifier=source.split('.')[1]) or source -%}
{%- endif -%}

{% if case is mapping and 'window' in case %}
    select *
    from {{ spark_windows.window_aggregate(
        relation, case['time_col'], case['window'], case['group_by'], case['aggregates'],
        agg_phase_strategy=case.get('agg_phase_strategy'), plan=case.get('plan')
    ) }} as windows
{% elif case is mapping and 'sql' in case %}
    {{ case['sql'] | replace('{source}', source) }}
{% else %}
    select 1 as no_case
{% endif %}
