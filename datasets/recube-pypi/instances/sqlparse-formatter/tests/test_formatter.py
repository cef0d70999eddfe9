"""Hidden tests of sqlparse/formatter.py (sqlparse 0.5.5).

External tests go through sqlparse.format, which validates its options and builds its
filter stack here, and through the sqlformat command line (cli.py), which validates
the options it parsed. Internal tests call validate_options and build_filter_stack.
"""

import pytest

import sqlparse
from sqlparse import cli, formatter
from sqlparse.engine import FilterStack
from sqlparse.exceptions import SQLParseError


def names(filters):
    return [type(f).__name__ for f in filters]


# External: through sqlparse.format and the command line.
def test_format_changes_keyword_and_identifier_case():
    assert sqlparse.format("select A from T", keyword_case="upper", identifier_case="lower") == (
        "SELECT a FROM t"
    )
    assert sqlparse.format("select a+b from t where c>1", use_space_around_operators=True) == (
        "select a + b from t where c > 1"
    )


def test_format_truncates_long_strings():
    assert sqlparse.format("select 'abcdefghij' from t", truncate_strings=4) == "select 'abcd[...]' from t"
    assert sqlparse.format("select 'abcdefghij' from t", truncate_strings=4, truncate_char="~") == (
        "select 'abcd~' from t"
    )


def test_format_writes_python_and_php_code():
    assert sqlparse.format("select a from t", output_format="python") == "sql = 'select a from t'"
    assert sqlparse.format("select a\nfrom t", output_format="php") == (
        '$sql  = "select a ";\n$sql .= "from t";'
    )


def test_format_refuses_invalid_options():
    with pytest.raises(SQLParseError, match="Invalid value for keyword_case: 'title'"):
        sqlparse.format("select 1", keyword_case="title")
    with pytest.raises(SQLParseError, match="Unknown output format: 'xml'"):
        sqlparse.format("select 1", output_format="xml")


def test_command_line_reports_invalid_options(tmp_path, capsys):
    query = tmp_path / "q.sql"
    query.write_text("select a, b from t where c = 1")
    out = tmp_path / "out.sql"
    assert cli.main([str(query), "-k", "upper", "-r", "-o", str(out)]) == 0
    assert out.read_text() == "SELECT a,\n       b\nFROM t\nWHERE c = 1"
    assert cli.main([str(query), "--indent_width", "0"]) == 1
    assert capsys.readouterr().err == "[ERROR] Invalid options: indent_width requires a positive integer\n"


# Internal: validate_options and build_filter_stack.
def test_validate_options_fills_in_defaults():
    assert formatter.validate_options({}) == {
        "indent_columns": False,
        "indent_after_first": False,
        "indent_char": " ",
        "indent_width": 2,
        "wrap_after": 0,
        "comma_first": False,
        "compact": False,
        "right_margin": None,
    }


def test_validate_options_turns_on_whitespace_stripping_for_reindent():
    options = formatter.validate_options({"reindent": True})
    assert options["strip_whitespace"] is True
    options = formatter.validate_options({"reindent_aligned": True})
    assert options["strip_whitespace"] is True


def test_validate_options_converts_numbers_and_implies_options():
    options = formatter.validate_options({
        "indent_columns": True,
        "indent_tabs": True,
        "truncate_strings": "10",
        "indent_width": "4",
        "wrap_after": "3",
        "right_margin": "20",
    })
    assert options["reindent"] is True
    assert options["strip_whitespace"] is True
    assert options["indent_char"] == "\t"
    assert (options["truncate_strings"], options["truncate_char"]) == (10, "[...]")
    assert (options["indent_width"], options["wrap_after"], options["right_margin"]) == (4, 3, 20)


def test_validate_options_rejects_bad_choices():
    for options, message in [
        ({"identifier_case": "title"}, "Invalid value for identifier_case: 'title'"),
        ({"strip_comments": "yes"}, "Invalid value for strip_comments: 'yes'"),
        ({"comma_first": "yes"}, "comma_first requires a boolean value"),
        ({"reindent": 1.5}, "Invalid value for reindent: 1.5"),
    ]:
        with pytest.raises(SQLParseError) as err:
            formatter.validate_options(options)
        assert str(err.value) == message


def test_validate_options_rejects_bad_numbers():
    for options, message in [
        ({"truncate_strings": 1}, "Invalid value for truncate_strings: 1"),
        ({"truncate_strings": "x"}, "Invalid value for truncate_strings: 'x'"),
        ({"indent_width": "a"}, "indent_width requires an integer"),
        ({"wrap_after": -1}, "wrap_after requires a positive integer"),
        ({"right_margin": 5}, "right_margin requires an integer > 10"),
    ]:
        with pytest.raises(SQLParseError) as err:
            formatter.validate_options(options)
        assert str(err.value) == message


def test_build_filter_stack_adds_nothing_without_options():
    stack = FilterStack()
    assert formatter.build_filter_stack(stack, formatter.validate_options({})) is stack
    assert (stack.preprocess, stack.stmtprocess, stack.postprocess, stack._grouping) == ([], [], [], False)


def test_build_filter_stack_orders_the_filters_and_enables_grouping():
    options = formatter.validate_options({
        "keyword_case": "upper",
        "strip_comments": True,
        "reindent": True,
        "output_format": "php",
    })
    stack = formatter.build_filter_stack(FilterStack(), options)
    assert names(stack.preprocess) == ["KeywordCaseFilter"]
    assert names(stack.stmtprocess) == ["StripCommentsFilter", "StripWhitespaceFilter", "ReindentFilter"]
    assert names(stack.postprocess) == ["OutputPHPFilter"]
    assert stack._grouping is True


def test_build_filter_stack_configures_the_filters_from_the_options():
    options = formatter.validate_options({
        "reindent": True, "indent_tabs": True, "indent_width": 3, "wrap_after": 7, "comma_first": True,
    })
    reindent = formatter.build_filter_stack(FilterStack(), options).stmtprocess[1]
    assert (reindent.char, reindent.width, reindent.wrap_after, reindent.comma_first) == ("\t", 3, 7, True)

    options = formatter.validate_options({
        "identifier_case": "capitalize", "truncate_strings": 5, "output_format": "sql", "right_margin": 30,
    })
    stack = formatter.build_filter_stack(FilterStack(), options)
    assert names(stack.preprocess) == ["IdentifierCaseFilter", "TruncateStringFilter"]
    assert (stack.preprocess[1].width, stack.preprocess[1].char) == (5, "[...]")
    assert names(stack.stmtprocess) == ["RightMarginFilter"]
    assert stack.postprocess == []
