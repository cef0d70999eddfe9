# Prelude for the packaging chains: executed before a case's call is evaluated.
# Only deterministic builders: fixed marker environments and small metadata documents.
import packaging
import packaging.licenses
import packaging.markers
import packaging.metadata
import packaging.requirements
import packaging.specifiers
import packaging.tags
import packaging.utils
import packaging.version

_ENVIRONMENTS = {
    "linux": {
        "implementation_name": "cpython",
        "os_name": "posix",
        "platform_machine": "x86_64",
        "platform_release": "6.1.0",
        "platform_system": "Linux",
        "platform_version": "#1 SMP",
        "platform_python_implementation": "CPython",
        "sys_platform": "linux",
    },
    "windows": {
        "implementation_name": "cpython",
        "os_name": "nt",
        "platform_machine": "AMD64",
        "platform_release": "10",
        "platform_system": "Windows",
        "platform_version": "10.0.19045",
        "platform_python_implementation": "CPython",
        "sys_platform": "win32",
    },
    "macos": {
        "implementation_name": "cpython",
        "os_name": "posix",
        "platform_machine": "arm64",
        "platform_release": "23.4.0",
        "platform_system": "Darwin",
        "platform_version": "Darwin Kernel Version 23.4.0",
        "platform_python_implementation": "CPython",
        "sys_platform": "darwin",
    },
    "pypy-linux": {
        "implementation_name": "pypy",
        "os_name": "posix",
        "platform_machine": "x86_64",
        "platform_release": "6.1.0",
        "platform_system": "Linux",
        "platform_version": "#1 SMP",
        "platform_python_implementation": "PyPy",
        "sys_platform": "linux",
    },
}


def environment(system="linux", python="3.11.4", **overrides):
    """A complete, fixed marker environment (dict of str) for `system` (linux, windows,
    macos, pypy-linux) and the full Python version `python`; keyword overrides win."""
    env = dict(_ENVIRONMENTS[system])
    env["python_full_version"] = python
    env["python_version"] = ".".join(python.split(".")[:2])
    env["implementation_version"] = python
    env.update(overrides)
    return env


def metadata_document(name, version, headers=(), body="", metadata_version="2.1"):
    """The text of a core-metadata (METADATA / PKG-INFO) document: Metadata-Version, Name,
    Version, then the (field, value) pairs of `headers` in order, then a blank line and
    `body` when body is not empty."""
    lines = ["Metadata-Version: %s" % metadata_version, "Name: %s" % name, "Version: %s" % version]
    lines += ["%s: %s" % (field, value) for field, value in headers]
    text = "\n".join(lines) + "\n"
    if body:
        text += "\n" + body
    return text
