"""tf.import_graph_def (TF 1.x importer.py): a GraphDef message's nodes added to the default
graph under a name prefix, with inputs remapped to existing tensors and named elements
returned.

Design: the import itself is the C API's (TF_GraphImportGraphDefWithResults through
_pywrap.graph_import, with uniquified names, input and control mappings, return outputs and
operations); this module does what TF's Python does around it: argument checks, the prefix
from a name scope (default "import", made unique; name="" imports at the root with no
prefix), input_map keys parsed as "x:0"/"x"/"^x", the missing-mapping check, and the
returned elements wrapped as Tensors/Operations in the order asked for. Under tf.device the
imported nodes get the scope's device merged under their own, as TF's _ProcessNewOps gives
them, and the ops of enclosing control_dependencies blocks become control inputs of every
imported op.

Errors (TF's classes and texts): a graph_def that is not a GraphDef TypeError "graph_def must
be a GraphDef proto."; bad input_map or return_elements types TypeError; a malformed tensor
name ValueError "Cannot convert 'x:y' to a tensor name."; the C import's InvalidArgument
(unknown op type, bad input, return element not found) ValueError with its message; input_map
keys naming no output of the graph_def ValueError "Attempted to map inputs that were not found
in graph_def: [x:0]"; a value of another graph naming no node of this one ValueError "node 'a'
in input_map does not exist in graph (input_map entry: x:0->a:0)".
"""
from tfc import _pywrap
from tfc.framework import errors
from tfc.framework import graph_pb
from tfc.framework import device as _device
from tfc.framework import ops


def _parse_tensor_name(name):
    parts = name.split(":")
    if len(parts) == 2:
        try:
            return parts[0], int(parts[1])
        except ValueError:
            raise ValueError("Cannot convert %r to a tensor name." % (name,))
    if len(parts) == 1:
        return parts[0], 0
    raise ValueError("Cannot convert %r to a tensor name." % (name,))


def _as_str(x):
    return x.decode("utf-8") if isinstance(x, bytes) else x


_CONTROL_KEY = "_tfc_import_control_%d"


def _rewritten(graph, graph_def, prefix, ctl_map):
    """The serialized graph_def with the caller's control_dependencies and device scope
    applied as TF applies them to imported ops. Each node gets the ops of the enclosing
    control_dependencies blocks as control inputs (through control-input keys the import maps
    to them, added to ctl_map). Devices: from the node's own device, each scope from the innermost out (a device
    string merged under the device so far, a device function's result replacing it), a node
    colocated ("loc:@x") with a node of graph_def taking
    that node's device. graph_def itself is not changed."""
    entries = []
    for entry in reversed(graph._state.control_stack):
        if entry is None:
            break
        entries.append(entry)
    controls = []
    for entry in reversed(entries):     # outermost block first, as TF orders them
        controls.extend(c for c in entry if c not in controls)
    devices = any(s is not None for s in graph._state.device_stack)
    if not controls and not devices:
        return graph_def.SerializeToString()
    gd = graph_pb.GraphDef()
    gd.CopyFrom(graph_def)
    keys = [_CONTROL_KEY % i for i in range(len(controls))]
    ctl_map.extend((k, c._c_op) for k, c in zip(keys, controls))
    for node in gd.node:
        node.input.extend("^" + k for k in keys)
    if not devices:
        return gd.SerializeToString()
    final = {}
    for node in gd.node:
        name = prefix + "/" + node.name if prefix else node.name
        dev = _device.canonical(node.device) if node.device else ""
        for spec in reversed(graph._state.device_stack):   # innermost first, as TF
            if spec is None:
                break
            if callable(spec):
                got = spec(ops._PendingOp(graph, node.op, name, dev))
                dev = _device.canonical(got) if isinstance(got, str) else (got.to_string() if got else "")
            else:
                dev = _device.merge(dev, spec) if dev else spec
        final[node.name] = dev
    for node in gd.node:
        dev = final[node.name]
        if "_class" in node.attr:
            for c in node.attr["_class"].list.s:
                c = c.decode("utf-8", "replace")
                if c.startswith("loc:@") and c[5:] in final:
                    dev = final[c[5:]]
                    break
        node.device = dev
    return gd.SerializeToString()


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None, op_dict=None,
                     producer_op_list=None):
    """Imports graph_def into the default graph. Returns None, or the list of the elements
    return_elements names ("op" an Operation, "op:0" a Tensor) in that order."""
    if not isinstance(graph_def, graph_pb.GraphDef):
        raise TypeError("graph_def must be a GraphDef proto.")
    if input_map is None:
        input_map = {}
    elif not (isinstance(input_map, dict) and all(isinstance(k, (str, bytes)) for k in input_map)):
        raise TypeError("input_map must be a dictionary mapping strings to Tensor objects.")
    if return_elements is not None:
        if not all(isinstance(x, (str, bytes)) for x in return_elements):
            raise TypeError("return_elements must be a list of strings.")
        return_elements = tuple(_as_str(x) for x in return_elements)
    graph = ops.get_default_graph()
    with graph.name_scope("import" if name is None else name) as scope:
        prefix = scope[:-1] if scope else ""
        if not all(isinstance(v, ops.Tensor) for v in input_map.values()):
            if name == "":
                raise ValueError("tf.import_graph_def() requires a non-empty `name` if `input_map` contains "
                                 "non-Tensor values. Try calling tf.convert_to_tensor() on `input_map` values "
                                 "before calling tf.import_graph_def().")
            with graph.name_scope("_inputs"):
                input_map = {k: ops.convert_to_tensor(v) for k, v in input_map.items()}
    in_map, ctl_map = [], []
    for src, dst in input_map.items():
        src = _as_str(src)
        if dst.graph is not graph:
            # TF's C API maps by name: a tensor of another graph stands for the same-named one
            op = graph._nodes_by_name.get(dst.op.name)
            if op is None or dst.value_index >= len(op.outputs):
                key = src if src.startswith("^") else "%s:%d" % _parse_tensor_name(src)
                raise ValueError("node '%s' in input_map does not exist in graph (input_map entry: %s->%s)"
                                 % (dst.op.name, key, dst.name))
            dst = op.outputs[dst.value_index]
        if src.startswith("^"):
            ctl_map.append((src[1:], dst.op._c_op))
        else:
            sname, sidx = _parse_tensor_name(src)
            in_map.append((sname, sidx, dst.op._c_op, dst.value_index))
    ret_out, ret_ops = [], []
    for n in return_elements or ():
        if ":" in n:
            ret_out.append(_parse_tensor_name(n))
        else:
            ret_ops.append(n)
    graph._check_not_finalized()
    data = _rewritten(graph, graph_def, prefix, ctl_map)
    try:
        outs, opers, missing = _pywrap.graph_import(graph._c_graph, data, prefix,
                                                    (True, in_map, ctl_map, ret_out, ret_ops))
    except errors.InvalidArgumentError as e:
        raise ValueError(e.message)
    graph._sync_c_ops()
    if missing:
        raise ValueError("Attempted to map inputs that were not found in graph_def: [%s]" % ", ".join(missing))
    if return_elements is None:
        return None
    outs, opers = iter(outs), iter(opers)
    result = []
    for n in return_elements:
        if ":" in n:
            h, i = next(outs)
            result.append(graph._ops_by_handle[h].outputs[i])
        else:
            result.append(graph._ops_by_handle[next(opers)])
    return result
