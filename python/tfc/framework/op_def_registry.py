"""The op table, read once from the library (TF_GetAllOpList) as plain Python data.

get(op_type) returns the OpDef as the dict _pywrap.op_list() gives (see python/_pywrap/oplist.c),
or None. Every op the library registers is here, so registering an op in C extends Python.
"""
import threading

from tfc import _pywrap

_lock = threading.Lock()
_ops = None


def get_all():
    global _ops
    with _lock:
        if _ops is None:
            _ops = {d["name"]: d for d in _pywrap.op_list()}
        return _ops


def get(op_type):
    return get_all().get(op_type)
