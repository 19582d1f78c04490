{#- Reading window_aggregate's `aggregates` argument.

    Each aggregate becomes a dict:
      name      output column
      sql       the expression as given
      kind      count_star | count | sum | min | max | avg  (mergeable from slices)
                or row_copy (a Spark aggregate that cannot be merged from slices)
      arg       the argument of a mergeable aggregate
-#}

{% macro _sw_row_copy_aggregates() -%}
    {{ return([
        'approx_count_distinct', 'any_value', 'bit_and', 'bit_or', 'bit_xor', 'bool_and', 'bool_or',
        'collect_list', 'collect_set', 'corr', 'count_if', 'covar_pop', 'covar_samp', 'every',
        'first', 'first_value', 'kurtosis', 'last', 'last_value', 'max_by', 'median', 'min_by',
        'mode', 'percentile', 'percentile_approx', 'approx_percentile', 'product', 'skewness',
        'std', 'stddev', 'stddev_pop', 'stddev_samp', 'variance', 'var_pop', 'var_samp',
    ]) }}
{%- endmacro %}


{% macro _sw_parse_aggregates(aggregates, macro_name) %}
    {%- set accepted -%}
        a dict of output column name to one aggregate call, such as {'vehicles': 'sum(car_count)', 'readings': 'count(*)'}.
        Merged from slices: count(*), count(expr), sum(expr), min(expr), max(expr), avg(expr).
        Computed from copied rows (slower for hop and cumulate): count(distinct expr), sum(distinct expr), avg(distinct expr) and {{ spark_windows._sw_row_copy_aggregates() | join(', ') }}
    {%- endset -%}
    {%- if aggregates is not mapping or aggregates | length == 0 -%}
        {{ exceptions.raise_compiler_error(macro_name ~ ": aggregates (" ~ aggregates ~ ") must be " ~ accepted) }}
    {%- endif -%}
    {%- set parsed = [] -%}
    {%- for name, sql in aggregates.items() -%}
        {%- if name is not string or name.strip() == '' or name.startswith('__sw') or name.lower() in ['window_start', 'window_end', 'window_time'] -%}
            {{ exceptions.raise_compiler_error(
                macro_name ~ ": aggregate name ('" ~ name ~ "') must be a column name that is not window_start, window_end, window_time or __sw_*") }}
        {%- endif -%}
        {%- set call = spark_windows._sw_split_call(sql) -%}
        {%- if call is none -%}
            {{ exceptions.raise_compiler_error(
                macro_name ~ ": aggregate '" ~ name ~ "' ('" ~ sql ~ "') is not a single aggregate call; "
                ~ "write one aggregate per output column (compute ratios on the result). Accepted: " ~ accepted) }}
        {%- endif -%}
        {%- set function, arg = call -%}
        {%- set distinct = arg.lower().startswith('distinct ') -%}
        {%- if function == 'count' and arg == '*' -%}
            {%- set kind = 'count_star' -%}
        {%- elif function in ['count', 'sum', 'min', 'max', 'avg'] and not distinct -%}
            {%- set kind = function -%}
        {%- elif function in ['count', 'sum', 'avg', 'min', 'max'] or function in spark_windows._sw_row_copy_aggregates() -%}
            {%- set kind = 'row_copy' -%}
        {%- else -%}
            {{ exceptions.raise_compiler_error(
                macro_name ~ ": aggregate '" ~ name ~ "' ('" ~ sql ~ "') uses " ~ function ~ "(), which window_aggregate cannot compute; accepted: " ~ accepted) }}
        {%- endif -%}
        {%- do parsed.append({'name': name, 'sql': sql, 'kind': kind, 'arg': arg}) -%}
    {%- endfor -%}
    {{ return(parsed) }}
{% endmacro %}


{#- Splits 'fn(arg)' into ('fn', 'arg') when the whole text is one call whose parentheses
    match; returns none otherwise (e.g. for 'sum(a) / count(*)'). -#}
{% macro _sw_split_call(sql) %}
    {%- if sql is not string -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set text = sql.split() | join(' ') -%}
    {%- set open_at = text.find('(') -%}
    {%- if open_at < 1 or not text.endswith(')') -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set function = text[:open_at].strip().lower() -%}
    {%- set arg = text[open_at + 1:-1].strip() -%}
    {%- set state = namespace(depth=0, balanced=true) -%}
    {%- for char in arg -%}
        {%- if char == '(' -%}
            {%- set state.depth = state.depth + 1 -%}
        {%- elif char == ')' -%}
            {%- set state.depth = state.depth - 1 -%}
            {%- if state.depth < 0 -%}
                {%- set state.balanced = false -%}
            {%- endif -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if not state.balanced or state.depth != 0 or arg == '' or not function.replace('_', '').isalnum() -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return([function, arg]) }}
{% endmacro %}
