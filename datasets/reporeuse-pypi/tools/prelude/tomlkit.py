"""Prelude for tomlkit cases: the library and small deterministic text builders."""
import tomlkit


def lines(*rows):
    """TOML text made of the given rows, one per line, ending with a newline."""
    return "\n".join(rows) + "\n"


def layer(name, *rows):
    """A named configuration layer: [name, TOML text of the rows]."""
    return [name, lines(*rows)]
