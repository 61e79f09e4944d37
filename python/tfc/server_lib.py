"""tf.train.ClusterSpec and tf.train.Server over include/tfc/server.h and the TF_Server API.

Design: a ClusterSpec is a dict of job -> {task index: address} (TF's); as_cluster_def()
gives a ClusterDef message (hand-written here: job {name, tasks map<int32, string>}).
Server builds its ServerDef with TFC_NewServerDef from the cluster string "job=a,b;job2=c"
(server.h), so the checks (job names, host:port addresses, task ranges) and their messages
are the C library's; a server_def given as a ServerDef message or bytes is passed through.
The server is TF_NewServer / TF_ServerStart / TF_ServerJoin (the GIL released) /
TF_ServerTarget; it is stopped and freed when the Server object dies.

Jobs with sparse task indices ({"worker": {1: "h:2"}}) cannot be written in server.h's
syntax: Server raises ValueError for them (ClusterSpec itself keeps them, as TF).

Errors: TF's: TypeError for a cluster of another type, ValueError("No such job in cluster:
'x'"), ValueError("No task with index 3 in job 'x'"), ValueError("Must specify an explicit
`job_name`.") / "`task_index`."; the C checks' INVALID_ARGUMENT as ValueError; a server that
cannot start (port in use) raises its OpError (UnknownError / UnavailableError).
"""
from tfc import _pywrap
from tfc import example_pb
from tfc.framework import errors


class ClusterSpec(object):
    def __init__(self, cluster):
        if isinstance(cluster, dict):
            self._cluster_spec = {}
            for job_name, tasks in cluster.items():
                if isinstance(tasks, (list, tuple)):
                    job_tasks = {i: t for i, t in enumerate(tasks)}
                elif isinstance(tasks, dict):
                    job_tasks = {int(i): t for i, t in tasks.items()}
                else:
                    raise TypeError("The tasks for job %r must be a list or a dictionary from integers to "
                                    "strings." % job_name)
                self._cluster_spec[job_name] = job_tasks
        elif isinstance(cluster, ClusterSpec):
            self._cluster_spec = {j: dict(t) for j, t in cluster._cluster_spec.items()}
        elif isinstance(cluster, ClusterDef):
            self._cluster_spec = {}
            for job in cluster.job:
                self._cluster_spec[job.name] = {int(i): a for i, a in job.tasks.items()}
        else:
            raise TypeError("`cluster` must be a dictionary mapping one or more job names to lists of network "
                            "addresses, or a `ClusterDef` protocol buffer")

    def __bool__(self):
        return bool(self._cluster_spec)

    __nonzero__ = __bool__

    def __eq__(self, other):
        return isinstance(other, ClusterSpec) and self._cluster_spec == other._cluster_spec

    def __ne__(self, other):
        return not self == other

    def __str__(self):
        key_values = self.as_dict()
        string_items = [repr(k) + ": " + repr(key_values[k]) for k in sorted(key_values)]
        return "ClusterSpec({" + ", ".join(string_items) + "})"

    __repr__ = __str__

    def as_dict(self):
        ret = {}
        for job in self.jobs:
            task_indices = self.task_indices(job)
            if len(task_indices) == 0:
                ret[job] = {}
            elif max(task_indices) + 1 == len(task_indices):
                ret[job] = self.job_tasks(job)
            else:
                ret[job] = {i: self.task_address(job, i) for i in task_indices}
        return ret

    def as_cluster_def(self):
        cd = ClusterDef()
        for job_name in sorted(self._cluster_spec):
            job = cd.job.add(name=job_name)
            for i in sorted(self._cluster_spec[job_name]):
                job.tasks[i] = self._cluster_spec[job_name][i]
        return cd

    @property
    def jobs(self):
        return list(self._cluster_spec.keys())

    def _job(self, job_name):
        try:
            return self._cluster_spec[job_name]
        except KeyError:
            raise ValueError("No such job in cluster: %r" % job_name)

    def num_tasks(self, job_name):
        return len(self._job(job_name))

    def task_indices(self, job_name):
        return sorted(self._job(job_name).keys())

    def task_address(self, job_name, task_index):
        job = self._job(job_name)
        try:
            return job[task_index]
        except KeyError:
            raise ValueError("No task with index %r in job %r" % (task_index, job_name))

    def job_tasks(self, job_name):
        job = self._job(job_name)
        ret = [None for _ in range(max(job.keys()) + 1)] if job else []
        for i, task in job.items():
            ret[i] = task
        return ret

    def _c_string(self):
        """server.h's cluster syntax; ValueError for jobs whose tasks are not 0..n-1."""
        parts = []
        for job in sorted(self._cluster_spec):
            tasks = self._cluster_spec[job]
            if sorted(tasks) != list(range(len(tasks))):
                raise ValueError("tfc's servers need each job's tasks numbered 0..n-1; job %r has tasks %s"
                                 % (job, sorted(tasks)))
            parts.append("%s=%s" % (job, ",".join(tasks[i] for i in range(len(tasks)))))
        return ";".join(parts)


class _TaskEntry(example_pb._Message):
    _FIELDS = (("key", 1, "int32"), ("value", 2, "string"))


class _IntStrMap(dict):
    def __setitem__(self, k, v):
        dict.__setitem__(self, int(k), str(v))


class JobDef(example_pb._Message):
    """ClusterDef's job: name and tasks, a map<int32, string> (a dict here)."""
    _FIELDS = (("name", 1, "string"), ("tasks", 2, "rep_msg:_TaskEntry"))

    def __init__(self, name="", tasks=None):
        super(JobDef, self).__init__(name=name)
        object.__setattr__(self, "_tasks", _IntStrMap())
        for k, v in (tasks or {}).items():
            self._tasks[k] = v

    def __getattr__(self, name):
        if name == "tasks":
            return self.__dict__["_tasks"]
        return super(JobDef, self).__getattr__(name)

    def SerializeToString(self, deterministic=None):
        out = example_pb._wire.field_bytes(1, self.name) if self.name else b""
        for k in sorted(self._tasks):
            entry = example_pb._wire.field_varint(1, k) + example_pb._wire.field_bytes(2, self._tasks[k])
            out += example_pb._wire.field_bytes(2, entry)
        return out

    def __eq__(self, other):
        return type(self) is type(other) and self.SerializeToString() == other.SerializeToString()

    __hash__ = None

    def _merge(self, data):
        tmp = example_pb._Message.__new__(_RawJob)
        example_pb._Message.__init__(tmp)
        tmp._merge(data)
        if tmp.name:
            self.name = tmp.name
        for e in tmp.tasks:
            self._tasks[e.key] = e.value


example_pb._register(_TaskEntry)


@example_pb._register
class _RawJob(example_pb._Message):
    _FIELDS = (("name", 1, "string"), ("tasks", 2, "rep_msg:_TaskEntry"))


example_pb._register(JobDef)


@example_pb._register
class ClusterDef(example_pb._Message):
    _FIELDS = (("job", 1, "rep_msg:JobDef"),)


def _server_def_parts(server_or_cluster_def, job_name, task_index, protocol, config):
    if protocol not in (None, "grpc"):
        raise ValueError("tfc's servers speak grpc only, not %r" % protocol)
    cluster = ClusterSpec(server_or_cluster_def)
    if job_name is None:
        if len(cluster.jobs) == 1:
            job_name = cluster.jobs[0]
        else:
            raise ValueError("Must specify an explicit `job_name`.")
    if task_index is None:
        task_indices = cluster.task_indices(job_name)
        if len(task_indices) == 1:
            task_index = task_indices[0]
        else:
            raise ValueError("Must specify an explicit `task_index`.")
    cfg = config.SerializeToString() if config is not None else b""
    return cluster, job_name, int(task_index), cfg


class Server(object):
    """tf.train.Server(server_or_cluster_def, job_name=None, task_index=None, protocol=None,
    config=None, start=True)."""

    def __init__(self, server_or_cluster_def, job_name=None, task_index=None, protocol=None, config=None,
                 start=True):
        if isinstance(server_or_cluster_def, (bytes, bytearray)):
            server_def = bytes(server_or_cluster_def)
            self._cluster_spec = None
        elif hasattr(server_or_cluster_def, "SerializeToString") and not isinstance(server_or_cluster_def,
                                                                                       ClusterDef):
            server_def = server_or_cluster_def.SerializeToString()
            self._cluster_spec = None
        else:
            cluster, job_name, task_index, cfg = _server_def_parts(server_or_cluster_def, job_name, task_index,
                                                                   protocol, config)
            try:
                server_def = _pywrap.server_def(cluster._c_string(), job_name, task_index, 0, cfg)
            except errors.InvalidArgumentError as e:
                raise ValueError(e.message) from None
            self._cluster_spec = cluster
        self._server_def = server_def
        self._server = _pywrap.server(server_def)
        if start:
            self.start()

    def start(self):
        _pywrap.server_call(self._server, 0)

    def join(self):
        _pywrap.server_call(self._server, 1)

    @property
    def server_def(self):
        return self._server_def

    @property
    def target(self):
        return _pywrap.server_target(self._server)

    @staticmethod
    def create_local_server(config=None, start=True):
        return Server({"local": ["localhost:0"]}, protocol="grpc", config=config, start=start)
