"""Hidden tests of sqlparse/filters/others.py (sqlparse 0.5.5).

External tests go through sqlparse.format, whose filter stack (formatter.py) adds the
comment, whitespace and operator filters and always ends with SerializerUnicode, and
through sqlparse.split(strip_semicolon=True), whose FilterStack adds
StripTrailingSemicolonFilter. Internal tests run the filters on parsed statements.
"""

import sqlparse
from sqlparse.filters import (
    SerializerUnicode,
    SpacesAroundOperatorsFilter,
    StripCommentsFilter,
    StripTrailingSemicolonFilter,
    StripWhitespaceFilter,
)


def parse(text):
    return sqlparse.parse(text)[0]


# External: through sqlparse.format and sqlparse.split.
def test_format_strips_comments_but_keeps_line_breaks_and_hints():
    assert sqlparse.format("select a, -- first\n  b from t", strip_comments=True) == "select a,\n  b from t"
    assert sqlparse.format("select a/* c */from t", strip_comments=True) == "select a from t"
    assert sqlparse.format("select /*+ INDEX(t i) */ a from t -- bye", strip_comments=True) == (
        "select /*+ INDEX(t i) */ a from t"
    )


def test_format_collapses_whitespace():
    assert sqlparse.format("select   a ,\n  b\n\n from   t  ", strip_whitespace=True) == "select a, b from t"
    assert sqlparse.format("select f(  a  ,  b  ) from ( select 1  )", strip_whitespace=True) == (
        "select f(a , b) from (select 1)"
    )


def test_format_puts_spaces_around_operators():
    assert sqlparse.format("select a*b-c from t where d>=1 and e<>2", use_space_around_operators=True) == (
        "select a * b - c from t where d >= 1 and e <> 2"
    )


def test_split_can_drop_trailing_semicolons():
    assert sqlparse.split("select 1;  \nselect 2 ;", strip_semicolon=True) == ["select 1", "select 2"]


def test_format_output_has_no_trailing_spaces_on_lines():
    assert sqlparse.format("select a   \nfrom t  \n") == "select a\nfrom t\n"


# Internal: the filters on parsed statements.
def test_strip_comments_replaces_a_comment_by_a_space_or_its_line_break():
    stmt = parse("select a /* c */ from t -- x\nwhere b = 1")
    StripCommentsFilter().process(stmt)
    assert str(stmt) == "select a   from t \nwhere b = 1"
    stmt = parse("select (/* c */ a) from t")
    StripCommentsFilter().process(stmt)
    assert str(stmt) == "select ( a) from t"


def test_strip_comments_keeps_sql_hints():
    stmt = parse("--+ hint\nselect 1 -- note")
    StripCommentsFilter().process(stmt)
    assert str(stmt) == "--+ hint\nselect 1  "
    stmt = parse("select /*+ hint */ a from t")
    StripCommentsFilter().process(stmt)
    assert str(stmt) == "select /*+ hint */ a from t"


def test_strip_whitespace_keeps_single_spaces():
    stmt = parse("  select   a,\tb   from t   ")
    assert StripWhitespaceFilter().process(stmt) is stmt
    assert str(stmt) == "select a, b from t "


def test_strip_whitespace_tightens_parentheses_and_comma_lists():
    stmt = parse("select ( a  ,  b ) from t")
    StripWhitespaceFilter().process(stmt)
    assert str(stmt) == "select (a , b) from t"
    stmt = parse("select a\n, b from t")
    StripWhitespaceFilter().process(stmt)
    assert str(stmt) == "select a, b from t"


def test_spaces_around_operators_adds_missing_spaces_only():
    stmt = parse("select a+b, c||d from t where x=1")
    assert SpacesAroundOperatorsFilter().process(stmt) is stmt
    assert str(stmt) == "select a + b, c || d from t where x = 1"
    stmt = parse("select a + b from t")
    SpacesAroundOperatorsFilter().process(stmt)
    assert str(stmt) == "select a + b from t"


def test_strip_trailing_semicolon_removes_semicolons_and_whitespace_at_the_end():
    stmt = parse("select 1 ;  \n")
    StripTrailingSemicolonFilter().process(stmt)
    assert str(stmt) == "select 1"
    stmt = parse("select ';' ;;")
    StripTrailingSemicolonFilter().process(stmt)
    assert str(stmt) == "select ';'"


def test_serializer_joins_lines_with_newlines_and_trims_them():
    assert SerializerUnicode.process(parse("select 'a  \n b'  \r\n from t  ")) == "select 'a  \n b'\n from t"
    assert SerializerUnicode().process("x  \r\ny\r z  ") == "x\ny\n z"
