"""Hidden tests of click/termui.py (click 8.1.7).

External tests run commands with CliRunner: core.py asks for missing option values
with prompt, for boolean flags with confirm, and styles the deprecation warning with
style. Internal tests call the terminal helpers directly, with CliRunner's isolation
standing in for the terminal.
"""

import io

import click
from click import termui
from click.testing import CliRunner
from click.utils import LazyFile


def run(cmd, *args, **kwargs):
    result = CliRunner().invoke(cmd, list(args), **kwargs)
    return result.exit_code, result.output


@click.command()
@click.option("--name", prompt=True)
@click.option("--city", prompt="Your city", default="Paris")
def form(name, city):
    click.echo(f"{name}|{city}")


@click.command()
@click.option("--force/--no-force", prompt="Really", default=False)
@click.option("--size", prompt=True, type=click.Choice(["s", "m"]))
def choose(force, size):
    click.echo(f"{force}|{size}")


# External: through options and commands (core.py).
def test_options_prompt_for_missing_values_and_show_defaults():
    assert run(form, input="Ann\n\n") == (0, "Name: Ann\nYour city [Paris]: \nAnn|Paris\n")
    assert run(form, "--name", "Bo", input="Rome\n") == (0, "Your city [Paris]: Rome\nBo|Rome\n")


def test_choice_options_prompt_again_after_an_invalid_answer():
    assert run(choose, input="\nx\nm\n") == (
        0,
        "Really [y/N]: \nSize (s, m): x\nError: 'x' is not one of 's', 'm'.\nSize (s, m): m\nFalse|m\n",
    )


def test_boolean_flags_ask_a_yes_no_question():
    assert run(choose, input="maybe\nyes\ns\n") == (
        0,
        "Really [y/N]: maybe\nError: invalid input\nReally [y/N]: yes\nSize (s, m): s\nTrue|s\n",
    )


def test_hidden_prompts_are_repeated_until_both_entries_match():
    @click.command()
    @click.option("--secret", prompt=True, hide_input=True, confirmation_prompt=True)
    def sec(secret):
        click.echo(secret)

    assert run(sec, input="a\nb\nc\nc\n") == (
        0,
        "Secret: \nRepeat for confirmation: \nError: The two entered values do not match.\n"
        "Secret: \nRepeat for confirmation: \nc\n",
    )


def test_deprecated_commands_warn_in_red():
    @click.command(deprecated=True)
    def old():
        click.echo("ran")

    result = CliRunner(mix_stderr=False).invoke(old)
    assert (result.stdout, result.stderr) == ("ran\n", "DeprecationWarning: The command 'old' is deprecated.\n")
    result = CliRunner(mix_stderr=False).invoke(old, color=True)
    assert result.stderr == "\x1b[31mDeprecationWarning: The command 'old' is deprecated.\x1b[0m\n"


# Internal: the terminal helpers.
def test_style_builds_ansi_codes():
    assert click.style("x", fg="red", bg="blue", bold=True, underline=True) == "\x1b[31m\x1b[44m\x1b[1m\x1b[4mx\x1b[0m"
    assert click.style("x", fg=(255, 0, 10)) == "\x1b[38;2;255;0;10mx\x1b[0m"
    assert click.style("x", fg=202, reset=False) == "\x1b[38;5;202mx"
    assert click.style(
        "x", fg="bright_green", dim=True, italic=True, blink=True, reverse=True, strikethrough=True, overline=True
    ) == "\x1b[92m\x1b[2m\x1b[53m\x1b[3m\x1b[5m\x1b[7m\x1b[9mx\x1b[0m"
    assert click.style(5, bold=False) == "\x1b[22m5\x1b[0m"


def test_unknown_colors_are_refused_and_unstyle_removes_codes():
    try:
        click.style("x", fg="purple")
    except TypeError as err:
        assert str(err) == "Unknown color 'purple'"
    else:
        raise AssertionError("no TypeError")
    assert click.unstyle("\x1b[31mred\x1b[0m and \x1b[1mbold\x1b[0m") == "red and bold"


def test_secho_styles_then_echoes():
    out = io.StringIO()
    click.secho("hi", file=out, fg="green", color=True)
    click.secho("plain", file=out, fg="green", color=False)
    assert out.getvalue() == "\x1b[32mhi\x1b[0m\nplain\n"


def test_build_prompt_adds_choices_default_and_suffix():
    choice = click.Choice(["a", "b"])
    assert termui._build_prompt("Pick", ": ", True, "a", True, choice) == "Pick (a, b) [a]: "
    assert termui._build_prompt("Pick", "? ", False, "a", False, choice) == "Pick? "
    assert termui._build_prompt("N", ": ", True, 3) == "N [3]: "
    assert termui._format_default(LazyFile("/nonexistent/x.txt", "w")) == "/nonexistent/x.txt"
    assert termui._format_default(7) == 7


def test_prompt_uses_defaults_types_and_value_procs():
    runner = CliRunner()
    with runner.isolation(input="\n12\n") as (out, _):
        count = click.prompt("Count", default=5)
        num = click.prompt("Num", type=int, prompt_suffix="> ")
    assert (count, num) == (5, 12)
    assert out.getvalue() == b"Count [5]: \nNum> 12\n"
    with runner.isolation(input="abc\n") as (out, _):
        word = click.prompt("Word", value_proc=str.upper, show_default=False, default="z")
    assert word == "ABC"
    assert out.getvalue() == b"Word: abc\n"


def test_confirm_reads_yes_no_and_can_abort():
    with CliRunner().isolation(input="maybe\n\nyes\nn\n") as (out, _):
        first = click.confirm("Go", default=None)
        second = click.confirm("Stop", default=True)
        try:
            click.confirm("Sure", abort=True)
            third = "no abort"
        except click.Abort:
            third = "abort"
    assert (first, second, third) == (True, False, "abort")
    assert out.getvalue() == (
        b"Go [y/n]: maybe\nError: invalid input\nGo [y/n]: \nError: invalid input\n"
        b"Go [y/n]: yes\nStop [Y/n]: n\nSure [y/N]: \n"
    )


def test_progressbar_outside_a_terminal_prints_only_its_label():
    with CliRunner().isolation() as (out, _):
        with click.progressbar([1, 2, 3], label="Work") as bar:
            total = sum(bar)
    assert total == 6
    assert out.getvalue() == b"Work\n"
    with CliRunner().isolation():
        with click.progressbar(length=4) as bar:
            bar.update(2)
            assert (bar.pos, bar.length, bar.pct) == (2, 4, 0.5)
