"""Hidden tests of tomlkit/parser.py (tomlkit 0.13.3).

External tests go through the caller in tomlkit: api.py's `parse`/`loads`, `value` and
`key_value` (exported by tomlkit/__init__.py) all run a `Parser`. Internal tests create
a `Parser` directly and call its methods.
"""

import datetime
import math

import pytest

import tomlkit
from tomlkit.exceptions import (
    EmptyTableNameError,
    InvalidCharInStringError,
    InvalidControlChar,
    InvalidDateError,
    InvalidNumberError,
    InvalidTimeError,
    InvalidUnicodeValueError,
    ParseError,
)
from tomlkit.parser import Parser
from tomlkit.toml_document import TOMLDocument

SOURCE = '''# Config
[numbers]
hex = 0xDEAD_beef
oct = 0o755
bin = 0b1101
big = 1_000
neg = -17
flt = 6.626e-34
ninf = -inf

[strings]
basic = "tab\\there \\u00e9"
literal = 'C:\\Users'

[[fruit]]
name = "apple"
color = { skin = "red", "flesh" = 'white' }

[[fruit]]
name = "banana"
tags = [ 1, 2,
  3, ]  # trailing
"quoted key".sub = true
'''


# External: through api.py.
def test_parse_reads_numbers_strings_tables_and_arrays_of_tables():
    assert tomlkit.parse(SOURCE).unwrap() == {
        "numbers": {
            "hex": 0xDEADBEEF,
            "oct": 0o755,
            "bin": 0b1101,
            "big": 1000,
            "neg": -17,
            "flt": 6.626e-34,
            "ninf": -math.inf,
        },
        "strings": {"basic": "tab\there \u00e9", "literal": "C:\\Users"},
        "fruit": [
            {"name": "apple", "color": {"skin": "red", "flesh": "white"}},
            {"name": "banana", "tags": [1, 2, 3], "quoted key": {"sub": True}},
        ],
    }


def test_parse_then_dumps_gives_back_the_source():
    assert tomlkit.dumps(tomlkit.parse(SOURCE)) == SOURCE


def test_value_and_key_value_parse_fragments():
    assert tomlkit.value('"\\u00e9"') == "\u00e9"
    assert tomlkit.value("nan") != tomlkit.value("nan")
    key, value = tomlkit.key_value('"a b".c = [1, {d = 2}]')
    assert key.as_string() == '"a b".c '
    assert value == [1, {"d": 2}]


def test_parse_reports_bad_numbers_dates_and_times():
    with pytest.raises(InvalidNumberError, match="Invalid number at line 1 col 8"):
        tomlkit.parse("a = 1__0")
    with pytest.raises(InvalidDateError, match="Invalid date at line 1 col 14"):
        tomlkit.parse("a = 1979-02-30")
    with pytest.raises(InvalidTimeError, match="Invalid time at line 1 col 12"):
        tomlkit.parse("a = 25:00:00")


def test_loads_refuses_redefining_a_dotted_key():
    with pytest.raises(ParseError, match='Key "b" already exists. at line 2 col 9'):
        tomlkit.loads("a.b = 1\na.b.c = 2")


# Internal: Parser itself.
def test_parser_accepts_bytes_and_returns_a_document():
    doc = Parser(b"k = 'v'\n").parse()
    assert isinstance(doc, TOMLDocument)
    assert doc.unwrap() == {"k": "v"}


def test_parser_walks_its_source_with_mark_and_extract():
    parser = Parser("abc = 1")
    assert parser._current == "a" and parser._idx == 0
    parser.mark()
    parser.inc()
    parser.inc()
    assert parser.extract() == "ab"
    assert not parser.end()


def test_parse_value_keeps_the_written_form_of_an_integer():
    value = Parser("0x1F")._parse_value()
    assert value == 31
    assert value.as_string() == "0x1F"


def test_parse_key_value_reads_a_quoted_dotted_key():
    key, value = Parser('"a b".c = [1, {d = 2}]')._parse_key_value()
    assert [k.key for k in key] == ["a b", "c"]
    assert value.unwrap() == [1, {"d": 2}]


def test_bad_escapes_control_characters_and_unicode_values_are_refused():
    with pytest.raises(InvalidCharInStringError, match="Invalid character 'q' in string at line 1 col 6"):
        Parser('a = "\\q"').parse()
    with pytest.raises(InvalidControlChar, match="line 1 col 6"):
        Parser('a = "x\x01"').parse()
    with pytest.raises(InvalidUnicodeValueError, match="Invalid unicode value at line 1 col 6"):
        Parser('a = "\\uD800"').parse()


def test_multiline_strings_trim_the_first_newline_and_escaped_line_ends():
    assert Parser('a = """\nx"""').parse().unwrap() == {"a": "x"}
    assert Parser('a = """a\\\n\n   b"""').parse().unwrap() == {"a": "ab"}
    assert Parser("a = '''\nraw \\n'''").parse().unwrap() == {"a": "raw \\n"}


def test_empty_table_names_and_leading_zeros_are_refused():
    with pytest.raises(EmptyTableNameError, match="Empty table name at line 1 col 1"):
        Parser("[]\n").parse()
    with pytest.raises(InvalidNumberError, match="Invalid number at line 1 col 6"):
        Parser("a = 01").parse()


def test_dates_times_and_local_datetimes():
    doc = Parser("a = 1979-05-27T07:32:00\nb = 1979-05-27 \nc = 00:00:00").parse()
    assert doc.unwrap() == {
        "a": datetime.datetime(1979, 5, 27, 7, 32),
        "b": datetime.date(1979, 5, 27),
        "c": datetime.time(0, 0),
    }
