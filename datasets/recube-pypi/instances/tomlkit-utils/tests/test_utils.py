"""Hidden tests of tomlkit/_utils.py (tomlkit 0.13.3).

External tests go through the callers in tomlkit: the parser (parser.py) and the
`datetime`/`date`/`time` helpers of api.py read dates and times with `parse_rfc3339`,
items.py writes strings and keys with `escape_string`, and container.py merges the parts
of a table split across the document with `merge_dicts`. Internal tests call the
functions of tomlkit/_utils.py directly.
"""

import datetime as dt

import pytest

import tomlkit
from tomlkit import _utils


# External: through the parser, api.py, items.py and container.py.
def test_parse_reads_offset_datetimes_dates_and_times():
    doc = tomlkit.parse(
        "a = 1979-05-27T00:32:00.999-07:00\nb = 1979-05-27\nc = 07:32:00.5\nd = 1979-05-27 07:32:00\n"
    )
    a = doc["a"]
    assert (a.year, a.month, a.day, a.hour, a.minute, a.microsecond) == (1979, 5, 27, 0, 32, 999000)
    assert a.utcoffset() == dt.timedelta(hours=-7)
    assert doc["b"].unwrap() == dt.date(1979, 5, 27)
    assert doc["c"].unwrap() == dt.time(7, 32, 0, 500000)
    assert doc["d"].unwrap() == dt.datetime(1979, 5, 27, 7, 32)


def test_api_datetime_date_and_time_parse_their_strings():
    value = tomlkit.datetime("1979-05-27T07:32:00+05:30")
    assert value.utcoffset() == dt.timedelta(hours=5, minutes=30)
    assert tomlkit.date("2020-02-29").unwrap() == dt.date(2020, 2, 29)
    assert tomlkit.time("23:59:59").unwrap() == dt.time(23, 59, 59)


def test_api_date_refuses_an_invalid_month():
    with pytest.raises(ValueError, match="Invalid RFC 339 string"):
        tomlkit.date("2020-13-01")


def test_string_and_key_are_written_with_escapes():
    assert tomlkit.string('a"b\\c\n\t\x01').as_string() == '"a\\"b\\\\c\\n\\t\\u0001"'
    assert tomlkit.dumps({'a"b': 1}) == '"a\\"b" = 1\n'


def test_unwrap_merges_a_table_split_across_the_document():
    doc = tomlkit.parse("[a]\nx = 1\n[b]\nz = 3\n[a.c]\ny = 2\n")
    assert doc.unwrap() == {"a": {"x": 1, "c": {"y": 2}}, "b": {"z": 3}}
    assert doc.value == {"a": {"x": 1, "c": {"y": 2}}, "b": {"z": 3}}


# Internal: the functions themselves.
def test_parse_rfc3339_truncates_fractions_to_microseconds_and_keeps_the_offset():
    value = _utils.parse_rfc3339("1979-05-27T07:32:00.123456789-07:00")
    assert value == dt.datetime(
        1979, 5, 27, 7, 32, 0, 123456, tzinfo=dt.timezone(dt.timedelta(hours=-7))
    )
    assert str(value.tzinfo) == "-07:00"


def test_parse_rfc3339_accepts_lowercase_t_and_z_as_utc():
    value = _utils.parse_rfc3339("1979-05-27t07:32:00z")
    assert value == dt.datetime(1979, 5, 27, 7, 32, tzinfo=dt.timezone.utc)
    assert str(value.tzinfo) == "UTC"


def test_parse_rfc3339_reads_a_date_and_a_time():
    assert _utils.parse_rfc3339("2000-01-31") == dt.date(2000, 1, 31)
    assert _utils.parse_rfc3339("07:32:00.5") == dt.time(7, 32, 0, 500000)
    assert _utils.parse_rfc3339("1979-05-27 07:32:00") == dt.datetime(1979, 5, 27, 7, 32)


def test_parse_rfc3339_refuses_an_out_of_range_hour():
    with pytest.raises(ValueError, match="Invalid RFC 339 string"):
        _utils.parse_rfc3339("1979-05-27T25:00:00")


def test_loose_pattern_matches_dates_and_times_only():
    assert _utils.RFC_3339_LOOSE.match("1979-05-27")
    assert _utils.RFC_3339_LOOSE.match("07:32:00")
    assert not _utils.RFC_3339_LOOSE.match("hello")


def test_escape_string_uses_short_escapes_and_unicode_escapes():
    assert _utils.escape_string('a"b\\c\n\x01\x7f') == 'a\\"b\\\\c\\n\\u0001\\u007f'


def test_escape_string_with_custom_sequences_and_bytes():
    assert _utils.escape_string('x"""y', {'"""'}) == 'x""\\"y'
    assert _utils.escape_string(b'caf\xc3\xa9 "q"') == 'café \\"q\\"'


def test_merge_dicts_merges_nested_dicts_in_place():
    d1 = {"a": {"b": 1, "c": 2}, "x": 1}
    _utils.merge_dicts(d1, {"a": {"c": 3, "d": 4}, "x": {"y": 1}})
    assert d1 == {"a": {"b": 1, "c": 3, "d": 4}, "x": {"y": 1}}
