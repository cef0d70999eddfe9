"""Hidden tests of sqlparse/filters/reindent.py (sqlparse 0.5.5).

External tests go through sqlparse.format(reindent=True), which formatter.py turns into
a ReindentFilter with the options it validated. Internal tests build ReindentFilter
themselves, run it over parsed statements and call its methods.
"""

import sqlparse
from sqlparse import sql
from sqlparse import tokens as T
from sqlparse.engine import FilterStack
from sqlparse.filters import ReindentFilter, SerializerUnicode, StripWhitespaceFilter


def reindent(text, **options):
    """Runs text through a stack holding a ReindentFilter built with options."""
    stack = FilterStack()
    stack.enable_grouping()
    stack.stmtprocess.append(StripWhitespaceFilter())
    stack.stmtprocess.append(ReindentFilter(**options))
    stack.postprocess.append(SerializerUnicode())
    return "".join(stack.run(text))


# External: through sqlparse.format (formatter.py's build_filter_stack).
def test_format_breaks_lines_before_clauses_and_aligns_columns():
    query = (
        "select a, b, c from t join u on t.id = u.id where x = 1 and y between 2 and 3 "
        "or z = 4 group by a order by b limit 5"
    )
    assert sqlparse.format(query, reindent=True) == (
        "select a,\n       b,\n       c\nfrom t\njoin u on t.id = u.id\nwhere x = 1\n"
        "  and y between 2 and 3\n  or z = 4\ngroup by a\norder by b\nlimit 5"
    )


def test_format_indents_subqueries_by_the_indent_width():
    assert sqlparse.format(
        "select a, b, c from t where x in (select y from u)", reindent=True, indent_width=4
    ) == "select a,\n       b,\n       c\nfrom t\nwhere x in\n        (select y\n         from u)"


def test_format_puts_commas_first_when_asked():
    assert sqlparse.format("select a, b, c from t", reindent=True, comma_first=True) == (
        "select a\n     , b\n     , c\nfrom t"
    )


def test_format_wraps_column_lists_after_the_given_width():
    assert sqlparse.format("select aaa, bbb, ccc, ddd, eee from t", reindent=True, wrap_after=12) == (
        "select aaa, bbb,\n       ccc, ddd,\n       eee\nfrom t"
    )


def test_format_separates_statements_with_a_blank_line():
    assert sqlparse.format("select 1; select 2;", reindent=True) == "select 1;\n\nselect 2;"


# Internal: ReindentFilter itself.
def test_nl_and_leading_ws_follow_width_char_indent_and_offset():
    fltr = ReindentFilter(width=4, char=".", indent_after_first=True)
    assert (fltr.indent, fltr.offset, fltr.leading_ws) == (1, 0, 4)
    token = fltr.nl()
    assert token.ttype is T.Whitespace and token.value == "\n...."
    assert fltr.nl(2).value == "\n......"
    fltr.offset = 3
    assert fltr.leading_ws == 7
    assert fltr.nl(-10).value == "\n"
    assert ReindentFilter(n="\r\n").nl().value == "\r\n"


def test_process_reindents_a_parsed_statement_in_place():
    stmt = sqlparse.parse("select a from t where b = 1")[0]
    assert ReindentFilter().process(stmt) is stmt
    assert str(stmt) == "select a\nfrom t \nwhere b = 1"


def test_process_puts_a_blank_line_before_later_statements():
    fltr = ReindentFilter()
    first = fltr.process(sqlparse.parse("select 1")[0])
    second = fltr.process(sqlparse.parse("select 2")[0])
    assert (str(first), str(second)) == ("select 1", "\n\nselect 2")


def test_constructor_options_change_the_indentation():
    assert reindent("select a, b from t", char="\t") == "select a,\n\tb\nfrom t"
    assert reindent("select a, b from t", indent_columns=True) == "select\n  a,\n  b\nfrom t"
    assert reindent("select a, b from t", indent_after_first=True) == "select a,\n       b\n  from t"


def test_case_expressions_get_one_line_per_branch_unless_compact():
    query = "select case when a = 1 then 'one' when a = 2 then 'two' else 'many' end from t"
    assert reindent(query) == (
        "select case\n           when a = 1 then 'one'\n           when a = 2 then 'two'\n"
        "           else 'many'\n       end\nfrom t"
    )
    assert reindent("select case when a = 1 then 'one' else 'many' end from t", compact=True) == (
        "select case when a = 1 then 'one' else 'many' end\nfrom t"
    )


def test_values_rows_go_on_their_own_lines():
    query = "insert into t values (1, 2), (3, 4)"
    assert reindent(query) == "insert into t\nvalues (1, 2),\n       (3, 4)"
    assert reindent(query, comma_first=True) == "insert into t\nvalues (1, 2)\n     , (3, 4)"


def test_get_offset_measures_the_current_line_up_to_a_token():
    stmt = sqlparse.parse("select x from t where a = 1 and b = 2")[0]
    fltr = ReindentFilter()
    fltr._curr_stmt = stmt
    flat = list(stmt.flatten())
    assert str(flat[4]) == "from"
    assert [str(t) for t in fltr._flatten_up_to_token(flat[4])] == ["select", " ", "x", " "]
    assert fltr._get_offset(flat[4]) == 9
    assert isinstance(stmt.tokens[-1], sql.Where)
    assert fltr._get_offset(stmt.tokens[-1]) == 16


def test_next_token_skips_the_and_of_a_between():
    where = sqlparse.parse("select x from t where a between 1 and 2 and b = 3")[0].tokens[-1]
    fltr = ReindentFilter()
    idx, token = fltr._next_token(where)
    assert (idx, token.normalized) == (12, "AND")
    assert fltr._next_token(where, idx) == (None, None)
