{#- For tumbling windows: passes when each source row with a non-NULL `time_col` is counted in
    exactly one window. Per group (the `group_by` columns; everything when none), the sum of
    `count_column` over all the model's windows must equal the number of source rows with a
    time. Failing rows are the groups whose counts differ (a group missing on one side counts
    0 there); NULL group values are matched as equal. With `late` (the rows a
    windowed_incremental model kept aside: true for `<model>__late`, or a relation), each late row counts once too, so
    nothing may be lost: rows with a time = rows in windows + late rows. -#}
{% test windows_cover_source(model, source, time_col, group_by=none, count_column='cnt', late=none) %}
    {{ return(adapter.dispatch('test_windows_cover_source', 'spark_windows')(model, source, time_col, group_by, count_column, late)) }}
{% endtest %}


{% macro default__test_windows_cover_source(model, source, time_col, group_by, count_column, late) %}
{%- if source is none or (source is string and source.strip() == '') -%}
    {{ exceptions.raise_compiler_error(
        "windows_cover_source: source is empty; pass the rows the windows were computed from, such as ref('sensor_readings')") }}
{%- endif -%}
{%- do spark_windows._sw_require_column(time_col, 'windows_cover_source', 'time_col') -%}
{%- set keys = spark_windows._sw_column_list(group_by, 'windows_cover_source', 'group_by') -%}
{%- do spark_windows._sw_require_column(count_column, 'windows_cover_source', 'count_column') -%}
{%- if late is sameas true -%}
    {%- if model.identifier is not defined -%}
        {{ exceptions.raise_compiler_error(
            "windows_cover_source: late=true names the model's `<model>__late` table, which needs the test on a model, not on " ~ model) }}
    {%- endif -%}
    {%- set late = model.incorporate(path={'identifier': model.identifier ~ '__late'}) -%}
{%- elif late is sameas false -%}
    {%- set late = none -%}
{%- endif -%}

with

window_counts as (
    select
        {%- for key in keys %}
        {{ key }},
        {%- endfor %}
        sum({{ count_column }}) as __sw_window_rows
    from (
        select
            {%- for key in keys %}
            {{ key }},
            {%- endfor %}
            {{ count_column }}
        from {{ model }}
        {%- if late is not none %}
        union all
        select
            {%- for key in keys %}
            {{ key }},
            {%- endfor %}
            1 as {{ count_column }}
        from {{ late }}
        {%- endif %}
    ) as __sw_counted
    {%- if keys %}
    group by {{ keys | join(', ') }}
    {%- endif %}
),

source_counts as (
    select
        {%- for key in keys %}
        {{ key }},
        {%- endfor %}
        count(*) as __sw_source_rows
    from {{ source }}
    where {{ time_col }} is not null
    {%- if keys %}
    group by {{ keys | join(', ') }}
    {%- endif %}
),

compared as (
    select
        {%- for key in keys %}
        coalesce(window_counts.{{ key }}, source_counts.{{ key }}) as {{ key }},
        {%- endfor %}
        coalesce(window_counts.__sw_window_rows, 0) as __sw_window_rows,
        coalesce(source_counts.__sw_source_rows, 0) as __sw_source_rows
    from window_counts
    full outer join source_counts
        on {% for key in keys -%}
        window_counts.{{ key }} <=> source_counts.{{ key }}{% if not loop.last %} and {% endif %}
        {%- else -%}
        1 = 1
        {%- endfor %}
),

miscounted as (
    select * from compared
    where __sw_window_rows <> __sw_source_rows
)

select * from miscounted

{% endmacro %}
