"""Hidden tests of sqlparse/lexer.py (sqlparse 0.5.5).

External tests go through the filter stack (engine/filter_stack.py), which tokenizes
every statement that sqlparse.parse, sqlparse.split and sqlparse.format see. Internal
tests call the Lexer and tokenize directly.
"""

import io

import sqlparse
from sqlparse import keywords
from sqlparse import tokens as T
from sqlparse.lexer import Lexer, tokenize


# External: through sqlparse.parse, split and format (engine/filter_stack.py).
def test_parse_gives_each_token_its_type():
    stmt = sqlparse.parse("SELECT name FROM users WHERE id = 42")[0]
    assert [(t.ttype, t.value) for t in stmt.flatten()] == [
        (T.Keyword.DML, "SELECT"),
        (T.Whitespace, " "),
        (T.Name, "name"),
        (T.Whitespace, " "),
        (T.Keyword, "FROM"),
        (T.Whitespace, " "),
        (T.Name, "users"),
        (T.Whitespace, " "),
        (T.Keyword, "WHERE"),
        (T.Whitespace, " "),
        (T.Name, "id"),
        (T.Whitespace, " "),
        (T.Comparison, "="),
        (T.Whitespace, " "),
        (T.Number.Integer, "42"),
    ]
    assert stmt.get_type() == "SELECT"


def test_split_does_not_split_inside_string_literals():
    assert sqlparse.split("select 1; select 'a;b'; -- c\nselect 2") == [
        "select 1;",
        "select 'a;b'; -- c",
        "select 2",
    ]


def test_format_changes_the_case_of_keywords_only():
    assert sqlparse.format("select Name from Users", keyword_case="upper") == "SELECT Name FROM Users"


def test_format_decodes_bytes_with_the_given_encoding():
    assert sqlparse.format(b"select \xc3\xa9", encoding="utf-8") == "select \xe9"
    assert str(sqlparse.parse(b"select 1")[0]) == "select 1"


# Internal: the Lexer and tokenize.
def test_tokenize_recognises_comments_numbers_and_operators():
    assert list(tokenize("a = 1.5 -- hi\n")) == [
        (T.Name, "a"),
        (T.Whitespace, " "),
        (T.Comparison, "="),
        (T.Whitespace, " "),
        (T.Number.Float, "1.5"),
        (T.Whitespace, " "),
        (T.Comment.Single, "-- hi\n"),
    ]


def test_tokenize_marks_placeholders():
    assert list(tokenize("select $1, :name, ?")) == [
        (T.Keyword.DML, "select"),
        (T.Whitespace, " "),
        (T.Name.Placeholder, "$1"),
        (T.Punctuation, ","),
        (T.Whitespace, " "),
        (T.Name.Placeholder, ":name"),
        (T.Punctuation, ","),
        (T.Whitespace, " "),
        (T.Name.Placeholder, "?"),
    ]


def test_tokenize_yields_an_error_token_for_unknown_characters():
    assert list(tokenize("x \xa4 y")) == [
        (T.Name, "x"),
        (T.Whitespace, " "),
        (T.Error, "\xa4"),
        (T.Whitespace, " "),
        (T.Name, "y"),
    ]


def test_get_tokens_accepts_bytes_and_file_like_objects():
    lexer = Lexer.get_default_instance()
    assert list(lexer.get_tokens("select '\xe9'".encode("latin-1"), "latin-1"))[-1] == (
        T.String.Single,
        "'\xe9'",
    )
    assert list(lexer.get_tokens(b"select '\xc3\xa9'"))[-1] == (T.String.Single, "'\xe9'")
    assert list(lexer.get_tokens(b"select '\xff'"))[-1] == (T.String.Single, "'\xff'")
    assert list(lexer.get_tokens(io.StringIO("select 1"))) == [
        (T.Keyword.DML, "select"),
        (T.Whitespace, " "),
        (T.Number.Integer, "1"),
    ]


def test_get_tokens_refuses_other_types():
    try:
        list(tokenize(42))
    except TypeError as err:
        assert str(err) == "Expected text or file-like object, got <class 'int'>"
    else:
        raise AssertionError("no TypeError")


def test_default_instance_is_shared_and_knows_keywords():
    lexer = Lexer.get_default_instance()
    assert Lexer.get_default_instance() is lexer
    assert lexer.is_keyword("select") == (T.Keyword.DML, "select")
    assert lexer.is_keyword("Varchar") == (T.Name.Builtin, "Varchar")
    assert lexer.is_keyword("foo") == (T.Name, "foo")


def test_a_lexer_can_be_configured_with_its_own_syntax():
    lexer = Lexer()
    lexer.clear()
    lexer.set_SQL_REGEX([
        (r"\s+", T.Whitespace),
        (r"[A-Z]+\b", keywords.PROCESS_AS_KEYWORD),
        (r"\d+", T.Number.Integer),
    ])
    lexer.add_keywords({"FOO": T.Keyword})
    lexer.add_keywords({"FOO": T.Name.Builtin, "BAR": T.Name.Builtin})
    assert list(lexer.get_tokens("foo bar baz 12 !")) == [
        (T.Keyword, "foo"),
        (T.Whitespace, " "),
        (T.Name.Builtin, "bar"),
        (T.Whitespace, " "),
        (T.Name, "baz"),
        (T.Whitespace, " "),
        (T.Number.Integer, "12"),
        (T.Whitespace, " "),
        (T.Error, "!"),
    ]


def test_default_initialization_restores_the_standard_syntax():
    lexer = Lexer()
    lexer.clear()
    assert list(lexer.get_tokens("ab")) == [(T.Error, "a"), (T.Error, "b")]
    lexer.default_initialization()
    assert list(lexer.get_tokens("select x")) == [
        (T.Keyword.DML, "select"),
        (T.Whitespace, " "),
        (T.Name, "x"),
    ]
