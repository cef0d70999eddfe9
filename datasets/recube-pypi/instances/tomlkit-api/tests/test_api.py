"""Hidden tests of tomlkit/api.py (tomlkit 0.13.3).

External tests go through the callers in tomlkit: `TOMLFile` of toml_file.py reads files
with `loads`, and tomlkit/__init__.py exports the functions of api.py as the package's
interface, used here the way a program builds, dumps and loads documents. Internal tests
call the functions of tomlkit/api.py directly, one at a time.
"""

import io

import pytest

import tomlkit
from tomlkit import api
from tomlkit.exceptions import ConvertError, UnexpectedCharError
from tomlkit.toml_document import TOMLDocument
from tomlkit.toml_file import TOMLFile


# External: through toml_file.py and the package's interface.
def test_toml_file_reads_and_writes_back_unchanged(tmp_path):
    path = tmp_path / "conf.toml"
    text = "# top\n[server]\nport = 8080  # the port\nhosts = ['a', 'b']\n"
    path.write_text(text, encoding="utf-8", newline="")
    f = TOMLFile(path)
    doc = f.read()
    assert isinstance(doc, TOMLDocument)
    assert doc.unwrap() == {"server": {"port": 8080, "hosts": ["a", "b"]}}
    doc["server"]["port"] = 9090
    f.write(doc)
    assert path.read_text(encoding="utf-8") == text.replace("8080", "9090")


def test_toml_file_keeps_windows_line_endings(tmp_path):
    path = tmp_path / "win.toml"
    path.write_bytes(b"a = 1\r\nb = 2\r\n")
    f = TOMLFile(path)
    doc = f.read()
    assert doc.unwrap() == {"a": 1, "b": 2}
    doc["c"] = 3
    f.write(doc)
    assert path.read_bytes() == b"a = 1\r\nb = 2\r\nc = 3\r\n"


def test_package_builds_and_dumps_a_document():
    doc = tomlkit.document()
    doc.add(tomlkit.comment("settings"))
    doc.add("title", "demo")
    doc.add(tomlkit.nl())
    server = tomlkit.table()
    server.add("port", 8080)
    server["hosts"] = tomlkit.array('["a", "b"]')
    doc.add("server", server)
    assert tomlkit.dumps(doc) == '# settings\ntitle = "demo"\n\n[server]\nport = 8080\nhosts = ["a", "b"]\n'


def test_package_dump_and_load_with_streams():
    out = io.StringIO()
    tomlkit.dump({"a": [1, 2]}, out)
    assert out.getvalue() == "a = [1, 2]\n"
    assert tomlkit.load(io.StringIO("x = 'y'\n")).unwrap() == {"x": "y"}
    assert tomlkit.load(io.BytesIO(b"x = 1")).unwrap() == {"x": 1}


# Internal: the functions of api.py.
def test_loads_accepts_bytes_and_returns_a_document():
    doc = api.loads(b"a = 1\n")
    assert isinstance(doc, TOMLDocument)
    assert doc.unwrap() == {"a": 1}


def test_dumps_sorts_keys_on_request_and_refuses_non_mappings():
    assert api.dumps({"b": 1, "a": {"d": 2, "c": 3}}, sort_keys=True) == "b = 1\n\n[a]\nc = 3\nd = 2\n"
    with pytest.raises(TypeError, match="Expecting Mapping or TOML Table or Container"):
        api.dumps([1, 2])


def test_scalar_item_constructors():
    assert api.integer("42") == 42
    assert api.integer(7).as_string() == "7"
    assert api.float_("3.5") == 3.5
    assert api.boolean("true").value is True
    assert api.boolean("false").value is False
    assert api.string("a\nb", multiline=True).as_string() == '"""a\nb"""'
    assert api.string("C:\\x", literal=True).as_string() == "'C:\\x'"


def test_collection_constructors():
    it = api.inline_table()
    it.update({"x": 1, "y": 2})
    assert it.as_string() == "{x = 1, y = 2}"
    a = api.aot()
    a.append({"n": 1})
    a.append({"n": 2})
    doc = api.document()
    doc["item"] = a
    assert doc.as_string() == "[[item]]\nn = 1\n\n[[item]]\nn = 2\n"


def test_key_makes_single_and_dotted_keys():
    doc = api.document()
    doc.append(api.key("foo"), 1)
    doc.append(api.key(["bar", "baz"]), 2)
    assert doc.as_string() == "foo = 1\nbar.baz = 2\n"


def test_value_and_key_value_parse_fragments():
    assert api.value("[1, 2, 3]") == [1, 2, 3]
    assert api.value("{a = 1}") == {"a": 1}
    k, v = api.key_value("foo = 1")
    assert k.key == "foo" and v == 1
    with pytest.raises(UnexpectedCharError):
        api.value("1 2")


def test_register_and_unregister_an_encoder():
    class Money:
        def __init__(self, cents):
            self.cents = cents

    def encode(obj):
        if isinstance(obj, Money):
            return api.string(f"{obj.cents} EUR")
        raise ConvertError

    assert api.register_encoder(encode) is encode
    try:
        assert api.dumps({"price": Money(5)}) == 'price = "5 EUR"\n'
    finally:
        api.unregister_encoder(encode)
    api.unregister_encoder(encode)
    with pytest.raises(ConvertError):
        api.dumps({"price": Money(5)})


def test_super_table_and_whitespace_items():
    parent = api.table(is_super_table=True)
    parent.add("child", api.table())
    parent["child"]["v"] = 1
    doc = api.document()
    doc["parent"] = parent
    assert doc.as_string() == "[parent.child]\nv = 1\n"
    assert api.ws("  ").as_string() == "  "
    assert api.nl().as_string() == "\n"
    assert api.comment("hi").as_string() == "# hi\n"
