"""Prelude for the click (8.1.7) RepoReuse chains: deterministic builders used by the calls."""
import io

import click


def named_stream(name, text=""):
    """An in-memory text stream that carries a file name (like an opened file)."""
    stream = io.StringIO(text)
    stream.name = name
    return stream


def job_spec():
    """Option spec of the job-command chain: destination -> option description."""
    return {
        "verbose": {"opts": ["-v", "--verbose"], "action": "count"},
        "level": {"opts": ["--level", "-l"]},
        "exclude": {"opts": ["-x", "--exclude"], "action": "append"},
        "dry_run": {"opts": ["-n", "--dry-run"], "action": "store_const", "const": True},
        "size": {"opts": ["--size"], "nargs": 2},
    }


def demo_cli():
    """A small command tree: tool [--verbose/-v] [--config PATH]
    {deploy, debug (hidden), db {migrate, dump}, resize, sync}."""

    @click.group(name="tool", help="Operations tool for the release team.")
    @click.option("--verbose", "-v", count=True, help="Print more output.")
    @click.option("--config", type=click.Path(), help="Configuration file.")
    def tool(verbose, config):
        pass

    @tool.command(help="Deploy a release to a target environment. Files are uploaded first.")
    @click.option("--force", is_flag=True, help="Skip the confirmation.")
    @click.option("--target", "-t", type=click.Choice(["staging", "production"]), help="Where to deploy.")
    @click.argument("name")
    @click.argument("files", nargs=-1, type=click.Path())
    def deploy(force, target, name, files):
        pass

    @tool.command(hidden=True, help="Show internal state.")
    def debug():
        pass

    @tool.group(help="Database maintenance.")
    def db():
        pass

    @db.command(help="Apply the schema migrations up to a given version.")
    @click.option("--to", type=int, help="Target version.")
    def migrate(to):
        pass

    @db.command(help="Dump the rows of one table as comma separated values for the operations team")
    @click.argument("table")
    @click.option("--limit", type=int, default=10, help="Rows to dump.")
    @click.option("--columns", "-c", multiple=True, help="Columns to include.")
    def dump(table, limit, columns):
        pass

    @tool.command(short_help="Resize images.", help="Resize one image to a new width and height.")
    @click.option("--size", nargs=2, type=int, help="Width and height.")
    @click.option("+r", "--rotate", is_flag=True, help="Rotate first.")
    @click.argument("pair", nargs=2)
    def resize(size, rotate, pair):
        pass

    @tool.command(help="Synchronise two directories.")
    @click.option("--dry-run", is_flag=True, help="Only show what would change.")
    @click.option("--mode", type=click.Choice(["fast", "safe"]), help="Copy mode.")
    @click.option("--out-dir", type=click.Path(file_okay=False), help="Where to write reports.")
    @click.argument("source")
    @click.argument("dest")
    def sync(dry_run, mode, out_dir, source, dest):
        pass

    return tool


def pipeline_cli():
    """A chained group: pipe {load FILE, filter [--expr E], save [--out O]}."""

    @click.group(name="pipe", chain=True, help="Process records in steps.")
    def pipe():
        pass

    @pipe.command(help="Load records from a file.")
    @click.argument("file", type=click.Path(dir_okay=False))
    def load(file):
        pass

    @pipe.command(name="filter", help="Keep matching records.")
    @click.option("--expr", help="Filter expression.")
    def filter_(expr):
        pass

    @pipe.command(help="Save records.")
    @click.option("--out", help="Output file.")
    def save(out):
        pass

    return pipe


def ops_cli():
    """A tool with behaviour, for in-process runs:
    ops [--region R] {scale SERVICE [--replicas N], create [--name] [--port],
    wipe SERVICE (confirmation), secret (hidden input), fail CODE, status}."""

    @click.group(name="ops", help="Operate the service fleet.")
    @click.option("--region", default="eu-west", envvar="OPS_REGION", help="Region to act in.")
    @click.pass_context
    def ops(ctx, region):
        ctx.obj = {"region": region}

    @ops.command(help="Scale a service.")
    @click.argument("service")
    @click.option("--replicas", type=click.IntRange(1, 10), default=2, help="Replica count.")
    @click.pass_obj
    def scale(obj, service, replicas):
        click.echo("scaling %s to %d in %s" % (service, replicas, obj["region"]))

    @ops.command(help="Create a service.")
    @click.option("--name", prompt="Service name")
    @click.option("--port", prompt=True, type=int, default=8080)
    def create(name, port):
        click.echo("created %s:%d" % (name, port))

    @ops.command(help="Delete all data of a service.")
    @click.confirmation_option(prompt="Drop all data?")
    @click.argument("service")
    def wipe(service):
        click.echo("wiped %s" % service)
        click.echo("audit record written", err=True)

    @ops.command(help="Store a secret.")
    @click.option("--value", prompt="Secret", hide_input=True)
    def secret(value):
        click.echo("stored %d characters" % len(value))

    @ops.command(help="Exit with a code.")
    @click.argument("code", type=int)
    def fail(code):
        if code == 99:
            raise RuntimeError("unexpected failure")
        click.echo("failing with %d" % code, err=True)
        raise SystemExit(code)

    @ops.command(help="Show the fleet status.")
    def status():
        click.echo(click.style("healthy", fg="green"))

    return ops
