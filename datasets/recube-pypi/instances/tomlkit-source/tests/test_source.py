"""Hidden tests of tomlkit/source.py (tomlkit 0.13.3).

External tests go through the caller in tomlkit: the parser (parser.py) reads its input
through a `Source`, backtracks with its state handler and reports errors at the line and
column `Source.parse_error` computes. Internal tests use `Source` directly.
"""

import datetime

import pytest

import tomlkit
from tomlkit.exceptions import UnexpectedCharError, UnexpectedEofError
from tomlkit.source import Source


# External: through the parser.
def test_parse_error_reports_line_and_column():
    with pytest.raises(UnexpectedCharError) as info:
        tomlkit.parse("a = 1\nb = $\n")
    assert (info.value.line, info.value.col) == (2, 4)
    assert str(info.value) == "Unexpected character: '$' at line 2 col 4"


def test_unterminated_string_reports_end_of_file():
    with pytest.raises(UnexpectedEofError, match="Unexpected end of file at line 1 col 8"):
        tomlkit.parse('a = "abc')


def test_two_pairs_on_one_line_are_refused_at_the_second_key():
    with pytest.raises(UnexpectedCharError) as info:
        tomlkit.parse("a = 1 b = 2")
    assert (info.value.line, info.value.col) == (1, 6)


def test_parser_backtracks_between_dates_and_numbers():
    doc = tomlkit.parse("a = 1979-05-27\nb = 1979\nc = 1e3\nd = inf\ne = true\n")
    assert doc.unwrap() == {
        "a": datetime.date(1979, 5, 27),
        "b": 1979,
        "c": 1000.0,
        "d": float("inf"),
        "e": True,
    }


# Internal: Source itself.
def test_a_new_source_starts_at_its_first_character():
    src = Source("ab\ncd")
    assert (src.current, src.idx, src.marker, src.end()) == ("a", 0, 0, False)


def test_an_empty_source_is_at_its_end():
    src = Source("")
    assert src.end() and src.current == "\0" and src.idx == 0


def test_inc_mark_and_extract():
    src = Source("ab\ncd")
    assert src.inc() and src.current == "b"
    src.mark()
    assert src.inc_n(2)
    assert (src.current, src.idx, src.extract()) == ("c", 3, "b\n")


def test_inc_past_the_end_returns_false_or_raises():
    src = Source("ab")
    assert src.inc()
    assert not src.inc()
    assert src.end() and src.idx == 2 and src.current is Source.EOF
    with pytest.raises(UnexpectedEofError, match="line 1 col 2"):
        src.inc(exception=UnexpectedEofError)


def test_parse_error_is_placed_at_the_current_line_and_column():
    src = Source("ab\ncd")
    src.inc_n(3)
    err = src.parse_error(UnexpectedCharError, "c")
    assert isinstance(err, UnexpectedCharError)
    assert (err.line, err.col) == (2, 0)
    assert str(err) == "Unexpected character: 'c' at line 2 col 0"


def test_consume_takes_up_to_max_and_checks_min():
    src = Source("aaab")
    src.consume("a")
    assert (src.current, src.idx) == ("b", 3)
    src = Source("aaab")
    src.consume("a", 1, 2)
    assert (src.current, src.idx) == ("a", 2)
    src = Source("ab")
    with pytest.raises(UnexpectedCharError, match="line 1 col 1"):
        src.consume("a", 2)


def test_state_restores_on_request_or_on_an_exception():
    src = Source("abc")
    with src.state(restore=True):
        src.inc()
        src.inc()
        assert src.current == "c"
    assert (src.current, src.idx) == ("a", 0)
    with src.state():
        src.inc()
    assert (src.current, src.idx) == ("b", 1)
    with pytest.raises(KeyError):
        with src.state:
            src.inc()
            raise KeyError("x")
    assert (src.current, src.idx) == ("b", 1)


def test_state_restores_the_marker_only_when_asked():
    for save_marker, expected in ((True, 1), (False, 2)):
        src = Source("abc")
        src.inc()
        src.mark()
        with pytest.raises(KeyError):
            with src.state(save_marker=save_marker):
                src.inc()
                src.mark()
                raise KeyError("x")
        assert (src.marker, src.idx) == (expected, 1)
