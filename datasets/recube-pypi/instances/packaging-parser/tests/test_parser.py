"""Hidden tests of packaging/_parser.py (packaging 24.2).

External tests go through requirements and markers, which build Requirement and Marker
objects from parse_requirement's and parse_marker's results and report their syntax
errors. Internal tests call the parser's functions and node classes directly.
"""

import pytest

from packaging._parser import (
    Op,
    ParsedRequirement,
    Value,
    Variable,
    parse_marker,
    parse_requirement,
    process_env_var,
    process_python_str,
)
from packaging._tokenizer import ParserSyntaxError
from packaging.markers import InvalidMarker, Marker
from packaging.requirements import InvalidRequirement, Requirement


# External: through requirements.py and markers.py.
def test_requirement_takes_its_parts_from_the_parser():
    req = Requirement("Name [a, b] (>=1.0, <2) ; python_version > '3'")
    assert req.name == "Name"
    assert req.extras == {"a", "b"}
    assert str(req.specifier) == "<2,>=1.0"
    assert str(req.marker) == 'python_version > "3"'


def test_requirement_url_then_marker():
    req = Requirement('pkg@https://x.org/p.whl ; os_name=="nt"')
    assert req.url == "https://x.org/p.whl"
    assert str(req.marker) == 'os_name == "nt"'


def test_requirement_error_message_points_at_the_problem():
    with pytest.raises(InvalidRequirement) as excinfo:
        Requirement("pkg>=")
    assert str(excinfo.value) == (
        "Expected end or semicolon (after name and no valid version specifier)\n"
        "    pkg>=\n"
        "       ^"
    )


def test_marker_renames_legacy_variables():
    marker = Marker("os.name == 'nt' and python_implementation != 'PyPy'")
    assert str(marker) == 'os_name == "nt" and platform_python_implementation != "PyPy"'


def test_marker_reports_a_missing_operator():
    with pytest.raises(InvalidMarker) as excinfo:
        Marker("os_name 'nt'")
    assert str(excinfo.value).startswith(
        "Expected marker operator, one of <=, <, !=, ==, >=, >, ~=, ===, in, not in"
    )


# Internal: the parser's functions and nodes.
def test_parse_requirement_returns_a_parsed_requirement():
    parsed = parse_requirement("Name [a, b] (>=1.0, <2) ; python_version > '3'")
    assert isinstance(parsed, ParsedRequirement)
    assert parsed.name == "Name"
    assert parsed.url == ""
    assert parsed.extras == ["a", "b"]
    assert parsed.specifier == ">=1.0,<2"
    assert [(str(a), str(b), str(c)) for a, b, c in parsed.marker] == [("python_version", ">", "3")]


def test_parse_requirement_with_url_and_nothing_else():
    parsed = parse_requirement("pkg @ file:///tmp/pkg.tar.gz")
    assert parsed == ParsedRequirement("pkg", "file:///tmp/pkg.tar.gz", [], "", None)


def test_parse_requirement_needs_whitespace_before_a_marker_after_url():
    parsed = parse_requirement('pkg @ https://x.org/p.whl;os_name=="nt"')
    assert parsed.url == 'https://x.org/p.whl;os_name=="nt"'
    assert parsed.marker is None


def test_parse_requirement_errors_carry_a_span():
    with pytest.raises(ParserSyntaxError) as excinfo:
        parse_requirement("pkg ==")
    assert excinfo.value.message == "Expected end or semicolon (after name and no valid version specifier)"
    assert excinfo.value.span == (4, 4)
    with pytest.raises(ParserSyntaxError) as excinfo:
        parse_requirement("pkg[a")
    assert excinfo.value.message == "Expected matching RIGHT_BRACKET for LEFT_BRACKET, after extras"


def test_parse_marker_nests_parenthesised_groups():
    result = parse_marker("os_name == 'nt' and (python_version < '3' or 'x' not in sys_platform)")
    assert len(result) == 3
    first, joiner, group = result
    assert [type(node) for node in first] == [Variable, Op, Value]
    assert joiner == "and"
    assert [str(node) for node in group[0]] == ["python_version", "<", "3"]
    assert group[1] == "or"
    assert [repr(node) for node in group[2]] == ["<Value('x')>", "<Op('not in')>", "<Variable('sys_platform')>"]


def test_parse_marker_refuses_unbalanced_parentheses():
    with pytest.raises(ParserSyntaxError):
        parse_marker("(os_name == 'nt'")
    with pytest.raises(ParserSyntaxError):
        parse_marker("os_name == 'nt' and")


def test_nodes_serialize_by_kind():
    assert Variable("os_name").serialize() == "os_name"
    assert Value("nt").serialize() == '"nt"'
    assert Op("not in").serialize() == "not in"
    assert str(Value("nt")) == "nt"
    assert repr(Op("==")) == "<Op('==')>"


def test_process_env_var_and_python_str():
    assert process_env_var("python_implementation").value == "platform_python_implementation"
    assert process_env_var("os_name").value == "os_name"
    assert isinstance(process_env_var("os_name"), Variable)
    value = process_python_str("'it\\'s'")
    assert isinstance(value, Value)
    assert value.value == "it's"
