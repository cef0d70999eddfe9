"""Prelude for tomlkit cases: the library and small deterministic text builders."""
import tomlkit


def lines(*rows):
    """TOML text made of the given rows, one per line, ending with a newline."""
    return "\n".join(rows) + "\n"


def layer(name, *rows):
    """A named configuration layer: [name, TOML text of the rows]."""
    return [name, lines(*rows)]


CALENDAR = lines(
    "# Release calendar of the project",
    'project = "demo"',
    "",
    "[[release]]",
    'name = "1.0"  # first stable',
    "date = 2024-05-01",
    "freeze = 2024-04-20T12:00:00Z",
    "",
    "[[release]]",
    'name = "1.1"',
    'date = "2024-08-01"',
    "freeze = 2024-07-25T09:00:00+02:00",
    "",
    "[[release]]",
    'name = "2.0"',
    "date = 2024-12-02",
)


def calendar():
    """The sample release calendar text (three releases, the last without a trailing blank line)."""
    return CALENDAR


STYLE_SAMPLE = lines(
    '"name" = "demo"',
    "path = \"C:\\\\data\\\\in\"",
    "a.\"b\".'c d' = 'ok'",
    "t = {\"k\" = 'v', n = {\"m\" = 1}}",
    "",
    '["srv".x]',
    "\"host\" = 'example.org'",
    "motd = \"\"\"",
    "Hello",
    "World\"\"\"",
    "",
    '[[ "jobs" ]]',
    '"cmd" = "run \\"all\\""',
    "",
    "[[jobs]]",
    "cmd = 'x'",
)


def style_sample():
    """A small TOML file with several style findings (quoted keys, long string spellings)."""
    return STYLE_SAMPLE


PYPROJECT = lines(
    "[build-system]",
    'requires = ["hatchling"]',
    'build-backend = "hatchling.build"',
    "",
    "[project]",
    'name = "demo-app"',
    'version = "1.2.0"',
    "dependencies = [",
    '    "requests>=2.31",  # HTTP client',
    '    "Click>=8",',
    "    # pinned for the CLI",
    '    "rich==13.7.0",  # pretty output',
    "]",
    "",
    "[project.optional-dependencies]",
    'test = ["pytest>=8", "pytest-cov"]',
    "docs = [",
    '    "Sphinx>=7",  # docs',
    "]",
)


def pyproject():
    """A sample pyproject.toml: multi-line main dependencies with comments, two extras."""
    return PYPROJECT


SPLIT_PYPROJECT = lines(
    "[project]",
    'name = "split-app"',
    'dependencies = ["attrs"]',
    "",
    "[tool.ruff]",
    "line-length = 100",
    "",
    "[project.optional-dependencies]",
    "test = [",
    '    "pytest>=8",  # runner',
    '    "pytest-cov",',
    "]",
    'docs = ["sphinx"]',
)


def split_pyproject():
    """A pyproject.toml whose [project] parts are separated by [tool.ruff]."""
    return SPLIT_PYPROJECT


DEVICE = lines(
    "# Sensor board description",
    'name = "sensor-board"',
    "",
    "[registers]",
    "status  = 0x0000   # read-only",
    "control = 0x0004",
    "data    = 0x00A8",
    "irq     = 0x0004   # shares control",
    "",
    "[masks]",
    "enable = 0b0000_0001",
    "reset  = 0b1000_0000",
    "mode   = 0b0000_0110  # two bits",
    "",
    "[limits.temp]",
    "low = -40",
    "high = 125",
    'unit = "C"',
    "",
    "[limits.pressure]",
    "low = 0.0",
    "high = inf",
    'unit = "kPa"',
)


def device():
    """A sample device file: hex registers, binary masks, sensor limits."""
    return DEVICE


PROFILES = lines(
    "# Serial devices: defaults and per-device overrides",
    "[defaults]",
    "baud = 115_200",
    'parity = "none"',
    "timeout = 0.5",
    "",
    "[defaults.registers]",
    "status = 0x0000",
    "control = 0x0004",
    "data = 0x0008",
    "",
    "[devices.alpha]",
    "baud = 9_600  # slow line",
    "",
    "[devices.alpha.registers]",
    "data = 0x0004",
    "",
    "[devices.beta]",
    "timeout = 1.5e0",
    "retries = 3",
)


def profiles():
    """A sample profile file: [defaults] with registers, overrides for devices alpha and beta."""
    return PROFILES
