"""Hidden tests of packaging/_tokenizer.py (packaging 24.2).

External tests go through the parsers that use the tokenizer (requirements, markers):
what they accept and how their syntax errors point at the source. Internal tests drive
the Tokenizer and ParserSyntaxError directly.
"""

import pytest

from packaging._tokenizer import DEFAULT_RULES, ParserSyntaxError, Token, Tokenizer
from packaging.markers import InvalidMarker, Marker
from packaging.requirements import InvalidRequirement, Requirement


# External: requirements.py and markers.py parse through the tokenizer.
def test_requirement_tokens_are_read_in_order():
    req = Requirement('name[quux, strange] >=1.0, <2 ; python_version < "3.8"')
    assert req.name == "name"
    assert req.extras == {"quux", "strange"}
    assert str(req.specifier) == "<2,>=1.0"
    assert str(req.marker) == 'python_version < "3.8"'


def test_requirement_error_points_at_the_bad_token():
    with pytest.raises(InvalidRequirement) as caught:
        Requirement("name >= 1.0 bad")
    message = str(caught.value)
    assert "bad" in message
    assert "^" in message.splitlines()[-1]


def test_unclosed_bracket_names_what_is_missing():
    with pytest.raises(InvalidRequirement) as caught:
        Requirement("name[extra")
    assert "Expected matching RIGHT_BRACKET for LEFT_BRACKET" in str(caught.value)


def test_marker_with_parentheses_and_boolean_operators():
    marker = Marker('(os_name == "nt" or os_name == "posix") and python_version >= "3"')
    assert marker.evaluate({"os_name": "posix", "python_version": "3.12"})
    assert not marker.evaluate({"os_name": "java", "python_version": "3.12"})


def test_marker_error_is_invalid_marker():
    with pytest.raises(InvalidMarker) as caught:
        Marker('os_name === "nt" and')
    assert "Expected" in str(caught.value)


# Internal: the tokenizer itself.
def test_check_peek_does_not_load_the_token():
    t = Tokenizer("(a)", rules=DEFAULT_RULES)
    assert t.check("LEFT_PARENTHESIS", peek=True)
    assert t.next_token is None
    assert t.check("LEFT_PARENTHESIS")
    assert t.next_token == Token("LEFT_PARENTHESIS", "(", 0)


def test_read_advances_the_position():
    t = Tokenizer("name ;", rules=DEFAULT_RULES)
    assert t.check("IDENTIFIER")
    token = t.read()
    assert (token.name, token.text, token.position) == ("IDENTIFIER", "name", 0)
    assert t.position == 4
    assert t.next_token is None


def test_consume_skips_only_a_matching_token():
    t = Tokenizer("   x", rules=DEFAULT_RULES)
    t.consume("COMMA")
    assert t.position == 0
    t.consume("WS")
    assert t.position == 3


def test_expect_raises_a_syntax_error_at_the_position():
    t = Tokenizer("abc", rules=DEFAULT_RULES)
    with pytest.raises(ParserSyntaxError) as caught:
        t.expect("COMMA", expected="a comma")
    assert caught.value.message == "Expected a comma"
    assert caught.value.span == (0, 0)


def test_syntax_error_text_marks_the_span():
    error = ParserSyntaxError("Bad thing", source="abc def", span=(4, 7))
    assert str(error) == "Bad thing\n    abc def\n        ~~~^"


def test_enclosing_tokens_require_the_closing_token():
    t = Tokenizer("[a", rules=DEFAULT_RULES)
    with pytest.raises(ParserSyntaxError) as caught:
        with t.enclosing_tokens("LEFT_BRACKET", "RIGHT_BRACKET", around="extras"):
            t.expect("IDENTIFIER", expected="extra name")
    assert caught.value.message == "Expected matching RIGHT_BRACKET for LEFT_BRACKET, after extras"
    assert caught.value.span == (0, 2)


def test_check_refuses_an_unknown_rule():
    t = Tokenizer("x", rules=DEFAULT_RULES)
    with pytest.raises(AssertionError):
        t.check("NO_SUCH_RULE")
