"""Hidden tests of tomlkit/toml_char.py (tomlkit 0.13.3).

External tests go through the callers in tomlkit: source.py wraps every character of
the input in a `TOMLChar`, and the parser (parser.py) asks those characters whether they
are bare-key characters, key/value separators, spaces or newlines. Internal tests use
`TOMLChar` directly.
"""

import pytest

import tomlkit
from tomlkit.exceptions import UnexpectedCharError
from tomlkit.source import Source
from tomlkit.toml_char import TOMLChar


# External: through source.py and the parser.
def test_parse_reads_bare_keys_of_letters_digits_dashes_and_underscores():
    assert tomlkit.parse("a-b_C9 = 1").unwrap() == {"a-b_C9": 1}


def test_parse_refuses_a_character_outside_bare_keys():
    with pytest.raises(UnexpectedCharError, match=r"Unexpected character: '\$' at line 1 col 1"):
        tomlkit.parse("a$b = 1")


def test_parse_accepts_tabs_and_spaces_around_the_separator():
    assert tomlkit.parse("a\t=\t1\nb =2\n[ t ]\n  k = 1 # c\n").unwrap() == {"a": 1, "b": 2, "t": {"k": 1}}


def test_parse_keeps_windows_newlines():
    doc = tomlkit.parse("a = 1\r\nb = 2\r\n")
    assert doc.unwrap() == {"a": 1, "b": 2}
    assert doc.as_string() == "a = 1\r\nb = 2\r\n"


def test_source_wraps_its_characters():
    src = Source("ab c")
    assert isinstance(src.current, TOMLChar)
    assert src.current == "a" and src.current.is_bare_key_char()


# Internal: TOMLChar itself.
def test_a_toml_char_is_a_one_character_string():
    c = TOMLChar("x")
    assert isinstance(c, str) and c == "x"
    assert TOMLChar("") == ""


def test_a_longer_string_is_refused():
    with pytest.raises(ValueError, match="A TOML character must be of length 1"):
        TOMLChar("ab")


def test_bare_key_characters():
    assert all(TOMLChar(c).is_bare_key_char() for c in "aZ09-_")
    assert not any(TOMLChar(c).is_bare_key_char() for c in ". =\"'$")


def test_key_value_separators():
    assert all(TOMLChar(c).is_kv_sep() for c in "= \t")
    assert not any(TOMLChar(c).is_kv_sep() for c in ":\na")


def test_integer_and_float_characters():
    assert all(TOMLChar(c).is_int_float_char() for c in "0123456789+-_.e")
    assert not any(TOMLChar(c).is_int_float_char() for c in "xE ")


def test_whitespace_newlines_and_spaces():
    assert TOMLChar(" ").is_ws() and TOMLChar("\t").is_ws() and TOMLChar("\n").is_ws() and TOMLChar("\r").is_ws()
    assert TOMLChar("\n").is_nl() and TOMLChar("\r").is_nl() and not TOMLChar(" ").is_nl()
    assert TOMLChar(" ").is_spaces() and TOMLChar("\t").is_spaces() and not TOMLChar("\n").is_spaces()


def test_character_class_constants():
    assert TOMLChar.SPACES == " \t"
    assert TOMLChar.NL == "\n\r"
    assert TOMLChar.WS == " \t\n\r"
    assert TOMLChar.KV == "= \t"
