{#-
    spark_windows._sw_duration_us(value, macro_name, arg_name, allow_negative=false, allow_zero=false, or_accepted=none, errors=none)

    The one place durations are read. Accepts '<number> <unit>' with an optional leading
    `interval` and optional quotes around the number (Flink's `INTERVAL '5' MINUTE`), unit one of
    millisecond, second, minute, hour, day (singular or plural, any case). The number is an
    integer, or a decimal that comes to whole microseconds (Flink's INTERVAL '0.005' SECOND).
    Returns the duration in microseconds as a Python integer. `or_accepted` names what else the argument may be
    (session's gap: an expression), for the error messages. With a list as `errors`, a
    malformed value appends its message there and returns none.

    No duration may be longer than the whole range of Spark timestamps, 0001-01-01 00:00 to
    10000-01-01 00:00 UTC: 3652059 days, 315537897600000000 microseconds. A longer window,
    offset or gap can never be useful, and up to that limit every bound the macros compute
    (a time within that range plus or minus at most two such durations) stays far inside
    64-bit microseconds (+-9.2e18).
-#}
{% macro _sw_duration_us(value, macro_name, arg_name, allow_negative=false, allow_zero=false, or_accepted=none, errors=none) %}
    {%- set units = {
        'millisecond': 1000,
        'second': 1000000,
        'minute': 60000000,
        'hour': 3600000000,
        'day': 86400000000,
    } -%}
    {%- set accepted -%}
        a string '<integer> <unit>' such as '5 minutes' or 'interval 1 hour'
        {%- if allow_negative %} (a leading '-' is allowed){% endif -%}
        , unit one of millisecond, second, minute, hour, day (singular or plural)
        {%- if or_accepted %}; or {{ or_accepted }}{% endif -%}
    {%- endset -%}
    {%- if value is not string -%}
        {{ return(spark_windows._sw_refuse(
            macro_name ~ ": " ~ arg_name ~ " (" ~ value ~ ") is not a duration; expected " ~ accepted, errors)) }}
    {%- endif -%}
    {%- set words = value.lower().split() -%}
    {%- if words | length > 0 and words[0] == 'interval' -%}
        {%- set words = words[1:] -%}
    {%- endif -%}
    {%- set number = (words[0] if words | length == 2 else '').strip("'") -%}
    {%- set unit = words[1] if words | length == 2 else '' -%}
    {%- set negative = number.startswith('-') -%}
    {%- set digits = number[1:] if negative else number -%}
    {%- if unit.endswith('s') and unit[:-1] in units -%}
        {%- set unit = unit[:-1] -%}
    {%- endif -%}
    {%- if not modules.re.fullmatch('[0-9]+([.][0-9]+)?', digits) or unit not in units -%}
        {{ return(spark_windows._sw_refuse(
            macro_name ~ ": " ~ arg_name ~ " ('" ~ value ~ "') is not a duration; expected " ~ accepted, errors)) }}
    {%- endif -%}
    {#- a decimal (Flink's INTERVAL '0.005' SECOND) in integer arithmetic: it must come to a
        whole number of microseconds, the precision of Spark timestamps -#}
    {%- set whole, _, fraction = digits.partition('.') -%}
    {%- set scale = 10 ** (fraction | length) -%}
    {%- set scaled = ((whole ~ fraction) | int) * units[unit] -%}
    {%- if scaled % scale != 0 -%}
        {{ return(spark_windows._sw_refuse(
            macro_name ~ ": " ~ arg_name ~ " ('" ~ value ~ "') is not a whole number of microseconds, the precision of Spark timestamps; expected "
            ~ accepted ~ ", or a decimal such as '0.005 seconds' that comes to whole microseconds", errors)) }}
    {%- endif -%}
    {%- set micros = scaled // scale -%}
    {%- set limit_us = spark_windows._sw_max_duration_us() -%}
    {%- if micros > limit_us -%}
        {{ return(spark_windows._sw_refuse(
            macro_name ~ ": " ~ arg_name ~ " ('" ~ value ~ "') is longer than the whole range of Spark timestamps "
            ~ "(0001-01-01 to 9999-12-31); expected at most " ~ limit_us // units['day'] ~ " days ("
            ~ limit_us ~ " microseconds), such as '366 days'", errors)) }}
    {%- endif -%}
    {%- if negative and not allow_negative and micros != 0 -%}
        {{ return(spark_windows._sw_refuse(
            macro_name ~ ": " ~ arg_name ~ " ('" ~ value ~ "') must not be negative; expected " ~ accepted, errors)) }}
    {%- endif -%}
    {%- if micros == 0 and not allow_zero -%}
        {{ return(spark_windows._sw_refuse(
            macro_name ~ ": " ~ arg_name ~ " ('" ~ value ~ "') must be greater than zero; expected " ~ accepted, errors)) }}
    {%- endif -%}
    {{ return(-micros if negative else micros) }}
{% endmacro %}


{#- The longest duration _sw_duration_us accepts: 3652059 days, from 0001-01-01 to 10000-01-01. -#}
{% macro _sw_max_duration_us() %}
    {{ return(3652059 * 86400000000) }}
{% endmacro %}


{#- The offset in microseconds (0 when none), reduced modulo the size as Flink does. -#}
{% macro _sw_offset_us(offset, size_us, macro_name, errors=none) %}
    {%- if offset is none -%}
        {{ return(0) }}
    {%- endif -%}
    {%- set offset_us = spark_windows._sw_duration_us(offset, macro_name, 'offset', allow_negative=true, allow_zero=true, errors=errors) -%}
    {{ return(none if offset_us is none else offset_us % size_us) }}
{% endmacro %}


{#- Checks a hop's slide against its size. Any two positive durations make windows (a size that
    is not a whole multiple of the slide too, as Flink's HOP table function and Spark's window()
    accept), but a slide longer than the size leaves the rows between two windows in none: that
    takes allow_gaps=true, since hop(..., '1 hour', '10 minutes') is most often size and slide
    given the other way round. -#}
{% macro _sw_require_hop_slide(size, size_us, slide, slide_us, allow_gaps, macro_name, errors=none) %}
    {%- if allow_gaps not in [true, false] -%}
        {{ return(spark_windows._sw_refuse(
            macro_name ~ ": allow_gaps (" ~ allow_gaps ~ ") must be true or false; for example allow_gaps=true", errors)) }}
    {%- endif -%}
    {%- if slide_us > size_us and not allow_gaps -%}
        {{ return(spark_windows._sw_refuse(
            macro_name ~ ": slide ('" ~ slide ~ "') is longer than size ('" ~ size ~ "'), so the rows between two windows would belong to none. "
            ~ "The macro takes slide first, then size; for example slide '" ~ size ~ "' with size '" ~ slide ~ "' gives windows of '" ~ slide ~ "' every '" ~ size ~ "'. "
            ~ "To keep the gaps on purpose, pass allow_gaps=true", errors)) }}
    {%- endif -%}
    {{ return(true) }}
{% endmacro %}


{#- Checks that `size_us` is a whole multiple of `unit_us`, e.g. a hop size of its slide. When
    the two given the other way round would be valid (hop(..., '1 hour', '10 minutes')), the
    message says that the macro takes `unit_name` first. -#}
{% macro _sw_require_multiple(size, size_us, unit_name, unit, unit_us, macro_name, errors=none) %}
    {%- if size_us % unit_us != 0 -%}
        {%- set swapped = '' -%}
        {%- if unit_us % size_us == 0 -%}
            {%- set swapped = "; the two look swapped: " ~ unit_name ~ " '" ~ size ~ "' with size '" ~ unit ~ "' is valid"
                ~ (" (" ~ macro_name ~ " takes " ~ unit_name ~ " first, then size)" if ' ' not in macro_name else '') -%}
        {%- endif -%}
        {{ return(spark_windows._sw_refuse(
            macro_name ~ ": size ('" ~ size ~ "') must be a whole multiple of " ~ unit_name
            ~ " ('" ~ unit ~ "'), as in Flink" ~ swapped ~ "; for example size '1 hour' with " ~ unit_name ~ " '5 minutes'", errors)) }}
    {%- endif -%}
{% endmacro %}
