"""Hidden tests of click/decorators.py (click 8.1.7).

External tests build command trees with Group.command and Group.group, which core.py
implements by calling this file's command decorator, and run them with CliRunner.
Internal tests use the decorators directly: command, group, option, argument, the
pass_* decorators and the ready-made options.
"""

import click
from click.decorators import pass_meta_key
from click.testing import CliRunner


def run(cmd, *args, **kwargs):
    result = CliRunner().invoke(cmd, list(args), **kwargs)
    return result.exit_code, result.output


class Loud(click.Command):
    def invoke(self, ctx):
        click.echo("LOUD")
        return super().invoke(ctx)


def make_tree():
    @click.group()
    def grp():
        """Top group."""

    @grp.command()
    @click.option("--count", default=1)
    @click.argument("name")
    def sync_all(count, name):
        """Sync everything. More here."""
        click.echo(f"{name}*{count}")

    @grp.command
    def bare():
        click.echo("bare")

    @grp.group()
    def sub():
        pass

    @sub.command("leaf", help="A leaf.")
    def leaf_fn():
        click.echo("leaf")

    @grp.command(cls=Loud)
    def shout():
        click.echo("shout")

    return grp


# External: through Group.command and Group.group (core.py).
def test_group_command_names_subcommands_after_their_functions():
    grp = make_tree()
    assert sorted(grp.commands) == ["bare", "shout", "sub", "sync-all"]
    assert run(grp, "sync-all", "x", "--count", "3") == (0, "x*3\n")


def test_group_command_takes_help_from_the_docstring():
    grp = make_tree()
    assert run(grp, "sync-all", "--help") == (
        0,
        "Usage: grp sync-all [OPTIONS] NAME\n\n  Sync everything. More here.\n\n"
        "Options:\n  --count INTEGER\n  --help           Show this message and exit.\n",
    )
    assert "  sync-all  Sync everything.\n" in run(grp, "--help")[1]


def test_group_command_works_without_parentheses():
    assert run(make_tree(), "bare") == (0, "bare\n")


def test_group_group_nests_a_group_with_named_commands():
    grp = make_tree()
    assert isinstance(grp.commands["sub"], click.Group)
    assert run(grp, "sub", "leaf") == (0, "leaf\n")
    assert grp.commands["sub"].commands["leaf"].help == "A leaf."


def test_group_command_uses_the_given_class():
    grp = make_tree()
    assert type(grp.commands["shout"]) is Loud
    assert run(grp, "shout") == (0, "LOUD\nshout\n")


# Internal: the decorators themselves.
def test_command_collects_parameters_in_declaration_order():
    @click.command(params=[click.Option(["--first"])])
    @click.option("--a")
    @click.option("--b")
    @click.argument("c")
    def order(first, a, b, c):
        pass

    assert [p.name for p in order.params] == ["first", "a", "b", "c"]
    assert (order.name, order.help, order.callback.__name__) == ("order", None, "order")

    def plain():
        pass

    click.option("--z")(plain)
    click.argument("y")(plain)
    assert [p.name for p in plain.__click_params__] == ["z", "y"]
    cmd = click.command()(plain)
    click.option("--late")(cmd)
    assert [p.name for p in cmd.params] == ["y", "z", "late"]
    assert not hasattr(plain, "__click_params__")


def test_command_and_group_without_parentheses_and_twice():
    @click.command
    def simple_thing():
        """Doc."""

    assert (simple_thing.name, simple_thing.help, type(simple_thing)) == ("simple-thing", "Doc.", click.Command)

    @click.group
    def g2():
        pass

    assert (type(g2), g2.name) == (click.Group, "g2")
    try:
        click.command()(simple_thing)
    except TypeError as err:
        assert str(err) == "Attempted to convert a callback into a command twice."
    else:
        raise AssertionError("no TypeError")


def test_option_and_argument_accept_a_class():
    class MyOpt(click.Option):
        pass

    class MyArg(click.Argument):
        pass

    @click.command()
    @click.option("--o", cls=MyOpt)
    @click.argument("a", cls=MyArg)
    def custom(o, a):
        pass

    assert [type(p) for p in custom.params] == [MyOpt, MyArg]


def test_pass_context_and_pass_obj():
    @click.command()
    @click.pass_context
    def show_ctx(ctx):
        click.echo(f"{ctx.info_name} {ctx.obj}")

    @click.command()
    @click.pass_obj
    def show_obj(obj):
        click.echo(repr(obj))

    assert run(show_ctx, obj={"k": 1}) == (0, "show-ctx {'k': 1}\n")
    assert run(show_obj, obj=[1, 2]) == (0, "[1, 2]\n")


def test_make_pass_decorator_finds_or_creates_the_object():
    class Store:
        def __init__(self):
            self.items = ["new"]

    @click.command()
    @click.make_pass_decorator(Store, ensure=True)
    def use_store(store):
        click.echo(store.items)

    @click.command()
    @click.make_pass_decorator(Store)
    def need_store(store):
        pass

    assert run(use_store) == (0, "['new']\n")
    result = CliRunner().invoke(need_store)
    assert isinstance(result.exception, RuntimeError)
    assert str(result.exception) == "Managed to invoke callback without a context object of type 'Store' existing."


def test_pass_meta_key_passes_a_meta_value_and_documents_it():
    pass_db = pass_meta_key("db", doc_description="the database")
    assert pass_db.__doc__ == "Decorator that passes the database as the first argument to the decorated function."
    assert pass_meta_key("x").__doc__ == (
        "Decorator that passes the 'x' key from :attr:`click.Context.meta` as the first argument"
        " to the decorated function."
    )

    @click.command()
    @pass_db
    def meta(db):
        return db

    ctx = click.Context(meta, info_name="meta")
    ctx.meta["db"] = "sqlite"
    with ctx:
        assert ctx.invoke(meta.callback) == "sqlite"


def test_version_option_prints_the_version():
    @click.command()
    @click.version_option("1.2.3")
    def v1():
        pass

    @click.command()
    @click.version_option("2.0", "-V", "--ver", prog_name="tool", message="%(prog)s %(version)s!")
    def v2():
        pass

    assert run(v1, "--version", prog_name="v1") == (0, "v1, version 1.2.3\n")
    assert run(v2, "-V") == (0, "tool 2.0!\n")


def test_help_confirmation_and_password_options():
    @click.command(add_help_option=False)
    @click.help_option("-h", "--halp")
    def helped():
        """Help me."""

    @click.command()
    @click.confirmation_option(prompt="Drop?")
    def drop():
        click.echo("dropped")

    @click.command()
    @click.password_option()
    def login(password):
        click.echo(f"got {password}")

    assert run(helped, "-h") == (
        0, "Usage: helped [OPTIONS]\n\n  Help me.\n\nOptions:\n  -h, --halp  Show this message and exit.\n"
    )
    assert run(drop, input="n\n") == (1, "Drop? [y/N]: n\nAborted!\n")
    assert run(drop, "--yes") == (0, "dropped\n")
    assert run(login, input="s3\ns3\n") == (0, "Password: \nRepeat for confirmation: \ngot s3\n")
