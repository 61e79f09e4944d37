"""Session, InteractiveSession and the default session (TF 1.x's client/session.py).

Design: a Session owns a _pywrap.Session (TF_NewSession over its graph's TF_Graph). run() turns
(fetches, feed keys) into a _Plan once and caches it: the plan holds a _pywrap.Runner (the
TF_Outputs to feed and fetch and the target ops, fixed in C), the feeds' numpy dtypes and
static shapes for checking values, and a function rebuilding the fetch structure (lists, tuples,
namedtuples, dicts) from the flat results. A repeated run is then: one dict lookup, one
np.asarray per feed, one C call (TF_SessionRun with the GIL released), and the rebuild.

Errors: TF's texts for bad fetches and feeds (TypeError/ValueError), RuntimeError for a closed
session or an empty graph, and the OpError subclass of the status code for failed runs, with
`op` and `node_def` filled in from the node the message names.
"""
import collections
import re
import threading

import numpy as np

from tfc import _pywrap
from tfc.framework import config as config_pb
from tfc.framework import errors
from tfc.framework import ops

_NODE_RE = re.compile(r"\[\[(Node: )?(\{\{node )?([^\} ]*)(\}\})?\s*=*")


class _DefaultSessionStack(threading.local):
    def __init__(self):
        self.stack = []


_default_session_stack = _DefaultSessionStack()


def get_default_session():
    s = _default_session_stack.stack
    return s[-1] if s else None


# ---------------- fetch structures ----------------

def _flatten_fetches(fetches, graph, out, index):
    """Returns a function rebuilding fetches' structure from a list of results; appends unique
    graph elements to out (index: element -> position)."""
    if fetches is None:
        raise TypeError("Fetch argument None has invalid type <class 'NoneType'>")
    if isinstance(fetches, (list, tuple)):
        subs = [_flatten_fetches(f, graph, out, index) for f in fetches]
        t = type(fetches)
        if isinstance(fetches, tuple) and hasattr(fetches, "_fields"):
            return lambda r: t(*[s(r) for s in subs])
        if t is list or t is tuple:
            return lambda r: t([s(r) for s in subs])
        return lambda r: t([s(r) for s in subs])
    if isinstance(fetches, dict):
        keys = list(fetches.keys())
        subs = [_flatten_fetches(fetches[k], graph, out, index) for k in keys]
        t = type(fetches)

        def build(r):
            d = t() if t is not collections.defaultdict else t(fetches.default_factory)
            for k, s in zip(keys, subs):
                d[k] = s(r)
            return d
        return build
    if hasattr(fetches, "_fetch_components"):  # a composite (SparseTensor): its parts, rebuilt
        parts, rebuild = fetches._fetch_components()
        subs = [_flatten_fetches(p, graph, out, index) for p in parts]
        return lambda r: rebuild([s(r) for s in subs])
    try:
        el = graph.as_graph_element(fetches, allow_tensor=True, allow_operation=True)
    except TypeError as e:
        raise TypeError("Fetch argument %r has invalid type %r, must be a string or Tensor. (%s)"
                        % (fetches, type(fetches), str(e)))
    except ValueError as e:
        raise ValueError("Fetch argument %r cannot be interpreted as a Tensor. (%s)" % (fetches, str(e)))
    except KeyError as e:
        raise ValueError("Fetch argument %r cannot be interpreted as a Tensor. (%s)" % (fetches, str(e)))
    i = index.get(el)
    if i is None:
        i = index[el] = len(out)
        out.append(el)
    return lambda r: r[i]


def _structure_key(fetches):
    """A hashable key for a fetch structure holding lists or dicts: the container types (they
    decide the result's types) and the leaves."""
    if isinstance(fetches, (list, tuple)):
        return (type(fetches), tuple(_structure_key(f) for f in fetches))
    if isinstance(fetches, dict):
        return (type(fetches), tuple((k, _structure_key(v)) for k, v in fetches.items()))
    return fetches


class _Plan(object):
    """One prepared run shape: feeds (Tensors), fetches, targets and the Runner over them."""

    def __init__(self, session, fetches, feed_tensors):
        graph = session._graph
        elements, index = [], {}
        self.build = _flatten_fetches(fetches, graph, elements, index)
        self.feed_tensors = feed_tensors
        fed = {t: i for i, t in enumerate(feed_tensors)}
        fetch_outputs, targets, sources = [], [], []
        for el in elements:
            if isinstance(el, ops.Operation):
                targets.append(el._c_op)
                sources.append(None)
            elif el in fed:
                sources.append(("feed", fed[el]))
            else:
                sources.append(("out", len(fetch_outputs)))
                fetch_outputs.append(el._as_tf_output())
        self.sources = sources
        self.simple = all(s is not None and s[0] == "out" and s[1] == i for i, s in enumerate(sources))
        self.np_types = [t.dtype.as_numpy_dtype for t in feed_tensors]
        self.shapes = [t.get_shape() for t in feed_tensors]
        self.runner = session._session.make_runner([t._as_tf_output() for t in feed_tensors],
                                                   fetch_outputs, targets)


def _feed_value(tensor, value, np_type, shape):
    if isinstance(value, ops.Tensor):
        raise TypeError("The value of a feed cannot be a tf.Tensor object. Acceptable feed values include "
                        "Python scalars, strings, lists, numpy ndarrays, or TensorHandles. For reference, the "
                        "tensor object was " + str(value) + " which was passed to the feed with key " +
                        str(tensor) + ".")
    if np_type is object:
        arr = np.asarray(value, dtype=object)
    else:
        if isinstance(value, int) and not isinstance(value, bool):
            try:
                fits = np_type(value) == value
            except OverflowError:
                fits = False
            if not fits:
                raise TypeError("Type of feed value " + str(value) + " with type " + str(type(value)) +
                                " is not compatible with Tensor type " + str(np_type) + ". Try explicitly "
                                "setting the type of the feed tensor to a larger type (e.g. int64).")
        arr = np.asarray(value, dtype=np_type)
    dims = shape._dims
    if dims is not None:
        ash = arr.shape
        if len(ash) != len(dims) or any(d._value is not None and d._value != a for d, a in zip(dims, ash)):
            raise ValueError("Cannot feed value of shape %r for Tensor %r, which has shape %r"
                             % (ash, tensor.name, str(shape)))
    return arr


def _feed_tensor(graph, key):
    try:
        return graph.as_graph_element(key, allow_tensor=True, allow_operation=False)
    except Exception as e:
        raise TypeError("Cannot interpret feed_dict key as Tensor: " + str(e.args[0] if e.args else e))


def _attach_op(e, graph):
    m = _NODE_RE.search(e.message or "")
    if m:
        op = graph._nodes_by_name.get(m.group(3))
        if op is not None:
            e._op = op
            e._node_def = op.node_def


class BaseSession(object):
    """A session over one graph (the default graph at construction when graph is None)."""

    def __init__(self, target="", graph=None, config=None):
        if graph is None:
            graph = ops.get_default_graph()
        elif not isinstance(graph, ops.Graph):
            raise TypeError("graph must be a tf.Graph, but got %s" % type(graph))
        if target is not None and not isinstance(target, str):
            if isinstance(target, config_pb.ConfigProto):
                raise TypeError("target must be a string, but got %s. Did you do \"Session(config)\" instead "
                                "of \"Session(config=config)\"?" % type(target))
            raise TypeError("target must be a string, but got %s" % type(target))
        if config is not None and not isinstance(config, config_pb.ConfigProto):
            raise TypeError("config must be a tf.ConfigProto, but got %s" % type(config))
        self._graph = graph
        self._target = target
        self._config = config
        self._plans = {}
        self._closed = False
        self._default_ctx = None
        self._graph_ctx = None
        self._session = _pywrap.Session(graph._c_graph, target or None,
                                        config.SerializeToString() if config is not None else b"")

    @property
    def graph(self):
        return self._graph

    @property
    def graph_def(self):
        """as_graph_def(add_shapes=config.graph_options.infer_shapes), as TF's."""
        infer = False
        if self._config is not None:
            infer = bool(self._config.graph_options.infer_shapes)
        return self._graph.as_graph_def(add_shapes=infer)

    @property
    def sess_str(self):
        return self._target

    def list_devices(self):
        return [_DeviceAttributes(*d) for d in self._session.list_devices()]

    def as_default(self):
        return ops._stack_controller(_default_session_stack, self)

    def close(self):
        if not self._closed:
            self._closed = True
            self._session.close()
            self._plans.clear()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    # ---- run ----
    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        if feed_dict:
            keys = tuple(feed_dict)
        else:
            keys = ()
        # containers are keyed by their structure (a namedtuple equals a tuple, but not its result)
        key = (_structure_key(fetches) if isinstance(fetches, (list, tuple, dict)) else fetches, keys)
        try:
            plan = self._plans[key]
        except (KeyError, TypeError):
            plan = self._make_plan(fetches, keys, key)
        values = [_feed_value(t, feed_dict[k], nt, sh)
                  for t, k, nt, sh in zip(plan.feed_tensors, keys, plan.np_types, plan.shapes)]
        return self._call(plan, values, options, run_metadata)

    def _make_plan(self, fetches, keys, cache_key):
        if self._graph.version == 0:
            raise RuntimeError("The Session graph is empty.  Add operations to the graph before calling run().")
        feed_tensors = [_feed_tensor(self._graph, k) for k in keys]
        plan = _Plan(self, fetches, feed_tensors)
        try:
            if len(self._plans) > 256:
                self._plans.clear()
            self._plans[cache_key] = plan
        except TypeError:
            pass  # a leaf that cannot be hashed: planned again next time
        return plan

    def _call(self, plan, values, options=None, run_metadata=None):
        try:
            if options is None and run_metadata is None:
                results = plan.runner(values)
            else:
                results, meta = plan.runner(values, options.SerializeToString() if options is not None else None,
                                            run_metadata is not None)
                if run_metadata is not None:
                    run_metadata.ParseFromString(meta)
        except errors.OpError as e:
            _attach_op(e, self._graph)
            raise
        if not plan.simple:
            results = [None if s is None else (values[s[1]] if s[0] == "feed" else results[s[1]])
                       for s in plan.sources]
        return plan.build(results)

    def make_callable(self, fetches, feed_list=None, accept_options=False):
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        feed_tensors = [_feed_tensor(self._graph, k) for k in (feed_list or [])]
        plan = _Plan(self, fetches, feed_tensors)
        pairs = list(zip(feed_tensors, plan.np_types, plan.shapes))

        def call(*args, **kwargs):
            if len(args) != len(pairs):
                raise TypeError("Expected %d positional arguments but got %d" % (len(pairs), len(args)))
            if self._closed:
                raise RuntimeError("Attempted to use a closed Session.")
            values = [_feed_value(t, a, nt, sh) for (t, nt, sh), a in zip(pairs, args)]
            if accept_options:
                return self._call(plan, values, kwargs.get("options"), kwargs.get("run_metadata"))
            return self._call(plan, values)
        return call


class _DeviceAttributes(object):
    def __init__(self, name, device_type, memory_limit_bytes, incarnation):
        self.name, self.device_type = name, device_type
        self.memory_limit_bytes, self.incarnation = memory_limit_bytes, incarnation

    def __repr__(self):
        return "_DeviceAttributes(%s, %s, %d, %d)" % (self.name, self.device_type, self.memory_limit_bytes,
                                                      self.incarnation)


class Session(BaseSession):
    """tf.Session(target='', graph=None, config=None). As a context manager it is the default
    session (and its graph the default graph) and closes on exit."""

    def __init__(self, target="", graph=None, config=None):
        super(Session, self).__init__(target, graph, config)
        self._ctx_stack = None

    def __enter__(self):
        if self._ctx_stack is not None:
            raise RuntimeError("Session context managers are not re-entrant. Use `Session.as_default()` if you "
                               "want to enter a session multiple times.")
        self._ctx_stack = (self._graph.as_default(), self.as_default())
        for c in self._ctx_stack:
            c.__enter__()
        return self

    def __exit__(self, exc_type, exc_value, tb):
        g_ctx, s_ctx = self._ctx_stack
        s_ctx.__exit__(exc_type, exc_value, tb)
        g_ctx.__exit__(exc_type, exc_value, tb)
        self._ctx_stack = None
        self.close()

    @staticmethod
    def reset(target, containers=None, config=None):
        pass


class InteractiveSession(BaseSession):
    """A session that makes itself (and its graph) the default until close()."""

    def __init__(self, target="", graph=None, config=None):
        if config is None:
            config = config_pb.ConfigProto(gpu_options=config_pb.GPUOptions(allow_growth=True))
        config.graph_options.place_pruned_graph = True
        super(InteractiveSession, self).__init__(target, graph, config)
        self._ctxs = [self.as_default(), self._graph.as_default()]
        for c in self._ctxs:
            c.__enter__()

    def close(self):
        super(InteractiveSession, self).close()
        ctxs, self._ctxs = getattr(self, "_ctxs", []), []
        for c in reversed(ctxs):
            c.__exit__(None, None, None)


def _eval_using_default_session(tensors, feed_dict, graph, session=None):
    if session is None:
        session = get_default_session()
        if session is None:
            raise ValueError("Cannot evaluate tensor using `eval()`: No default session is registered. Use "
                             "`with sess.as_default()` or pass an explicit session to `eval(session=sess)`")
        if session.graph is not graph:
            raise ValueError("Cannot use the default session to evaluate tensor: the tensor's graph is "
                             "different from the session's graph. Pass an explicit session to "
                             "`eval(session=sess)`.")
    elif session.graph is not graph:
        raise ValueError("Cannot use the given session to evaluate tensor: the tensor's graph is different "
                         "from the session's graph.")
    return session.run(tensors, feed_dict)


def _run_using_default_session(operation, feed_dict, graph, session=None):
    if session is None:
        session = get_default_session()
        if session is None:
            raise ValueError("Cannot execute operation using `run()`: No default session is registered. Use "
                             "`with sess.as_default():` or pass an explicit session to `run(session=sess)`")
        if session.graph is not graph:
            raise ValueError("Cannot use the default session to execute operation: the operation's graph is "
                             "different from the session's graph. Pass an explicit session to "
                             "run(session=sess).")
    elif session.graph is not graph:
        raise ValueError("Cannot use the given session to execute operation: the operation's graph is "
                         "different from the session's graph.")
    session.run(operation, feed_dict)
