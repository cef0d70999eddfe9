"""Hidden tests of sqlparse/utils.py (sqlparse 0.5.5).

External tests go through the files that use the helpers: sql.py strips quotes from
names, the lexer skips matched characters with consume, the serializer splits lines
outside quotes, grouping recurses with recurse and imt, and the reindent filters indent
with indent and offset. Internal tests call the helpers directly.
"""

import sqlparse
from sqlparse import sql, tokens as T
from sqlparse.lexer import tokenize
from sqlparse.utils import (
    consume,
    imt,
    indent,
    offset,
    recurse,
    remove_quotes,
    split_unquoted_newlines,
)


# External: through sql.py, lexer.py, the serializer, grouping and reindent.
def test_identifier_names_lose_their_quotes():
    stmt = sqlparse.parse('select "a" as "b", `c` from "t"')[0]
    columns = [t for t in stmt.tokens if isinstance(t, sql.IdentifierList)][0]
    assert [(i.get_real_name(), i.get_alias()) for i in columns.get_identifiers()] == [
        ("a", "b"),
        ("c", None),
    ]
    table = [t for t in stmt.tokens if isinstance(t, sql.Identifier)][0]
    assert table.get_real_name() == "t"


def test_tokenize_skips_past_each_matched_token():
    assert list(tokenize("select 'it''s' from t")) == [
        (T.Keyword.DML, "select"),
        (T.Whitespace, " "),
        (T.String.Single, "'it''s'"),
        (T.Whitespace, " "),
        (T.Keyword, "from"),
        (T.Whitespace, " "),
        (T.Name, "t"),
    ]


def test_format_keeps_newlines_inside_strings_and_trims_lines():
    out = sqlparse.format("select 'a\r\nb' as x,\r\n  y   \r\nfrom t")
    assert out == "select 'a\r\nb' as x,\n  y\nfrom t"


def test_grouping_finds_nested_functions():
    stmt = sqlparse.parse("select f(a, g(b)) from t")[0]
    func = stmt.tokens[2]
    assert isinstance(func, sql.Function)
    inner = func.tokens[1].tokens[1]
    assert isinstance(inner, sql.IdentifierList)
    assert isinstance(inner.tokens[3], sql.Function)
    assert str(inner.tokens[3]) == "g(b)"


def test_reindent_indents_subqueries():
    out = sqlparse.format("select\n a, b from t where c in (select d from u)", reindent=True)
    assert out == "select a,\n       b\nfrom t\nwhere c in\n    (select d\n     from u)"


# Internal: the helpers themselves.
def test_split_unquoted_newlines_splits_on_every_newline_kind():
    assert split_unquoted_newlines("a\nb 'c\nd'\r\ne\rf") == ["a", "b 'c\nd'", "e", "f"]


def test_split_unquoted_newlines_ignores_newlines_in_double_quotes():
    assert split_unquoted_newlines('x "y\r\nz"\n') == ['x "y\r\nz"', ""]
    assert split_unquoted_newlines("") == [""]


def test_remove_quotes_strips_matching_quotes_only():
    assert remove_quotes('"a"') == "a"
    assert remove_quotes("'b'") == "b"
    assert remove_quotes("`c`") == "c"
    assert remove_quotes("\"d'") == "\"d'"
    assert remove_quotes("e") == "e"
    assert remove_quotes(None) is None


def test_imt_matches_by_type_value_or_class():
    tok = sql.Token(T.Keyword, "FROM")
    assert imt(tok, t=T.Keyword)
    assert imt(tok, t=[T.Name, T.Keyword])
    assert imt(tok, m=(T.Keyword, "from"))
    assert imt(tok, m=[(T.Keyword, "where"), (T.Keyword, "FROM")])
    assert not imt(tok, i=sql.Identifier)
    assert not imt(tok, t=T.Name)
    assert not imt(None, t=T.Keyword)
    ident = sqlparse.parse("a")[0].tokens[0]
    assert imt(ident, i=(sql.Function, sql.Identifier))


def test_recurse_visits_children_first_and_skips_given_classes():
    seen = []

    @recurse()
    def visit_all(tlist):
        seen.append(type(tlist).__name__)

    visit_all(sqlparse.parse("select f(a) from t")[0])
    assert seen == ["Identifier", "Identifier", "Parenthesis", "Function", "Identifier", "Statement"]

    seen.clear()

    @recurse(sql.Parenthesis)
    def visit_outside_parens(tlist):
        seen.append(type(tlist).__name__)

    visit_outside_parens(sqlparse.parse("select f(a) from (select b from t) x")[0])
    assert seen == ["Identifier", "Function", "Identifier", "Identifier", "Statement"]


def test_consume_advances_an_iterator():
    it = iter(range(10))
    consume(it, 3)
    assert next(it) == 3
    consume(it, None)
    assert list(it) == []


def test_offset_and_indent_change_a_filter_for_the_block_only():
    class Filter:
        offset = 0
        indent = 0

    f = Filter()
    with offset(f, 4):
        with indent(f):
            assert (f.offset, f.indent) == (4, 1)
            with indent(f, 2):
                assert f.indent == 3
    assert (f.offset, f.indent) == (0, 0)
