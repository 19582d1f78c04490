{#- Reading window_aggregate's `aggregates` argument.

    Each aggregate becomes a dict:
      name      output column
      sql       the expression as given
      kind      count_star | count | sum | min | max | avg  (mergeable from slices)
                count_distinct (count(distinct expr) of one expression: swept from the panes
                each value occurs in)
                moments (var_samp, var_pop, stddev_samp, stddev_pop and their aliases, with
                'statistic' the one it is: merged from per-pane counts, means and sums of
                squared deviations)
                hll, kll (a sketch read out of one sketch of the window's values: a sketch per
                pane, merged; see _sw_sketches.sql, which adds 'type' and 'rank' for kll)
                or row_copy (a Spark aggregate that cannot be merged from slices)
      arg       the argument of a mergeable aggregate, as written (a leading `all` dropped;
                for count_distinct, the expression after `distinct`; for a sketch, the
                arguments of the function that builds it)
    With a list as `errors`, the first problem is appended there and the result is none.
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


{#- The variances and standard deviations merged from slices, each with the statistic it is
    (Spark's aliases: variance is var_samp, std and stddev are stddev_samp). -#}
{% macro _sw_moment_aggregates() -%}
    {{ return({
        'var_samp': 'var_samp', 'variance': 'var_samp', 'var_pop': 'var_pop',
        'stddev_samp': 'stddev_samp', 'stddev': 'stddev_samp', 'std': 'stddev_samp', 'stddev_pop': 'stddev_pop',
    }) }}
{%- endmacro %}


{% macro _sw_parse_aggregates(aggregates, macro_name, keys=[], errors=none) %}
    {%- set accepted -%}
        a dict of output column name to one aggregate call, such as {'vehicles': 'sum(car_count)', 'readings': 'count(*)'}.
        Merged from slices: count(*), count(expr), sum(expr), min(expr), max(expr), avg(expr), {{ spark_windows._sw_moment_aggregates() | join('(expr), ') }}(expr), count(distinct expr), hll_sketch_estimate(hll_sketch_agg(expr[, lgConfigK])), kll_sketch_get_quantile_bigint(kll_sketch_agg_bigint(expr[, k]), rank) (likewise _double, _float).
        Computed from copied rows (slower for hop and cumulate): count(distinct expr, expr), sum(distinct expr), avg(distinct expr) and {{ spark_windows._sw_row_copy_aggregates() | reject('in', spark_windows._sw_moment_aggregates()) | join(', ') }}
    {%- endset -%}
    {%- if aggregates is not mapping or aggregates | length == 0 -%}
        {{ return(spark_windows._sw_refuse(macro_name ~ ": aggregates (" ~ aggregates ~ ") must be " ~ accepted, errors)) }}
    {%- endif -%}
    {%- set window_columns = ['window_start', 'window_end', 'window_time'] -%}
    {#- the output column of a group_by item such as `t.k` or `k` is k -#}
    {%- set key_columns = [] -%}
    {%- for key in keys -%}
        {%- do key_columns.append(key.strip().split('.')[-1].strip('`').lower()) -%}
    {%- endfor -%}
    {%- set parsed = [] -%}
    {%- for name, sql in aggregates.items() -%}
        {%- set shown = "'" ~ name ~ "'" if name is string else name -%}
        {%- if name is not string or not modules.re.fullmatch('[A-Za-z_][A-Za-z0-9_]*', name) -%}
            {{ return(spark_windows._sw_refuse(
                macro_name ~ ": aggregates has the output name " ~ shown ~ ", which is not a plain column name; "
                ~ "name each output column with letters, digits and underscores, not starting with a digit, such as 'readings'", errors)) }}
        {%- elif name.lower().startswith('__sw') -%}
            {{ return(spark_windows._sw_refuse(
                macro_name ~ ": aggregates has the output name " ~ shown ~ ", which starts with __sw, the prefix of "
                ~ macro_name ~ "'s helper columns; choose another name, such as 'readings'", errors)) }}
        {%- elif name.lower() in window_columns -%}
            {{ return(spark_windows._sw_refuse(
                macro_name ~ ": aggregates has the output name " ~ shown ~ ", which is a window column the output holds already "
                ~ "(window_start, window_end, window_time); choose another name, such as 'readings'", errors)) }}
        {%- elif name.lower() in key_columns -%}
            {{ return(spark_windows._sw_refuse(
                macro_name ~ ": aggregates has the output name " ~ shown ~ ", which is a group_by column (group_by: " ~ keys
                ~ ") the output holds already; choose another name, such as 'readings'", errors)) }}
        {%- endif -%}
        {%- set call = spark_windows._sw_split_call(sql) -%}
        {%- set tail = (call[2].split() | join(' ')) if call is not none else '' -%}
        {%- if call is not none and modules.re.match('(?i)filter ?[(]', tail) -%}
            {{ return(spark_windows._sw_refuse(
                macro_name ~ ": aggregate '" ~ name ~ "' ('" ~ sql ~ "') has a FILTER clause, which " ~ macro_name ~ " does not take; "
                ~ "put the condition inside the aggregate instead"
                ~ spark_windows._sw_filter_rewrite(call) ~ ": count_if(condition) for count(*), "
                ~ "sum(case when condition then expr end) for sum(expr) (likewise count, min, max, avg)", errors)) }}
        {%- elif call is not none and modules.re.match('(?i)over([ (]|$)', tail) -%}
            {{ return(spark_windows._sw_refuse(
                macro_name ~ ": aggregate '" ~ name ~ "' ('" ~ sql ~ "') is a window function (OVER); " ~ macro_name
                ~ " computes one value per group and window: write the aggregate alone, such as " ~ call[0] ~ "(" ~ call[1]
                ~ "), and put the columns it is partitioned by in group_by", errors)) }}
        {%- elif call is none or tail != '' -%}
            {{ return(spark_windows._sw_refuse(
                macro_name ~ ": aggregate '" ~ name ~ "' ('" ~ sql ~ "') is not a single aggregate call; "
                ~ "write one aggregate per output column (compute ratios on the result). Accepted: " ~ accepted, errors)) }}
        {%- endif -%}
        {%- set function, arg = call[0], call[1] -%}
        {#- `distinct v`, `DISTINCT(v)`: but not a column such as distinct_users -#}
        {%- set distinct = modules.re.match('(?i)distinct[^a-z0-9_]', arg) is not none -%}
        {#- `all` is Spark's default set quantifier: sum(all v) is sum(v) -#}
        {%- if modules.re.match('(?i)all[^a-z0-9_]', arg) -%}
            {%- set arg = arg[3:].strip() -%}
        {%- endif -%}
        {%- if function == 'count' and arg == '*' -%}
            {%- set kind = 'count_star' -%}
        {%- elif function == 'count' and distinct and ',' not in arg -%}
            {#- one expression (a comma may separate several, which count tuples): swept from
                the panes each value occurs in -#}
            {%- set kind = 'count_distinct' -%}
            {%- set arg = arg[8:].strip() -%}
        {%- elif spark_windows._sw_sketch_aggregate(function, arg) is not none -%}
            {#- read out of one sketch of the window's values: per-pane sketches, merged -#}
            {%- set sketch = spark_windows._sw_sketch_aggregate(function, arg) -%}
            {%- set kind, arg = sketch.kind, sketch.arg -%}
        {%- elif function in spark_windows._sw_moment_aggregates() and not distinct -%}
            {#- merged from each pane's count, mean and sum of squared deviations -#}
            {%- set kind = 'moments' -%}
        {%- elif function in ['count', 'sum', 'min', 'max', 'avg'] and not distinct -%}
            {%- set kind = function -%}
        {%- elif function in ['count', 'sum', 'avg', 'min', 'max'] or function in spark_windows._sw_row_copy_aggregates() -%}
            {%- set kind = 'row_copy' -%}
        {%- else -%}
            {{ return(spark_windows._sw_refuse(
                macro_name ~ ": aggregate '" ~ name ~ "' ('" ~ sql ~ "') uses " ~ function ~ "(), which " ~ macro_name ~ " cannot compute; accepted: " ~ accepted, errors)) }}
        {%- endif -%}
        {%- set parsed_agg = {'name': name, 'sql': sql, 'kind': kind, 'arg': arg} -%}
        {%- if kind in ['hll', 'kll'] -%}
            {%- do parsed_agg.update(sketch) -%}
            {%- if kind == 'kll' and spark_windows._sw_require_spark_release([4, 1],
                macro_name ~ ": aggregate '" ~ name ~ "' ('" ~ sql ~ "') uses KLL sketches",
                "approx_percentile(expr, " ~ sketch.rank ~ ") (computed from copied rows, slower for hop and cumulate)", errors) is none -%}
                {{ return(none) }}
            {%- endif -%}
        {%- elif kind == 'moments' -%}
            {%- do parsed_agg.update({'statistic': spark_windows._sw_moment_aggregates()[function]}) -%}
        {%- endif -%}
        {%- do parsed.append(parsed_agg) -%}
    {%- endfor -%}
    {{ return(parsed) }}
{% endmacro %}


{#- For a FILTER error: this aggregate with its condition moved inside, as " (here: ...)";
    empty when there is no simple rewrite (count(distinct ...), percentile(v, 0.5), ...). -#}
{% macro _sw_filter_rewrite(call) -%}
    {%- set function, arg, tail = call -%}
    {#- tail is `filter (where condition)`; the condition keeps its own text -#}
    {%- set inside = tail[6:].strip()[1:-1].strip() -%}
    {%- if not modules.re.match('(?i)where[^a-z0-9_]', inside) or not tail.endswith(')') -%}
        {{ return('') }}
    {%- endif -%}
    {%- set condition = inside[5:].strip() -%}
    {%- if function == 'count' and arg == '*' -%}
        {{ return(' (here: count_if(' ~ condition ~ '))') }}
    {%- elif function in ['count', 'sum', 'min', 'max', 'avg'] and not modules.re.match('(?i)(distinct|all)[^a-z0-9_]', arg) -%}
        {{ return(' (here: ' ~ function ~ '(case when ' ~ condition ~ ' then ' ~ arg ~ ' end))') }}
    {%- endif -%}
    {{ return('') }}
{%- endmacro %}


{#- Splits 'fn(arg) tail' into ['fn', 'arg', 'tail'] when the text starts with a call whose
    parentheses match; tail is what follows the call ('' for a single call, 'filter (where
    ...)', '/ count(*)', ...). Returns none otherwise. Parentheses and quotes inside string
    literals and quoted names do not count. The argument and tail keep their own text (only
    the outer whitespace is removed): whitespace inside a literal is data. -#}
{% macro _sw_split_call(sql) %}
    {%- if sql is not string -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set text = sql.strip() -%}
    {%- set scan = spark_windows._sw_scan_sql(text, comments=false) -%}
    {%- set first = scan.groups[0] if scan.groups else none -%}
    {#- a parenthesis closed before any opened: the text does not start with a call -#}
    {%- set stray = scan.stops | selectattr('what', 'equalto', ')') | map(attribute='at') | list -%}
    {%- if first is none or first.open < 1 or first.close is none or (stray and stray[0] < first.open) -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set function = text[:first.open].strip().lower() -%}
    {%- set arg = text[first.open + 1:first.close].strip() -%}
    {%- if arg == '' or not function.replace('_', '').isalnum() -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return([function, arg, text[first.close + 1:].strip()]) }}
{% endmacro %}
