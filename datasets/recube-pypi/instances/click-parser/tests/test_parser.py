"""Hidden tests of click/parser.py (click 8.1.7).

External tests parse command lines the way core.py does (every command's options and
arguments go through OptionParser) and split completion input the way
shell_completion.py does. Internal tests call the parser's functions directly.
"""

import click
from click.parser import OptionParser, _unpack_args, normalize_opt, split_arg_string, split_opt
from click.shell_completion import ShellComplete
from click.testing import CliRunner


@click.command()
@click.option("-v", "--verbose", count=True)
@click.option("-n", "--name", default="world")
@click.option("--pair", nargs=2, type=int)
@click.option("--flag/--no-flag", default=False)
@click.argument("files", nargs=-1)
def tool(verbose, name, pair, flag, files):
    click.echo(f"{verbose}|{name}|{pair}|{flag}|{','.join(files)}")


def run(*args):
    result = CliRunner().invoke(tool, list(args))
    return result.exit_code, result.output.strip()


# External: through commands (core.py) and completion (shell_completion.py).
def test_short_options_combine_and_count():
    assert run("-vvv", "a.txt") == (0, "3|world|None|False|a.txt")


def test_long_options_take_values_with_or_without_equals():
    assert run("--name=alice", "--pair", "1", "2") == (0, "0|alice|(1, 2)|False|")
    assert run("--name", "bob") == (0, "0|bob|None|False|")


def test_double_dash_ends_options():
    assert run("--", "-v", "--name") == (0, "0|world|None|False|-v,--name")


def test_unknown_option_is_an_error_with_a_suggestion():
    code, out = run("--nam", "x")
    assert code == 2
    assert "No such option: --nam" in out
    assert "--name" in out


def test_completion_splits_the_typed_line():
    class Probe(ShellComplete):
        def get_completion_args(self):
            return split_arg_string("tool --name 'two words' pa"), "pa"

    args, incomplete = Probe(tool, {}, "tool", "_TOOL_COMPLETE").get_completion_args()
    assert args == ["tool", "--name", "two words", "pa"]


# Internal: the parser's functions.
def test_split_opt():
    assert split_opt("--foo") == ("--", "foo")
    assert split_opt("-f") == ("-", "f")
    assert split_opt("/debug") == ("/", "debug")
    assert split_opt("plain") == ("", "plain")


def test_normalize_opt_uses_the_context_token_normalizer():
    ctx = click.Context(tool, token_normalize_func=str.lower)
    assert normalize_opt("--NAME", ctx) == "--name"
    assert normalize_opt("--NAME", None) == "--NAME"


def test_split_arg_string_handles_quotes_and_unfinished_input():
    assert split_arg_string("a 'b c' \"d e\" f\\ g") == ["a", "b c", "d e", "f g"]
    assert split_arg_string("cmd 'unfinished") == ["cmd", "unfinished"]


def test_unpack_args_fills_fixed_and_variadic_slots():
    assert _unpack_args(["a", "b", "c", "d"], [1, -1, 1]) == (("a", ("b", "c"), "d"), [])
    assert _unpack_args(["a"], [1, 2]) == (("a", (None, None)), [])


def test_option_parser_parses_options_and_arguments():
    parser = OptionParser()
    parser.add_option(click.Option(["-x", "--ex"]), ["-x", "--ex"], dest="ex", action="store")
    parser.add_option(click.Option(["-q"], is_flag=True), ["-q"], dest="q", action="store_const", const=True)
    parser.add_argument(click.Argument(["rest"], nargs=-1), "rest", nargs=-1)
    opts, largs, order = parser.parse_args(["-q", "--ex", "1", "a", "b"])
    assert opts == {"q": True, "ex": "1", "rest": ("a", "b")}
    assert largs == []


def test_option_parser_stops_at_interspersed_arguments_when_told():
    parser = OptionParser()
    parser.allow_interspersed_args = False
    parser.add_option(click.Option(["-x"], is_flag=True), ["-x"], dest="x", action="store_const", const=1)
    opts, largs, _ = parser.parse_args(["a", "-x"])
    assert opts == {}
    assert largs == ["a", "-x"]


def test_option_parser_ignores_unknown_options_when_told():
    parser = OptionParser()
    parser.ignore_unknown_options = True
    parser.add_option(click.Option(["-x"], is_flag=True), ["-x"], dest="x", action="store_const", const=1)
    opts, largs, _ = parser.parse_args(["--unknown", "-x"])
    assert opts == {"x": 1}
    assert largs == ["--unknown"]
