"""Fast tests: render the window macros with plain Jinja and check the SQL with sqlglot."""

from __future__ import annotations

import itertools

import pytest

from dev.macro_renderer import CompilerError, MacroRenderer, output_names

pytestmark = pytest.mark.fast

RELATIONS = ["events", "`analytics`.`events`", "(select * from raw_events where k <> 'x')"]
DURATIONS = ["1 second", "5 minutes", "interval 1 hour", "INTERVAL '15' MINUTE", "250 milliseconds", "2 Days"]
OFFSETS = [None, "0 seconds", "-8 hours", "interval '90' minute", "-1 millisecond"]


def window_calls():
    for relation, size, offset in itertools.product(RELATIONS, DURATIONS, OFFSETS):
        yield ("tumble", relation, "ts", size, offset)
    for relation, (slide, ratio), offset in itertools.product(
        RELATIONS, [("1 second", 2), ("5 minutes", 12), ("250 milliseconds", 3)], OFFSETS
    ):
        size = f"{int(slide.split()[0]) * ratio} {slide.split()[1]}"
        yield ("hop", relation, "ts", slide, size, offset)
        yield ("cumulate", relation, "ts", slide, size, offset)
    for relation, gap, keys in itertools.product(RELATIONS, DURATIONS, [None, [], ["k"], ["tenant", "user_id"]]):
        yield ("session", relation, "ts", gap, keys)


@pytest.mark.parametrize("call", list(window_calls()), ids=lambda call: repr(call))
def test_rendered_window_sql_is_spark_sql_with_the_window_columns(renderer, call):
    names = output_names(renderer.call(*call))
    assert names[-3:] == ["window_start", "window_end", "window_time"]
    assert names[0] == "*", "every input column comes first"
    # no helper column escapes into the output
    assert not [name for name in names if name.startswith("__sw")]


@pytest.mark.parametrize(
    "value, micros",
    [
        ("5 minutes", 300_000_000),
        ("1 minute", 60_000_000),
        ("interval 1 hour", 3_600_000_000),
        ("INTERVAL '15' MINUTE", 900_000_000),
        ("250 milliseconds", 250_000),
        ("1 millisecond", 1_000),
        ("3 seconds", 3_000_000),
        ("2 Days", 172_800_000_000),
        ("  7   hours ", 25_200_000_000),
        ("100 days", 8_640_000_000_000),
    ],
)
def test_durations_are_read_in_microseconds(renderer, value, micros):
    assert renderer.call("_sw_duration_us", value, "m", "size") == micros


def test_offsets_may_be_negative_and_are_reduced_modulo_the_size(renderer):
    day = 86_400_000_000
    assert renderer.call("_sw_duration_us", "-8 hours", "m", "offset", allow_negative=True) == -28_800_000_000
    assert renderer.call("_sw_offset_us", "-8 hours", day, "m") == 16 * 3_600_000_000
    assert renderer.call("_sw_offset_us", "interval '-8' hour", day, "m") == 16 * 3_600_000_000
    assert renderer.call("_sw_offset_us", "25 hours", day, "m") == 3_600_000_000
    assert renderer.call("_sw_offset_us", None, day, "m") == 0


BAD_CALLS = [
    (("tumble", "ev", "ts", "5 weeks"), "tumble: size ('5 weeks') is not a duration"),
    (("tumble", "ev", "ts", "five minutes"), "tumble: size ('five minutes') is not a duration"),
    (("tumble", "ev", "ts", "5"), "tumble: size ('5') is not a duration"),
    (("tumble", "ev", "ts", "1.5.0 minutes"), "tumble: size ('1.5.0 minutes') is not a duration"),
    (("tumble", "ev", "ts", ".5 minutes"), "tumble: size ('.5 minutes') is not a duration"),
    (
        ("tumble", "ev", "ts", "0.0000001 seconds"),
        "tumble: size ('0.0000001 seconds') is not a whole number of microseconds, the precision of Spark timestamps",
    ),
    (("tumble", "ev", "ts", 5), "tumble: size (5) is not a duration"),
    (("tumble", "ev", "ts", "\uff15 minutes"), "tumble: size ('\uff15 minutes') is not a duration"),  # fullwidth 5
    (("tumble", "ev", "ts", "\u00b2 minutes"), "tumble: size ('\u00b2 minutes') is not a duration"),  # superscript 2
    (("tumble", "ev", "ts", "0 minutes"), "tumble: size ('0 minutes') must be greater than zero"),
    (("tumble", "ev", "ts", "-5 minutes"), "tumble: size ('-5 minutes') must not be negative"),
    (("tumble", "ev", "ts", "5 minutes", "8 parsecs"), "tumble: offset ('8 parsecs') is not a duration"),
    (("tumble", "ev", "", "5 minutes"), "tumble: time_col ('') must be a column name"),
    (("tumble", "ev", None, "5 minutes"), "tumble: time_col (None) must be a column name"),
    (("tumble", None, "ts", "5 minutes"), "tumble: relation is empty"),
    (("tumble", "  ", "ts", "5 minutes"), "tumble: relation is empty"),
    (
        ("hop", "ev", "ts", "15 minutes", "10 minutes"),
        "hop: slide ('15 minutes') is longer than size ('10 minutes'), so the rows between two windows would belong to none",
    ),
    (("hop", "ev", "ts", "15 minutes", "10 minutes", None, "yes"), "hop: allow_gaps (yes) must be true or false"),
    (("hop", "ev", "ts", "0 seconds", "10 minutes"), "hop: slide ('0 seconds') must be greater than zero"),
    (("hop", "ev", "ts", "1 minute", "-10 minutes"), "hop: size ('-10 minutes') must not be negative"),
    (("hop", "ev", "ts", "1 minute", "10 minutes", "1 fortnight"), "hop: offset ('1 fortnight') is not a duration"),
    (
        ("cumulate", "ev", "ts", "7 minutes", "1 hour"),
        "cumulate: size ('1 hour') must be a whole multiple of step ('7 minutes')",
    ),
    (("cumulate", "ev", "ts", "-1 minute", "1 hour"), "cumulate: step ('-1 minute') must not be negative"),
    (("session", "ev", "ts", "0 minutes"), "session: gap ('0 minutes') must be greater than zero"),
    (("session", "ev", "ts", "10 minutes", "k"), "session: partition_by ('k') must be a list of column names"),
    (
        ("session", "ev", "ts", "10 minutes", ["k", 3]),
        "session: partition_by (['k', 3]) must be a list of column names",
    ),
    (("session", "ev", "ts", "10 minutes", ["k", ""]), "must be a list of column names"),
    (
        ("session", "ev", "ts", "10 minutes", {"k": 1}),
        "session: partition_by ({'k': 1}) must be a list of column names",
    ),
]


@pytest.mark.parametrize("call, message", BAD_CALLS, ids=lambda v: repr(v))
def test_bad_arguments_are_compile_errors_that_say_what_is_accepted(renderer, call, message):
    with pytest.raises(CompilerError) as error:
        renderer.call(*call)
    assert message in str(error.value)


@pytest.mark.parametrize("call", [call for call, _ in BAD_CALLS], ids=repr)
def test_every_bad_argument_message_goes_on_to_say_what_is_accepted(renderer, call):
    with pytest.raises(CompilerError) as error:
        renderer.call(*call)
    message = str(error.value)
    # after naming what was wrong, each message shows a form that would be accepted
    accepted = ("; expected a string '<integer> <unit>'", ", such as ", "; for example ", "; pass ref(")
    assert any(part in message for part in accepted), message


def test_duration_errors_list_the_accepted_units(renderer):
    with pytest.raises(CompilerError) as error:
        renderer.call("tumble", "ev", "ts", "5 weeks")
    assert "unit one of millisecond, second, minute, hour, day" in str(error.value)


@pytest.mark.parametrize(
    "call",
    [
        ("tumble", "ev", "ts", "1 minute"),
        ("hop", "ev", "ts", "1 minute", "2 minutes"),
        ("cumulate", "ev", "ts", "1 minute", "2 minutes"),
        ("session", "ev", "ts", "1 minute"),
    ],
)
def test_other_adapters_get_a_clear_error_from_the_default_branch(call):
    with pytest.raises(CompilerError) as error:
        MacroRenderer(adapter_type="postgres").call(*call)
    assert f"spark_windows.{call[0]} has no implementation for the 'postgres' adapter" in str(error.value)


def test_hop_copies_each_row_into_size_over_slide_windows(renderer):
    sql = renderer.call("hop", "ev", "ts", "5 minutes", "1 hour")
    assert "sequence(cast(0 as bigint), 11)" in sql


# --- durations beyond the range of Spark timestamps ---------------------------------------

MAX_DAYS = 3_652_059  # 0001-01-01 to 10000-01-01, counted by hand: 719162 + 2932897 days


def test_the_longest_duration_is_the_span_of_spark_timestamps(renderer):
    assert renderer.call("_sw_duration_us", f"{MAX_DAYS} days", "m", "size") == MAX_DAYS * 86_400_000_000
    assert renderer.call("_sw_duration_us", f"{MAX_DAYS * 24} hours", "m", "size") == 315_537_897_600_000_000
    assert renderer.call("_sw_duration_us", f"-{MAX_DAYS} days", "m", "offset", allow_negative=True) == (
        -315_537_897_600_000_000
    )


TOO_LONG = [
    ("tumble", "ev", "ts", "99999999999999 days"),
    ("tumble", "ev", "ts", f"{MAX_DAYS + 1} days"),
    ("tumble", "ev", "ts", f"{MAX_DAYS * 24 * 60 + 1} minutes"),
    ("tumble", "ev", "ts", "1 day", f"-{MAX_DAYS + 1} days"),
    ("hop", "ev", "ts", "1 day", f"{MAX_DAYS + 1} days"),
    ("cumulate", "ev", "ts", f"{MAX_DAYS + 1} days", "1 day"),
    ("session", "ev", "ts", "interval 99999999999999999999 milliseconds"),
    ("window_aggregate", "ev", "ts", {"type": "tumble", "size": f"{MAX_DAYS + 1} days"}, [], {"n": "count(*)"}),
]


@pytest.mark.parametrize("call", TOO_LONG, ids=repr)
def test_durations_longer_than_the_range_of_spark_timestamps_are_compile_errors(renderer, call):
    with pytest.raises(CompilerError) as error:
        renderer.call(*call)
    message = str(error.value)
    assert "is longer than the whole range of Spark timestamps (0001-01-01 to 9999-12-31)" in message
    assert "expected at most 3652059 days (315537897600000000 microseconds)" in message


# --- hop and cumulate arguments given in the wrong order ----------------------------------


@pytest.mark.parametrize(
    "call, hint",
    [
        (
            ("hop", "ev", "ts", "1 hour", "10 minutes"),
            "hop: slide ('1 hour') is longer than size ('10 minutes'), so the rows between two windows would belong "
            "to none. The macro takes slide first, then size; for example slide '10 minutes' with size '1 hour' gives "
            "windows of '1 hour' every '10 minutes'. To keep the gaps on purpose, pass allow_gaps=true",
        ),
        (
            ("cumulate", "ev", "ts", "1 day", "1 hour"),
            "the two look swapped: step '1 hour' with size '1 day' is valid (cumulate takes step first, then size)",
        ),
        (
            (
                "window_aggregate",
                "ev",
                "ts",
                {"type": "hop", "slide": "1 hour", "size": "10 minutes"},
                [],
                {"n": "count(*)"},
            ),
            "window_aggregate (hop window): slide ('1 hour') is longer than size ('10 minutes'), so the rows between "
            "two windows would belong to none. The macro takes slide first, then size; for example slide '10 minutes' "
            "with size '1 hour' gives windows of '1 hour' every '10 minutes'. To keep the gaps on purpose",
        ),
    ],
    ids=repr,
)
def test_swapped_slide_and_size_are_named_as_swapped(renderer, call, hint):
    with pytest.raises(CompilerError) as error:
        renderer.call(*call)
    assert hint in str(error.value)


def test_sizes_that_are_no_multiple_either_way_are_not_called_swapped(renderer):
    with pytest.raises(CompilerError) as error:
        renderer.call("cumulate", "ev", "ts", "7 minutes", "10 minutes")
    assert "swapped" not in str(error.value)


# --- durations as Flink writes them, fractions included --------------------------------------


@pytest.mark.parametrize(
    "size, micros",
    [
        ("0.005 seconds", 5_000),
        ("interval '0.005' second", 5_000),
        ("INTERVAL '1.5' HOUR", 5_400_000_000),
        ("0.000001 second", 1),
        ("2.50 minutes", 150_000_000),
    ],
)
def test_decimal_durations_that_come_to_whole_microseconds_are_accepted(renderer, size, micros):
    rendered = renderer.call("tumble", "ev", "ts", size)
    assert f", {micros})) + {micros} - 1) as window_time" in rendered


# --- hop sizes that are no whole multiple of the slide --------------------------------------


def test_a_hop_size_that_is_no_multiple_copies_each_row_into_every_window_that_can_hold_it(renderer):
    # 10 minutes every 7: two candidate starts per row, the earlier kept only where it still
    # holds the row
    rendered = renderer.call("hop", "ev", "ts", "7 minutes", "10 minutes")
    assert "explode(sequence(cast(0 as bigint), 1))" in rendered
    assert rendered.endswith("- __sw_hop_index * 420000000) + 600000000\n)")
    aligned = renderer.call("hop", "ev", "ts", "5 minutes", "10 minutes")
    assert "explode(sequence(cast(0 as bigint), 1))" in aligned
    assert "< ((unix_micros" not in aligned, "whole multiples need no filter"


def test_gaps_take_allow_gaps_and_keep_one_candidate_window(renderer):
    rendered = renderer.call("hop", "ev", "ts", "1 hour", "10 minutes", None, True)
    assert "explode(sequence(cast(0 as bigint), 0))" in rendered
    assert rendered.endswith("end), 3600000000)) - __sw_hop_index * 3600000000) + 600000000\n)")


# --- window_top_n's ranking -------------------------------------------------------------------


@pytest.mark.parametrize("ranking", ["rank", "dense_rank"])
def test_top_n_by_rank_has_no_tie_break(renderer, ranking):
    rendered = renderer.call("window_top_n", "w", [], ["price desc"], 3, ranking)
    assert f"cast({ranking}() over (" in rendered
    assert "order by price desc\n" in rendered, "ties share their number: no tie-break"
    default = renderer.call("window_top_n", "w", [], ["price desc"], 3)
    assert "cast(row_number() over (" in default and "order by price desc, to_json(" in default


def test_top_n_refuses_an_unknown_ranking(renderer):
    with pytest.raises(CompilerError, match=r"window_top_n: ranking \(ntile\) must be one of 'row_number'"):
        renderer.call("window_top_n", "w", [], ["price desc"], 3, "ntile")


# --- calendar_window's offset ------------------------------------------------------------------


@pytest.mark.parametrize("offset", ["1 day", "-24 hours", "1440 minutes"])
def test_a_calendar_offset_of_a_day_or_more_is_refused(renderer, offset):
    with pytest.raises(CompilerError) as error:
        renderer.call("calendar_window", "ev", "ts", "day", "America/New_York", offset)
    assert str(error.value).startswith(f"calendar_window: offset ('{offset}') must be shorter than a day either way")


def test_a_calendar_offset_shifts_every_bound_and_the_local_date(renderer):
    shifted = renderer.call("calendar_window", "ev", "ts", "month", "Europe/Berlin", "6 hours")
    assert shifted.count("* 86400000000 + 21600000000), 'Europe/Berlin'))") == 4  # the four bounds
    assert "'Europe/Berlin')) - 21600000000" in shifted
    plain = renderer.call("calendar_window", "ev", "ts", "month", "Europe/Berlin")
    assert "21600000000" not in plain
