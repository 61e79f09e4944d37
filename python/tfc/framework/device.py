"""Device strings: parsing, canonical form and merging, as TF 1.x's DeviceSpec.

"/gpu:2" becomes "/device:GPU:2", "/job:worker/task:1/cpu:0" becomes
"/job:worker/task:1/device:CPU:0". merge(inner, outer) keeps the inner spec's fields and fills
the unset ones from outer (what nested `tf.device` strings do).
"""
import re

_FIELDS = ("job", "replica", "task", "type", "index")


def parse(spec):
    """A dict of the fields set in spec; ValueError for a malformed spec."""
    out = {}
    if not spec:
        return out
    for part in spec.split("/"):
        if not part:
            continue
        kv = part.split(":")
        key = kv[0].lower()
        if len(kv) == 2 and key in ("job", "replica", "task"):
            out[key] = kv[1] if key == "job" else int(kv[1])
        elif len(kv) == 2 and key in ("cpu", "gpu"):
            out["type"] = key.upper()
            out["index"] = None if kv[1] == "*" else int(kv[1])
        elif len(kv) == 1 and key in ("cpu", "gpu"):
            out["type"] = key.upper()
        elif key == "device" and len(kv) in (2, 3):
            out["type"] = kv[1].upper() if kv[1].lower() in ("cpu", "gpu") else kv[1]
            if len(kv) == 3:
                out["index"] = None if kv[2] == "*" else int(kv[2])
        elif len(kv) == 2 and re.match(r"^[A-Za-z_]+$", kv[0]) and (kv[1] == "*" or kv[1].isdigit()):
            out["type"] = kv[0].upper() if kv[0].lower() in ("cpu", "gpu") else kv[0]
            out["index"] = None if kv[1] == "*" else int(kv[1])
        else:
            raise ValueError("Unknown attribute: '%s' in '%s'" % (part, spec))
    return out


def to_string(fields):
    s = ""
    if fields.get("job") is not None:
        s += "/job:%s" % fields["job"]
    if fields.get("replica") is not None:
        s += "/replica:%d" % fields["replica"]
    if fields.get("task") is not None:
        s += "/task:%d" % fields["task"]
    if fields.get("type") is not None:
        s += "/device:%s:%s" % (fields["type"], "*" if fields.get("index") is None else fields["index"])
    return s


def canonical(spec):
    return to_string(parse(spec))


def merge(inner, outer):
    """inner's fields win; outer fills the rest. Both are device strings."""
    f = parse(outer)
    i = parse(inner)
    if "type" in i:
        f.pop("index", None)
    f.update(i)
    return to_string(f)
