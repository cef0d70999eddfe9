"""Hidden tests of click/exceptions.py (click 8.1.7).

External tests run commands with CliRunner: core.py, parser.py and types.py raise
these exceptions, and core.py shows them and turns them into exit codes. Internal
tests build the exceptions and call their methods.
"""

import io

import click
from click.exceptions import (
    Abort,
    BadArgumentUsage,
    BadOptionUsage,
    BadParameter,
    ClickException,
    Exit,
    FileError,
    MissingParameter,
    NoSuchOption,
    UsageError,
    _join_param_hints,
)
from click.testing import CliRunner


@click.command()
@click.option("--name", required=True)
@click.option("--count", type=int, default=1)
@click.option("--mode", default="go")
def cli(name, count, mode):
    if mode == "fail":
        raise click.ClickException("boom")
    if mode == "abort":
        raise click.Abort()
    if mode == "exit":
        click.get_current_context().exit(3)
    if mode == "bad":
        raise click.BadParameter("must be nice", param_hint=["--mode", "-m"])
    click.echo(f"{name} {count}")


def run(*args):
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


USAGE = "Usage: cli [OPTIONS]\nTry 'cli --help' for help.\n\n"


# External: through commands (core.py, parser.py, types.py).
def test_missing_required_option_is_a_usage_error():
    assert run() == (2, USAGE + "Error: Missing option '--name'.\n")


def test_invalid_value_names_the_option():
    assert run("--name", "a", "--count", "x") == (
        2,
        USAGE + "Error: Invalid value for '--count': 'x' is not a valid integer.\n",
    )
    assert run("--name", "a", "--mode", "bad") == (
        2,
        USAGE + "Error: Invalid value for '--mode' / '-m': must be nice\n",
    )


def test_unknown_option_lists_the_possible_options():
    assert run("--nme", "a") == (
        2,
        USAGE + "Error: No such option: --nme (Possible options: --mode, --name)\n",
    )


def test_click_exception_in_a_command_exits_with_one():
    assert run("--name", "a", "--mode", "fail") == (1, "Error: boom\n")


def test_abort_and_exit_set_the_exit_code():
    assert run("--name", "a", "--mode", "abort") == (1, "Aborted!\n")
    assert run("--name", "a", "--mode", "exit") == (3, "")


# Internal: the exception classes.
def test_click_exception_shows_its_message():
    err = ClickException("plain")
    assert (err.exit_code, str(err), err.message, err.format_message()) == (1, "plain", "plain", "plain")
    out = io.StringIO()
    err.show(out)
    assert out.getvalue() == "Error: plain\n"


def test_usage_error_shows_usage_and_help_hint_with_a_context():
    ctx = click.Context(cli, info_name="cli")
    err = UsageError("nope", ctx)
    assert (err.exit_code, err.cmd) == (2, cli)
    out = io.StringIO()
    err.show(out)
    assert out.getvalue() == USAGE + "Error: nope\n"
    out = io.StringIO()
    UsageError("nope").show(out)
    assert out.getvalue() == "Error: nope\n"


def test_bad_parameter_message_uses_the_hint_or_the_parameter():
    assert BadParameter("x").format_message() == "Invalid value: x"
    assert BadParameter("x", param_hint="'--a'").format_message() == "Invalid value for '--a': x"
    assert BadParameter("x", param_hint=["--a", "-a"]).format_message() == "Invalid value for '--a' / '-a': x"
    ctx = click.Context(cli, info_name="cli")
    assert BadParameter("x", ctx=ctx, param=cli.params[0]).format_message() == "Invalid value for '--name': x"


def test_missing_parameter_message_names_the_kind_of_parameter():
    ctx = click.Context(cli, info_name="cli")
    assert MissingParameter(param_type="option", param_hint="'--z'").format_message() == "Missing option '--z'."
    assert MissingParameter(ctx=ctx, param=cli.params[0]).format_message() == "Missing option '--name'."
    assert MissingParameter("why", param_type="argument").format_message() == "Missing argument. why"
    assert MissingParameter(param_type="thing").format_message() == "Missing thing."
    assert str(MissingParameter(ctx=ctx, param=cli.params[0])) == "Missing parameter: name"
    assert str(MissingParameter("msg")) == "msg"


def test_no_such_option_suggests_possibilities():
    assert NoSuchOption("--x").format_message() == "No such option: --x"
    assert NoSuchOption("--x", possibilities=["--xy"]).format_message() == "No such option: --x Did you mean --xy?"
    assert NoSuchOption("--x", possibilities=["--xz", "--xy"]).format_message() == (
        "No such option: --x (Possible options: --xy, --xz)"
    )
    assert NoSuchOption("--x", message="custom").format_message() == "custom"


def test_file_error_names_the_file():
    err = FileError("a.txt", "denied")
    assert (err.filename, err.ui_filename, err.exit_code) == ("a.txt", "a.txt", 1)
    assert err.format_message() == "Could not open file 'a.txt': denied"
    assert FileError(b"b.txt").format_message() == "Could not open file 'b.txt': unknown error"


def test_join_param_hints_quotes_lists():
    assert _join_param_hints(None) is None
    assert _join_param_hints("'-a'") == "'-a'"
    assert _join_param_hints(["-a", "--all"]) == "'-a' / '--all'"


def test_exit_abort_and_usage_subclasses():
    assert (Exit().exit_code, Exit(4).exit_code) == (0, 4)
    assert isinstance(Abort(), RuntimeError)
    assert BadOptionUsage("--o", "bad").option_name == "--o"
    assert BadArgumentUsage("m").exit_code == 2
    assert issubclass(MissingParameter, BadParameter) and issubclass(NoSuchOption, UsageError)
