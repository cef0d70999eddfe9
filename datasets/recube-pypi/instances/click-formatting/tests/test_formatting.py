"""Hidden tests of click/formatting.py (click 8.1.7).

External tests go through core.py, which builds every help page with HelpFormatter and
joins option names with join_options. Internal tests drive the formatter and its helpers
directly.
"""

import click
from click.formatting import (
    HelpFormatter,
    iter_rows,
    join_options,
    measure_table,
    wrap_text,
)
from click.testing import CliRunner


@click.command()
@click.option("--count", "-c", default=1, help="How many times to greet.")
@click.option("--name", help="Who to greet; a longer help text that has to wrap when the terminal is narrow enough to need it.")
@click.argument("path", required=False)
def greet(count, name, path):
    """Greet someone.

    This command greets NAME COUNT times.
    """


# External: help pages made by core.py.
def test_help_page_has_usage_sections_and_options():
    out = CliRunner().invoke(greet, ["--help"], terminal_width=80).output
    assert out.startswith("Usage: greet [OPTIONS] [PATH]\n")
    assert "\nOptions:\n" in out
    assert "  -c, --count INTEGER  How many times to greet." in out


def test_help_text_wraps_to_the_width():
    out = CliRunner().invoke(greet, ["--help"], terminal_width=60).output
    assert max(len(line) for line in out.splitlines()) <= 60


def test_option_names_are_joined_short_first():
    opts = [p for p in greet.params if p.name == "count"][0]
    record = opts.get_help_record(click.Context(greet))
    assert record[0].startswith("-c, --count")


def test_group_lists_its_commands():
    @click.group()
    def cli():
        pass

    @cli.command(help="Add things.")
    def add():
        pass

    out = CliRunner().invoke(cli, ["--help"]).output
    assert "Commands:\n  add  Add things." in out


# Internal: the formatter and its helpers.
def test_join_options_reports_slash_prefixes():
    assert join_options(["--foo", "-f"]) == ("-f, --foo", False)
    assert join_options(["/debug"]) == ("/debug", True)


def test_measure_table_and_iter_rows():
    rows = [("a", "bbb"), ("cccc", "d")]
    assert measure_table(rows) == (4, 3)
    assert list(iter_rows([("x",)], 2)) == [("x", "")]


def test_wrap_text_keeps_paragraphs_and_indents():
    text = "one two three four five six\n\nseven eight"
    assert wrap_text(text, width=12) == "one two\nthree four\nfive six\nseven eight"
    assert (
        wrap_text(text, width=12, preserve_paragraphs=True)
        == "one two\nthree four\nfive six\n\nseven eight"
    )
    assert wrap_text("a b c", width=20, initial_indent="> ") == "> a b c"


def test_wrap_text_keeps_rewrap_blocks_verbatim():
    text = "\b\nkeep   this\nas is"
    assert wrap_text(text, width=5, preserve_paragraphs=True) == "keep   this\nas is"


def test_write_usage_and_heading():
    f = HelpFormatter(width=40)
    f.write_usage("prog", "[OPTIONS] FILE")
    f.write_heading("Options")
    assert f.getvalue() == "Usage: prog [OPTIONS] FILE\nOptions:\n"


def test_indentation_and_section():
    f = HelpFormatter(width=40)
    with f.section("Things"):
        f.write_text("indented text")
    assert f.getvalue() == "Things:\n  indented text\n"
    f.write_text("after")
    assert f.getvalue().endswith("  indented text\nafter\n")


def test_write_dl_aligns_the_second_column():
    f = HelpFormatter(width=40)
    f.write_dl([("-a", "first"), ("--long-name", "second")])
    assert f.getvalue() == "-a           first\n--long-name  second\n"


def test_write_paragraph_only_after_text():
    f = HelpFormatter()
    f.write_paragraph()
    assert f.getvalue() == ""
    f.write("x")
    f.write_paragraph()
    assert f.getvalue() == "x\n"
