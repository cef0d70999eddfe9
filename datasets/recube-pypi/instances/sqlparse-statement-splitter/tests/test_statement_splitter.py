"""Hidden tests of sqlparse/engine/statement_splitter.py (sqlparse 0.5.5).

External tests go through the filter stack (engine/filter_stack.py), which splits the
token stream into statements for sqlparse.split, sqlparse.parse and sqlparse.format.
Internal tests run StatementSplitter over tokenized text and call its level logic.
"""

import sqlparse
from sqlparse import sql
from sqlparse import tokens as T
from sqlparse.engine.statement_splitter import StatementSplitter
from sqlparse.lexer import tokenize


def split(text):
    return [str(stmt) for stmt in StatementSplitter().process(tokenize(text))]


# External: through sqlparse.split, parse and format (engine/filter_stack.py).
def test_split_returns_one_string_per_statement():
    assert sqlparse.split("select 1;select 2;  \n\n select 3") == ["select 1;", "select 2;", "select 3"]


def test_split_can_strip_the_semicolons():
    assert sqlparse.split("select 1;select 2;  \n\n select 3", strip_semicolon=True) == [
        "select 1",
        "select 2",
        "select 3",
    ]


def test_parse_gives_one_statement_per_semicolon():
    stmts = sqlparse.parse("insert into t values (1); update t set a = 2;")
    assert [s.get_type() for s in stmts] == ["INSERT", "UPDATE"]


def test_format_formats_each_statement():
    assert sqlparse.format("select 1; select 2;", keyword_case="upper") == "SELECT 1;SELECT 2;"


def test_split_keeps_a_procedure_body_in_one_statement():
    assert sqlparse.split(
        "CREATE PROCEDURE p() BEGIN IF x THEN select 1; END IF; select 2; END; select 3;"
    ) == [
        "CREATE PROCEDURE p() BEGIN IF x THEN select 1; END IF; select 2; END;",
        "select 3;",
    ]


# Internal: StatementSplitter itself.
def test_process_yields_statements_of_tokens():
    stmts = list(StatementSplitter().process(tokenize("select 1; select 2")))
    assert all(isinstance(s, sql.Statement) for s in stmts)
    assert [[(t.ttype, t.value) for t in s.tokens] for s in stmts] == [
        [(T.Keyword.DML, "select"), (T.Whitespace, " "), (T.Number.Integer, "1"),
         (T.Punctuation, ";"), (T.Whitespace, " ")],
        [(T.Keyword.DML, "select"), (T.Whitespace, " "), (T.Number.Integer, "2")],
    ]


def test_whitespace_and_line_comments_stay_with_the_previous_statement():
    assert split("select 1; -- one\nselect 2; /* two */ select 3") == [
        "select 1; -- one\n",
        "select 2; ",
        "/* two */ select 3",
    ]


def test_semicolons_inside_parentheses_do_not_split():
    assert split("select (1;2); select 3") == ["select (1;2); ", "select 3"]


def test_go_ends_a_statement():
    assert split("select 1\nGO\nselect 2\nGO 2\nselect 3") == [
        "select 1\nGO",
        "\nselect 2\nGO 2",
        "\nselect 3",
    ]


def test_begin_as_a_transaction_does_not_open_a_block():
    assert split("BEGIN; insert into t values (1); COMMIT;") == [
        "BEGIN; ",
        "insert into t values (1); ",
        "COMMIT;",
    ]
    assert split("BEGIN TRANSACTION; select 1; END;") == ["BEGIN TRANSACTION; ", "select 1; ", "END;"]


def test_case_inside_a_create_block_ends_with_its_own_end():
    assert split(
        "create trigger t before insert on x for each row "
        "begin set new.a = case when 1 then 2 else 3 end; end; select 9;"
    ) == [
        "create trigger t before insert on x for each row "
        "begin set new.a = case when 1 then 2 else 3 end; end; ",
        "select 9;",
    ]


def test_blank_input_gives_no_statement():
    assert split("") == []
    assert split("   \n  ") == []
    assert split("select 1;   ") == ["select 1;   "]


def test_change_splitlevel_counts_parentheses_and_blocks():
    splitter = StatementSplitter()
    assert splitter.level == 0 and splitter.tokens == [] and splitter.consume_ws is False
    assert splitter._change_splitlevel(T.Punctuation, "(") == 1
    assert splitter._change_splitlevel(T.Punctuation, ")") == -1
    assert splitter._change_splitlevel(T.Name, "x") == 0
    assert splitter._change_splitlevel(T.Keyword, "END IF") == -1
    assert splitter._change_splitlevel(T.Keyword.DDL, "create") == 0
    assert splitter._is_create is True
    assert splitter._change_splitlevel(T.Keyword, "BEGIN") == 1
    assert splitter._begin_depth == 1
    assert splitter._change_splitlevel(T.Keyword, "IF") == 1
