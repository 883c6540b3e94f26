"""Overrides of a scenario's or a sweep's fields, named the way a notebook can write them.

A key is a JSON Pointer ("/stop/time", "/failures/events/0/at"), or a dotted path
("stop.time", "failures.events.0.at"), or a keyword-argument path with "__" between the names
(stop__time="1h"). Every form means the same field; docs/python.md#overrides.
"""

import json


def pointer(key):
    """The JSON Pointer a key names: a pointer as it is, a dotted or "__" path joined with "/"
    (its names escaped as RFC 6901 asks: "~" as "~0", "/" as "~1")."""
    if not isinstance(key, str) or key == "":
        raise ValueError(f"override: expected a JSON Pointer, a dotted path or a name, "
                         f"found {key!r}")
    if key.startswith("/"):
        return key
    names = [n for part in key.split(".") for n in part.split("__")]
    if any(n == "" for n in names):
        raise ValueError(f"override {key!r}: expected names between its dots (or \"__\"), "
                         f"found an empty one")
    return "".join("/" + n.replace("~", "~0").replace("/", "~1") for n in names)


def set_arguments(overrides):
    """`failsim run` arguments for `overrides` (key -> Python value): "--set", "POINTER=JSON"
    for each, in order. The value is always written as JSON, so the string "40s" stays a string
    and 40 stays a number."""
    args = []
    for key, value in overrides.items():
        try:
            text = json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise ValueError(f"override {key!r}: expected a value JSON can hold, found "
                             f"{value!r} ({e})") from None
        args += ["--set", f"{pointer(key)}={text}"]
    return args


def _unescape(name):
    return name.replace("~1", "/").replace("~0", "~")


def apply(document, overrides):
    """A copy of the JSON `document` (a dict) with each override's field set: objects are
    created along the way, a list element must exist (or be the one just past the end)."""
    document = json.loads(json.dumps(document))
    for key, value in overrides.items():
        ptr = pointer(key)
        names = [_unescape(n) for n in ptr.split("/")[1:]]
        if not names:
            raise ValueError(f"override {key!r}: expected a field, found the whole document")
        node = document
        for i, name in enumerate(names):
            last = i == len(names) - 1
            where = "/" + "/".join(ptr.split("/")[1:i + 1])
            if isinstance(node, list):
                if not name.isdigit() or int(name) > len(node):
                    raise ValueError(f"override {key!r}: expected an index of at most "
                                     f"{len(node)} at {where}, found {name!r}")
                index = int(name)
                if index == len(node):
                    node.append({} if not last else None)
                if last:
                    node[index] = value
                else:
                    node = node[index]
            elif isinstance(node, dict):
                if last:
                    node[name] = value
                else:
                    node = node.setdefault(name, {})
            else:
                raise ValueError(f"override {key!r}: expected an object or a list at "
                                 f"{where.rsplit('/', 1)[0] or '/'}, found {json.dumps(node)}")
    return document
