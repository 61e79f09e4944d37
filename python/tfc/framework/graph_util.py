"""tf.graph_util (TF 1.x graph_util_impl): convert_variables_to_constants (freezing),
extract_sub_graph, remove_training_nodes, must_run_on_cpu and tensor_shape_from_node_def_name,
over GraphDef messages (framework/graph_pb).

Design: pure message rewriting as TF's Python does it, no graph building. extract_sub_graph
keeps the nodes the destinations reach through data, control and colocation ("loc:@") inputs,
in the original order, with the library and versions. convert_variables_to_constants extracts
the sub-graph of the outputs, reads every VariableV2/Variable (and VarHandleOp) value in one
sess.run, and replaces each variable node by a Const of the same name holding its value
(tensor_util.make_tensor_proto), ReadVariableOp becoming Identity and ResourceGather GatherV2
(with a Const "<name>/axis"), the Identity and control-flow nodes between a resource handle and
its reads typed with the read's dtype; the Identity reads of reference variables are kept.

Errors (TF's): a graph_def that is not a GraphDef TypeError "graph_def must be a
graph_pb2.GraphDef proto."; dest_nodes a string TypeError "dest_nodes must be a list.";
a destination not in the graph AssertionError "x is not in graph"; a read whose handle is not a
VarHandleOp ValueError "Cannot find the variable that is an input to the ReadVariableOp.";
errors of sess.run as they come.
"""
import copy
import re

from tfc.framework import dtypes
from tfc.framework import graph_pb
from tfc.framework import tensor_util

_CONTROL_FLOW_OR_IDENTITY = ("Switch", "Merge", "Identity", "Enter", "Exit", "NextIteration")
_VARIABLE_OPS = {"Assign", "AssignAdd", "AssignSub", "Queue", "ScatterAdd", "ScatterSub", "ScatterUpdate",
                 "TruncatedNormal", "Variable", "VariableV2"}


def _node_name(n):
    return n[1:] if n.startswith("^") else n.split(":")[0]


def must_run_on_cpu(node, pin_variables_on_cpu=False):
    """Whether node (an Operation or a NodeDef) must run on the CPU: int32 and string Consts,
    int32 DynamicStitch and Cast from int32, variables when pin_variables_on_cpu."""
    node_def = node
    if not isinstance(node, graph_pb.NodeDef):
        node_def = node.node_def
    if pin_variables_on_cpu and node_def.op in _VARIABLE_OPS:
        return True
    if node_def.op == "Const":
        t = node_def.attr["dtype"].type
        if t in (dtypes.string.as_datatype_enum, dtypes.int32.as_datatype_enum):
            return True
    if node_def.op in ("DynamicStitch", "ParallelDynamicStitch") and \
            node_def.attr["T"].type == dtypes.int32.as_datatype_enum:
        return True
    if node_def.op == "Cast" and node_def.attr["SrcT"].type == dtypes.int32.as_datatype_enum:
        return True
    return False


def _summary(graph_def):
    inputs, nodes, seq = {}, {}, {}
    for i, node in enumerate(graph_def.node):
        n = _node_name(node.name)
        nodes[n] = node
        inputs[n] = [_node_name(x) for x in node.input]
        if "_class" in node.attr:
            for c in node.attr["_class"].list.s:
                c = c.decode("utf-8")
                if c.startswith("loc:@"):
                    inputs[n].append(c[5:])
        seq[n] = i
    return inputs, nodes, seq


def extract_sub_graph(graph_def, dest_nodes):
    """A new GraphDef of the nodes dest_nodes (names) need, in graph_def's order."""
    if not isinstance(graph_def, graph_pb.GraphDef):
        raise TypeError("graph_def must be a graph_pb2.GraphDef proto.")
    if isinstance(dest_nodes, (str, bytes)):
        raise TypeError("dest_nodes must be a list.")
    inputs, nodes, seq = _summary(graph_def)
    for d in dest_nodes:
        assert d in nodes, "%s is not in graph" % d
    keep, todo = set(), list(dest_nodes)
    while todo:
        n = todo.pop(0)
        if n in keep:
            continue
        keep.add(n)
        todo.extend(inputs.get(n, ()))
    out = graph_pb.GraphDef()
    for n in sorted(keep, key=lambda x: seq[x]):
        out.node.extend([copy.deepcopy(nodes[n])])
    out.library.CopyFrom(graph_def.library)
    out.versions.CopyFrom(graph_def.versions)
    return out


def tensor_shape_from_node_def_name(graph, input_name):
    """The static shape of the tensor input_name ("x" meaning "x:0") of graph."""
    if ":" not in input_name:
        input_name += ":0"
    return graph.get_tensor_by_name(input_name).get_shape()


def _const_node(name, dtype_attr, data, shape=None):
    node = graph_pb.NodeDef(op="Const", name=name)
    node.attr["dtype"].CopyFrom(dtype_attr)
    node.attr["value"].CopyFrom(graph_pb.AttrValue(
        tensor=tensor_util.make_tensor_proto(data, dtype=dtype_attr.type, shape=shape)))
    return node


def convert_variables_to_constants(sess, input_graph_def, output_node_names, variable_names_whitelist=None,
                                   variable_names_blacklist=None):
    """A new GraphDef: input_graph_def pruned to output_node_names with its variables (those
    whitelisted and not blacklisted) replaced by Consts of their current values in sess."""
    inference = extract_sub_graph(input_graph_def, output_node_names)
    by_name = {n.name: n for n in inference.node}
    fetch, var_names = [], []
    resource_types = {}     # Identity/Switch/Merge... between a handle and its read: the read's dtype
    for node in inference.node:
        if node.op in ("ReadVariableOp", "ResourceGather"):
            src = [_node_name(node.input[0])]
            while src and by_name[src[0]].op in _CONTROL_FLOW_OR_IDENTITY:
                name = src.pop()
                if name not in resource_types:
                    resource_types[name] = node.attr["dtype"]
                    src.append(_node_name(by_name[name].input[0]))
                if by_name[name].op == "Merge":
                    other = _node_name(by_name[name].input[1])
                    if other not in resource_types:
                        resource_types[other] = node.attr["dtype"]
                        src.append(_node_name(by_name[other].input[0]))
            for name in src:
                if by_name[name].op != "VarHandleOp":
                    raise ValueError("Cannot find the variable that is an input to the ReadVariableOp.")
    for node in inference.node:
        if node.op in ("Variable", "VariableV2", "VarHandleOp"):
            if (variable_names_whitelist is not None and node.name not in variable_names_whitelist) or \
                    (variable_names_blacklist is not None and node.name in variable_names_blacklist):
                continue
            var_names.append(node.name)
            if node.op == "VarHandleOp":
                # the value through a read of the handle
                reads = [n.name for n in inference.node if n.op == "ReadVariableOp" and
                         n.input and _node_name(n.input[0]) == node.name]
                fetch.append((reads[0] if reads else node.name + "/Read/ReadVariableOp") + ":0")
            else:
                fetch.append(node.name + ":0")
    values = dict(zip(var_names, sess.run(fetch))) if fetch else {}
    out = graph_pb.GraphDef()
    for node in inference.node:
        if node.name in values:
            data = values[node.name]
            new = _const_node(node.name, node.attr["dtype"], data, data.shape)
        elif node.name in resource_types:
            new = graph_pb.NodeDef()
            new.CopyFrom(node)
            new.attr["T"].CopyFrom(resource_types[node.name])
        elif node.op == "ReadVariableOp":
            new = graph_pb.NodeDef(op="Identity", name=node.name, input=[node.input[0]])
            new.attr["T"].CopyFrom(node.attr["dtype"])
            if "_class" in node.attr:
                new.attr["_class"].CopyFrom(node.attr["_class"])
        elif node.op == "ResourceGather":
            if node.attr["batch_dims"].i != 0:
                raise ValueError("batch_dims != 0 is not supported by freeze_graph.")
            axis = node.name + "/axis"
            out.node.extend([_const_node(axis, node.attr["Tindices"], node.attr["batch_dims"].i)])
            new = graph_pb.NodeDef(op="GatherV2", name=node.name, input=[node.input[0], node.input[1], axis])
            new.attr["Tparams"].CopyFrom(node.attr["dtype"])
            new.attr["Tindices"].CopyFrom(node.attr["Tindices"])
            new.attr["Taxis"].CopyFrom(node.attr["Tindices"])
            if "_class" in node.attr:
                new.attr["_class"].CopyFrom(node.attr["_class"])
        else:
            new = graph_pb.NodeDef()
            new.CopyFrom(node)
        out.node.extend([new])
    out.library.CopyFrom(inference.library)
    out.versions.CopyFrom(inference.versions)
    return out


def remove_training_nodes(input_graph, protected_nodes=None):
    """A new GraphDef without CheckNumerics nodes and with Identity nodes spliced out (those
    neither protected nor tied to control edges)."""
    protected = set(protected_nodes or ())
    removed = {n.name for n in input_graph.node if n.op == "CheckNumerics" and n.name not in protected}
    after = []
    for node in input_graph.node:
        if node.name in removed:
            continue
        new = graph_pb.NodeDef()
        new.CopyFrom(node)
        del new.input[:]
        for full in node.input:
            if re.sub(r"^\^", "", full) in removed:
                continue
            new.input.append(full)
        after.append(new)
    control_inputs, with_control = set(), set()
    for node in after:
        for i in node.input:
            if "^" in i:
                control_inputs.add(i.replace("^", ""))
                with_control.add(node.name)
    splice = {n.name: n.input[0] for n in after
              if n.op == "Identity" and n.name not in protected and n.name not in with_control}
    splice = {k: v for k, v in splice.items() if k not in control_inputs}
    nodes = []
    for node in after:
        if node.name in splice:
            continue
        new = graph_pb.NodeDef()
        new.CopyFrom(node)
        del new.input[:]
        for full in node.input:
            name = re.sub(r"^\^", "", full)
            while name in splice:
                full = splice[name]
                name = re.sub(r"^\^", "", full)
            new.input.append(full)
        nodes.append(new)
    out = graph_pb.GraphDef()
    out.node.extend(nodes)
    return out
