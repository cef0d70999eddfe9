"""Prelude for the click (8.1.7) RepoReuse chains: deterministic builders used by the calls."""
import click


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

    @click.group(name="tool")
    @click.option("--verbose", "-v", count=True)
    @click.option("--config", type=click.Path())
    def tool(verbose, config):
        pass

    @tool.command()
    @click.option("--force", is_flag=True)
    @click.option("--target", "-t", type=click.Choice(["staging", "production"]))
    @click.argument("name")
    @click.argument("files", nargs=-1)
    def deploy(force, target, name, files):
        pass

    @tool.command(hidden=True)
    def debug():
        pass

    @tool.group()
    def db():
        pass

    @db.command()
    @click.option("--to", type=int)
    def migrate(to):
        pass

    @db.command()
    @click.argument("table")
    @click.option("--limit", type=int, default=10)
    def dump(table, limit):
        pass

    @tool.command()
    @click.option("--size", nargs=2, type=int)
    @click.argument("pair", nargs=2)
    def resize(size, pair):
        pass

    @tool.command()
    @click.option("--dry-run", is_flag=True)
    @click.option("--mode", type=click.Choice(["fast", "safe"]))
    @click.argument("source")
    @click.argument("dest")
    def sync(dry_run, mode, source, dest):
        pass

    return tool


def pipeline_cli():
    """A chained group: pipe {load FILE, filter [--expr E], save [--out O]}."""

    @click.group(name="pipe", chain=True)
    def pipe():
        pass

    @pipe.command()
    @click.argument("file")
    def load(file):
        pass

    @pipe.command(name="filter")
    @click.option("--expr")
    def filter_(expr):
        pass

    @pipe.command()
    @click.option("--out")
    def save(out):
        pass

    return pipe
