"""What the window property tests share: random events and their temp view, window specs, aggregates per window."""

from __future__ import annotations

import reference_windows as ref
from hypothesis import strategies as st
from property_settings import property_settings
from spark_views import literal

EXAMPLES = 200
UNITS = {"millisecond": 1_000, "second": 1_000_000, "minute": 60_000_000}
PROPERTY_SETTINGS = property_settings(EXAMPLES)


@st.composite
def events(draw, unit):
    """Up to 30 events spread over about 40 units around the epoch, with repeated times."""
    times = st.one_of(
        st.none(),
        st.integers(-20 * unit, 20 * unit),
        st.sampled_from([-unit, 0, unit, 3 * unit // 2]),  # ties and boundaries
    )
    rows = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["a", "b", None]),
                times,
                st.one_of(st.none(), st.integers(-1000, 1000), st.integers(0, 3)),  # repeated values
            ),
            max_size=30,
        )
    )
    return rows


@st.composite
def grid_case(draw):
    """Events plus (unit name, step count, size multiple, offset count) for tumble/hop/cumulate."""
    unit_name = draw(st.sampled_from(sorted(UNITS)))
    unit = UNITS[unit_name]
    return (
        draw(events(unit)),
        unit_name,
        draw(st.integers(1, 5)),
        draw(st.one_of(st.integers(1, 6), st.sampled_from([40, 60]))),  # 60 x 1 minute > 2**31 us
        draw(st.integers(-12, 12)),
    )


def duration(count: int, unit_name: str) -> str:
    return f"{count} {unit_name}s"


def load_events(spark, rows) -> str:
    """A temp view of the events; times are given in microseconds, so no zone is involved."""
    if not rows:
        spark.sql(
            "create or replace temp view __sw_property_events as "
            "select cast(null as string) as k, cast(null as timestamp) as ts, cast(null as int) as v "
            "where false"
        )
        return "__sw_property_events"

    values = ", ".join(f"({literal(k, 'string')}, {literal(t, 'timestamp')}, {literal(v, 'int')})" for k, t, v in rows)
    spark.sql(f"create or replace temp view __sw_property_events as select * from values {values} as events(k, ts, v)")
    return "__sw_property_events"


def aggregated(spark, windowed_sql: str, keyed: bool = True) -> list[tuple]:
    """The aggregates per window; also checks that every row's window_time is window_end - 1 us."""
    key = "k" if keyed else "cast(null as string)"
    query = f"""
        select {key}, unix_micros(window_start), unix_micros(window_end),
               count(*), count(v), sum(v), min(v), max(v),
               count_if(window_time is null or unix_micros(window_time) != unix_micros(window_end) - 1)
        from {windowed_sql}
        group by {key}, window_start, window_end
    """
    rows = [tuple(row) for row in spark.sql(query).collect()]
    assert [row for row in rows if row[-1] != 0] == [], "rows whose window_time is not window_end - 1 us"
    return sorted((row[:-1] for row in rows), key=repr)


def expected(windows) -> list[tuple]:
    return sorted(ref.aggregate(windows), key=repr)


def window_spec(kind, unit_name, step_n, ratio, offset_n):
    if kind == "session":
        return {"type": "session", "gap": duration(step_n, unit_name)}
    spec = {"type": kind, "size": duration(step_n * ratio if kind != "tumble" else step_n, unit_name)}
    if kind == "hop":
        spec["slide"] = duration(step_n, unit_name)
    if kind == "cumulate":
        spec["step"] = duration(step_n, unit_name)
    if offset_n:
        spec["offset"] = duration(offset_n, unit_name)
    return spec


def model_windows(kind, rows, unit, step_n, ratio, offset_n):
    if kind == "tumble":
        return ref.tumble(rows, step_n * unit, offset_n * unit)
    if kind == "hop":
        return ref.hop(rows, step_n * unit, step_n * ratio * unit, offset_n * unit)
    if kind == "cumulate":
        return ref.cumulate(rows, step_n * unit, step_n * ratio * unit, offset_n * unit)
    return ref.session(rows, step_n * unit)


def aggregate_query(windowed_sql, names, keyed, grouped_sql=None):
    key = "k" if keyed else "cast(null as string)"
    columns = ", ".join(names)
    if grouped_sql is None:
        return f"select {key}, unix_micros(window_start), unix_micros(window_end), {columns} from {windowed_sql}"
    return (
        f"select {key}, unix_micros(window_start), unix_micros(window_end), {grouped_sql} "
        f"from {windowed_sql} group by {key}, window_start, window_end"
    )


def table_valued_args(kind: str, spec: dict) -> tuple:
    if kind == "tumble":
        return (spec["size"], spec.get("offset"))
    return (spec["slide" if kind == "hop" else "step"], spec["size"], spec.get("offset"))


# KLL quantiles: (type, arguments of kll_sketch_agg_<type>, rank)
KLL = {
    "median": ("bigint", "v", "0.5"),
    "quartile": ("double", "cast(v as double), 50", "0.25"),
    "deciles": ("bigint", "v, 20", "array(0.1, 0.5, 0.9)"),
    "deciles_40": ("bigint", "v, 40", "array(0.1, 0.5, 0.9)"),
}


def grouped(aggregates: dict[str, str]) -> str:
    """The aggregates after GROUP BY; a KLL quantile of no value is NULL, as window_aggregate
    returns it (Spark's kll_sketch_get_quantile fails on an empty sketch)."""
    columns = []
    for name, sql in aggregates.items():
        if name in KLL:
            t, args, _ = KLL[name]
            sql = f"case when kll_sketch_get_n_{t}(kll_sketch_agg_{t}({args})) > 0 then {sql} end"
        columns.append(f"{sql} as {name}")
    return ", ".join(columns)


def both_plans(spark, renderer, view, kind, spec, keyed, aggregates):
    """Rows of window_aggregate and of the row-copy plan, sorted, keyed by window."""
    keys = ["k"] if keyed else []
    sliced = renderer.call("window_aggregate", view, "ts", spec, keys, aggregates)
    assert "__sw_pane" in sliced and "__sw_windowed" not in sliced, "merged from panes"
    windowed = renderer.call(kind, view, "ts", *table_valued_args(kind, spec))
    names = list(aggregates)
    actual = sorted((tuple(r) for r in spark.sql(aggregate_query(sliced, names, keyed)).collect()), key=repr)
    query = aggregate_query(windowed, names, keyed, grouped(aggregates))
    expected = sorted((tuple(r) for r in spark.sql(query).collect()), key=repr)
    return actual, expected
