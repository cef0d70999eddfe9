# Canonical form of a returned value, and the comparison kinds of cases.json.
# Copied verbatim into every generated tests/test_turn.py.
import json
import math


def canon(x):
    """Canonical, JSON-compatible form: tuples and other iterables become lists,
    sets become lists sorted by their canonical JSON text, dicts with only str keys
    stay dicts, other dicts become lists of [key, value] pairs sorted the same way."""
    if x is None or isinstance(x, (bool, int, str)):
        return x
    if isinstance(x, float):
        if math.isnan(x) or math.isinf(x):
            raise ValueError("non-finite float in a result: %r" % (x,))
        return x
    if isinstance(x, dict):
        if all(isinstance(k, str) for k in x):
            return {k: canon(v) for k, v in x.items()}
        return sorted(([canon(k), canon(v)] for k, v in x.items()), key=lambda kv: _key(kv[0]))
    if isinstance(x, (set, frozenset)):
        return sorted((canon(e) for e in x), key=_key)
    if isinstance(x, (str, bytes)):
        raise TypeError("bytes in a result")
    try:
        items = list(x)
    except TypeError:
        raise TypeError("value of type %s has no canonical form" % type(x).__name__)
    return [canon(e) for e in items]


def _key(c):
    return json.dumps(c, sort_keys=True)


def as_kind(x, kind):
    """Canonical form of x for comparison kind `kind` (exact, approx, set, sorted)."""
    if kind in ("exact", "approx"):
        return canon(x)
    if kind == "set":
        seen = {}
        for e in list(x):
            c = canon(e)
            seen[_key(c)] = c
        return [seen[k] for k in sorted(seen)]
    if kind == "sorted":
        return sorted((canon(e) for e in list(x)), key=_key)
    raise ValueError("unknown comparison kind %r" % (kind,))


def close(a, b, rel=1e-9, abs_=1e-9):
    """Structural equality; floats (and ints against floats) within tolerance."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or (type(a) is type(b) and a == b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y, rel, abs_) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k], rel, abs_) for k in a)
    return a == b
