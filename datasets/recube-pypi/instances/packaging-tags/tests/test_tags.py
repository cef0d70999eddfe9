"""Hidden tests of packaging/tags.py (packaging 24.2).

External tests go through utils, whose parse_wheel_filename turns a wheel's compressed
tag triple into a frozenset of Tag objects with parse_tag. Internal tests call Tag,
parse_tag and the tag generators directly, always passing the Python version, ABIs and
platforms so that nothing depends on the machine running them.
"""

from packaging import tags
from packaging.tags import (
    Tag,
    compatible_tags,
    cpython_tags,
    generic_tags,
    mac_platforms,
    parse_tag,
)
from packaging.utils import parse_wheel_filename


def tag_strings(found):
    return [str(tag) for tag in found]


# External: through utils.py.
def test_wheel_filename_expands_compressed_python_tags():
    _, _, _, found = parse_wheel_filename("foo-1.0-py2.py3-none-any.whl")
    assert found == frozenset({Tag("py2", "none", "any"), Tag("py3", "none", "any")})


def test_wheel_filename_expands_every_combination():
    _, _, _, found = parse_wheel_filename(
        "foo-1.0-cp38.cp39-abi3-manylinux1_x86_64.manylinux2010_x86_64.whl"
    )
    assert sorted(tag_strings(found)) == [
        "cp38-abi3-manylinux1_x86_64",
        "cp38-abi3-manylinux2010_x86_64",
        "cp39-abi3-manylinux1_x86_64",
        "cp39-abi3-manylinux2010_x86_64",
    ]


def test_wheel_filename_tags_are_lowercased():
    _, _, _, found = parse_wheel_filename("Foo-1.0-CP39-CP39-MANYLINUX1_X86_64.whl")
    (tag,) = found
    assert (tag.interpreter, tag.abi, tag.platform) == ("cp39", "cp39", "manylinux1_x86_64")


def test_wheel_filename_tags_match_generated_tags():
    _, _, _, found = parse_wheel_filename("foo-1.0-cp39-abi3-linux_x86_64.whl")
    supported = list(cpython_tags((3, 9), ["cp39"], ["linux_x86_64"]))
    assert [tag for tag in supported if tag in found] == [Tag("cp39", "abi3", "linux_x86_64")]


# Internal: Tag, parse_tag and the generators, with every machine-dependent input given.
def test_tag_is_case_insensitive_and_hashable():
    tag = Tag("CP39", "Abi3", "Any")
    assert (tag.interpreter, tag.abi, tag.platform) == ("cp39", "abi3", "any")
    assert str(tag) == "cp39-abi3-any"
    assert tag == Tag("cp39", "abi3", "any")
    assert hash(tag) == hash(Tag("cp39", "abi3", "any"))
    assert tag != Tag("cp39", "none", "any")
    assert repr(tag).startswith("<cp39-abi3-any @ ")


def test_parse_tag_expands_dotted_parts():
    assert parse_tag("py2.py3-none-any") == frozenset({Tag("py2", "none", "any"), Tag("py3", "none", "any")})
    assert len(parse_tag("cp38.cp39-cp38.cp39-a.b.c")) == 12


def test_cpython_tags_order():
    assert tag_strings(cpython_tags((3, 9), ["cp39"], ["linux_x86_64"])) == [
        "cp39-cp39-linux_x86_64",
        "cp39-abi3-linux_x86_64",
        "cp39-none-linux_x86_64",
        "cp38-abi3-linux_x86_64",
        "cp37-abi3-linux_x86_64",
        "cp36-abi3-linux_x86_64",
        "cp35-abi3-linux_x86_64",
        "cp34-abi3-linux_x86_64",
        "cp33-abi3-linux_x86_64",
        "cp32-abi3-linux_x86_64",
    ]


def test_cpython_tags_with_major_version_only_skip_abi3():
    assert tag_strings(cpython_tags((3,), ["cp3x"], ["any"])) == ["cp3-cp3x-any", "cp3-none-any"]


def test_generic_tags_add_the_none_abi():
    assert tag_strings(generic_tags("pp39", ["pypy39_pp73"], ["linux_x86_64", "any"])) == [
        "pp39-pypy39_pp73-linux_x86_64",
        "pp39-pypy39_pp73-any",
        "pp39-none-linux_x86_64",
        "pp39-none-any",
    ]


def test_compatible_tags_walk_down_python_versions():
    assert tag_strings(compatible_tags((3, 2), "cp32", ["linux_x86_64"])) == [
        "py32-none-linux_x86_64",
        "py3-none-linux_x86_64",
        "py31-none-linux_x86_64",
        "py30-none-linux_x86_64",
        "cp32-none-any",
        "py32-none-any",
        "py3-none-any",
        "py31-none-any",
        "py30-none-any",
    ]


def test_mac_platforms_for_a_given_version_and_arch():
    found = list(mac_platforms((12, 0), "arm64"))
    assert found[:5] == [
        "macosx_12_0_arm64",
        "macosx_12_0_universal2",
        "macosx_11_0_arm64",
        "macosx_11_0_universal2",
        "macosx_10_16_universal2",
    ]
    assert len(found) == 17
    assert list(mac_platforms((10, 15), "x86_64"))[:3] == [
        "macosx_10_15_x86_64",
        "macosx_10_15_intel",
        "macosx_10_15_fat64",
    ]


def test_version_string_and_abi3_helpers():
    assert tags._version_nodot((3, 12)) == "312"
    assert tags._normalize_string("linux-x86_64.a b") == "linux_x86_64_a_b"
    assert not tags._abi3_applies((3, 1), False)
    assert not tags._abi3_applies((3, 9), True)
    assert tags._abi3_applies((3, 9), False)
    assert tags._is_threaded_cpython(["cp313t"])
    assert list(tags._py_interpreter_range((3, 2))) == ["py32", "py3", "py31", "py30"]
