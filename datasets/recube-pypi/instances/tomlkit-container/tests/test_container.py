"""Hidden tests of tomlkit/container.py (tomlkit 0.13.3).

External tests go through the callers in tomlkit: the parser (parser.py) fills a
`TOMLDocument` (toml_document.py), which is a `Container`, tables of items.py keep their
body in one, and api.py dumps documents with its `as_string`. Internal tests use
`Container` directly.
"""

import copy
import pickle

import pytest

import tomlkit
from tomlkit.container import Container
from tomlkit.exceptions import KeyAlreadyPresent, NonExistentKey, ParseError
from tomlkit.toml_document import TOMLDocument

SOURCE = "# head\ntitle = 'x'  # c\n\n[owner]\nname = 'me'\n\n[db.conn]\nport = 1\n"


# External: through the parser, documents and tables.
def test_editing_a_parsed_document_keeps_its_formatting():
    doc = tomlkit.parse(SOURCE)
    doc["title"] = "y"
    doc["owner"]["age"] = 3
    doc["new"] = 1
    assert tomlkit.dumps(doc) == (
        '# head\ntitle = "y"  # c\nnew = 1\n\n[owner]\nname = \'me\'\nage = 3\n\n[db.conn]\nport = 1\n'
    )


def test_parse_refuses_a_repeated_key_and_a_repeated_table():
    with pytest.raises(ParseError, match='Key "a" already exists. at line 2 col 0'):
        tomlkit.parse("a = 1\na = 2\n")
    with pytest.raises(ParseError, match='Key "t" already exists.'):
        tomlkit.parse("[t]\na = 1\n[t]\nb = 2\n")


def test_editing_a_table_split_across_the_document():
    doc = tomlkit.parse("[a]\nx = 1\n[b]\nz = 3\n[a.c]\ny = 2\n")
    doc["a"]["w"] = 5
    assert doc.as_string() == "[a]\nx = 1\nw = 5\n[b]\nz = 3\n[a.c]\ny = 2\n"
    del doc["a"]["x"]
    assert doc.as_string() == "[a]\nw = 5\n[b]\nz = 3\n[a.c]\ny = 2\n"


def test_documents_survive_deepcopy_and_pickle():
    doc = tomlkit.parse(SOURCE)
    copied = copy.deepcopy(doc)
    assert isinstance(copied, TOMLDocument) and copied == doc
    restored = pickle.loads(pickle.dumps(doc))
    assert isinstance(restored, TOMLDocument)
    assert restored.as_string() == SOURCE


# Internal: Container itself.
def test_add_and_append_keep_order_and_render():
    c = Container()
    c.add("a", 1)
    c.append("b", tomlkit.item("s"))
    c.add(tomlkit.comment("note"))
    assert c.as_string() == 'a = 1\nb = "s"\n# note\n'
    assert len(c) == 2 and list(c) == ["a", "b"]
    assert c == {"a": 1, "b": "s"}
    assert repr(c) == "{'a': 1, 'b': 's'}"


def test_append_refuses_an_existing_key():
    c = Container()
    c.add("a", 1)
    with pytest.raises(KeyAlreadyPresent, match='Key "a" already exists.'):
        c.append("a", 2)


def test_missing_keys_raise_non_existent_key():
    c = Container()
    c["x"] = 1
    del c["x"]
    assert c.as_string() == "" and len(c) == 0
    with pytest.raises(NonExistentKey):
        c["x"]
    with pytest.raises(KeyError, match='Key "x" does not exist.'):
        del c["x"]
    with pytest.raises(NonExistentKey):
        c.remove("x")


def test_a_value_appended_after_a_table_goes_before_it():
    c = Container()
    c.add("b", "s")
    t = tomlkit.table()
    t.add("k", 1)
    c.append("tbl", t)
    c.append("after", 2)
    assert c.as_string() == 'b = "s"\nafter = 2\n\n[tbl]\nk = 1\n'


def test_remove_item_and_last_item():
    c = Container()
    c.add("a", 1)
    c.add("b", "s")
    c.remove("a")
    assert c.as_string() == 'b = "s"\n'
    assert c.item("b") == "s" and c.item("b").as_string() == '"s"'
    assert c.last_item() == "s"


def test_setdefault_keeps_existing_and_adds_missing():
    c = Container()
    c.add("b", "s")
    assert c.setdefault("b", 5) == "s"
    assert c.setdefault("q", 7) == 7
    assert c.as_string() == 'b = "s"\nq = 7\n'


def test_dotted_keys_unwrap_into_nested_dicts():
    c = Container()
    c.append(tomlkit.key(["a", "b"]), 1)
    c.append(tomlkit.key(["a", "c"]), 2)
    assert c.as_string() == "a.b = 1\na.c = 2\n"
    assert c.unwrap() == {"a": {"b": 1, "c": 2}}
    assert c.value == {"a": {"b": 1, "c": 2}}


def test_copy_is_independent_and_unwrap_gives_plain_dicts():
    c = Container()
    c.add("b", "s")
    t = tomlkit.table()
    t.add("k", 1)
    c.append("tbl", t)
    other = c.copy()
    other["b"] = "changed"
    assert c["b"] == "s" and other["b"] == "changed"
    plain = c.unwrap()
    assert plain == {"b": "s", "tbl": {"k": 1}}
    assert type(plain["tbl"]) is dict and type(plain["b"]) is str
