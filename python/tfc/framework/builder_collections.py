"""Collections the C builders hold whose entries are tuples of operations (TFC_AddToCollection:
"summaries", "queue_runners", ...), as bridges for ops.register_collection_bridge.

An area that wraps builders reading such a collection registers OpTupleCollection(key,
to_python, from_python): add_to_collection(key, value) then stores from_python(value) (the
value's operations, or None for a value the builders cannot hold, which stays in Python's list)
as one C entry, and get_collection(key) turns each C entry back into a Python object
(to_python(graph, [Operation, ...])), returning the very object that was added when Python
added it. The C side has no removal: clear_collection of such a key raises
NotImplementedError.
"""
from tfc import _pywrap


class OpTupleCollection(object):
    def __init__(self, key, to_python, from_python):
        self.key = key
        self.to_python = to_python
        self.from_python = from_python

    def _objects(self, graph):
        m = getattr(graph, "_builder_collection_objects", None)
        if m is None:
            m = graph._builder_collection_objects = {}
        return m

    def get(self, graph):
        graph._sync_c_ops()
        objects = self._objects(graph)
        out = []
        for handles in _pywrap.collection_entries(graph._c_graph, self.key):
            k = (self.key, tuple(handles))
            if k not in objects:
                objects[k] = self.to_python(graph, [graph._ops_by_handle[h] for h in handles])
            out.append(objects[k])
        return out

    def add(self, graph, value):
        ops = self.from_python(value)
        if not ops:
            return False
        handles = [o._c_op for o in ops]
        _pywrap.add_to_collection(graph._c_graph, self.key, handles)
        self._objects(graph)[(self.key, tuple(handles))] = value
        return True

    def clear(self, graph):
        raise NotImplementedError("the builders' collection %r cannot be cleared" % self.key)
