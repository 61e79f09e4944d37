#!/usr/bin/env python3
"""What every benchmark says about the runtimes it compares: the "peers:" block, printed once
per benchmark, so that a ratio can be read against the versions, thread counts and kernels that
produced it.

One line per side:
  tfc          its thread counts as the benchmark sets them, and its kernels: float GEMMs of
               at least 32768 multiply-adds through oneDNN's sgemm, smaller ones and the other
               types through OpenBLAS (its core and build configuration), one thread per call,
               sharded over tfc's intra-op pool; convolutions and pooling through oneDNN (its
               version, threading runtime and the ISA it dispatches to). The C benchmarks
               print this line themselves (bench_util.h, from inside the process); the Python
               benchmarks through tfc_line(), which asks libtfc's OpenBLAS and oneDNN the same
               questions with ctypes.
  PyTorch      version, intra/inter-op threads as torch reports them after the benchmark's
               torch.set_num_threads, the CPU capability its kernels dispatch to, its BLAS,
               whether its oneDNN (mkldnn) is on, its CUDA and the GPU it sees.
  TensorFlow   version, intra/inter-op threads as the benchmark's ConfigProto sets them,
               whether its oneDNN rewrites are on (TF_ENABLE_ONEDNN_OPTS; on by default on
               x86-64 Linux).
  onnxruntime  version, intra/inter-op threads, the execution providers it offers.
Each peer is imported in a child process of this Python, with ONEDNN_VERBOSE=1; for PyTorch
and TensorFlow that child then runs a small probe (a 5x5 convolution, ReLU, a matrix product
and their gradients: the kinds of kernel the training benchmarks run), and oneDNN's log says
its version, ISA, threading runtime and which implementations ran (brg_conv_fwd:avx512_core,
sgemm, ...): "ran no oneDNN kernel" means the framework's own kernels did the work.

A peer that cannot be imported prints "n/a (why)": a benchmark never fails for a missing peer.

Used two ways:
  - by the Python benchmarks: `import peers; peers.print_block({...}, tfc=(intra, inter))`
    (bench/ is the benchmark's own directory, so the import finds this file);
  - by the C benchmarks, through bench_print_peers (bench_util.h), which prints tfc's line and
    then runs: PYTHON bench/peers.py [--no-header] [--no-probe] PEER[=INTRA[,INTER]] ...
    where PEER is torch, tensorflow or onnxruntime and the counts are what the benchmark sets
    (left out: the framework's default).
"""
import ctypes
import json
import os
import subprocess
import sys

NAMES = {"torch": "PyTorch", "tensorflow": "TensorFlow", "onnxruntime": "onnxruntime", "tfc": "tfc", "peers": "peers"}

# The child's code for each peer: import it, set the thread counts, print one line
# "FACTS <json>", then (probe) run the kernels whose oneDNN log is read. %(intra)r etc. are
# the benchmark's counts (None: the default).
CHILD = {
    "torch": """
import json, torch
if %(intra)r: torch.set_num_threads(%(intra)r)
if %(inter)r: torch.set_num_interop_threads(%(inter)r)
cfg = torch.__config__.show().splitlines()
print("FACTS " + json.dumps({
    "version": torch.__version__, "intra": torch.get_num_threads(), "inter": torch.get_num_interop_threads(),
    "capability": torch.backends.cpu.get_cpu_capability(),
    "blas": [l.split("BLAS_INFO=")[1].split(",")[0] for l in cfg if "BLAS_INFO=" in l][:1],
    "mkldnn": torch.backends.mkldnn.is_available(), "cuda": torch.version.cuda,
    "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None}), flush=True)
if %(probe)r:
    x = torch.rand(8, 32, 14, 14, requires_grad=True)
    c = torch.nn.Conv2d(32, 64, 5, padding=2); f = torch.nn.Linear(64 * 14 * 14, 64)
    f(torch.relu(c(x)).flatten(1)).sum().backward()
""",
    "tensorflow": """
import json, os
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow as tf
if %(intra)r: tf.config.threading.set_intra_op_parallelism_threads(%(intra)r)
if %(inter)r: tf.config.threading.set_inter_op_parallelism_threads(%(inter)r)
print("FACTS " + json.dumps({"version": tf.__version__}), flush=True)
if %(probe)r:
    x = tf.random.uniform([8, 14, 14, 32]); w = tf.random.uniform([5, 5, 32, 64])
    v = tf.random.uniform([64 * 14 * 14, 64])
    @tf.function
    def step():
        with tf.GradientTape() as t:
            t.watch([x, w, v])
            y = tf.nn.relu(tf.nn.conv2d(x, w, 1, "SAME"))
            l = tf.reduce_sum(tf.matmul(tf.reshape(y, [8, -1]), v))
        return t.gradient(l, [x, w, v])
    step()
""",
    "onnxruntime": """
import json, onnxruntime as ort
print("FACTS " + json.dumps({"version": ort.__version__, "providers": ort.get_available_providers()}), flush=True)
""",
}


def _line(name, text):
    return "  %-12s %s" % (NAMES[name], text)


def _count(n, default="default"):
    return default if not n else str(n)


def _threads(intra, inter, default="default"):
    return "threads: intra-op %s, inter-op %s" % (_count(intra, default), _count(inter, default))


def _onednn(log):
    """What oneDNN's verbose log says: "oneDNN v3.7.3 (ISA; threadpool runtime), ran: ..."."""
    version, isa, runtime, ran = "", "", "", []
    for ln in log:
        f = ln.split(",")
        if not f[0].startswith(("onednn_verbose", "dnnl_verbose")) or len(f) < 3:
            continue
        if f[1][:1] == "v" and f[1][1:].isdigit():  # oneDNN 3.x: a format version field
            f = f[:1] + f[2:]
        text = ",".join(f[1:])
        if "oneDNN v" in text and not version:
            version = text[text.index("oneDNN v") + 7:].split(" ")[0]
        elif "isa:" in text and not isa:
            isa = text[text.index("isa:") + 4:].strip()
        elif "cpu,runtime:" in text and not runtime:
            runtime = text[text.index("runtime:") + 8:].split(",")[0]
        elif "exec" in f[1:3]:
            i = f.index("exec")
            kind, impl, prop = (f[i + 2:i + 5] + ["", "", ""])[:3]
            if kind == "gemm_api":
                kind, impl = "gemm", "sgemm"
            if kind in ("convolution", "deconvolution", "inner_product", "matmul", "pooling", "gemm"):
                what = "%s %s%s" % (kind, impl, " (%s)" % prop if prop and prop != "undef" else "")
                if what not in ran:
                    ran.append(what)
    if not version:
        return "ran no oneDNN kernel (its own kernels)"
    out = "oneDNN %s (%s%s)" % (version, isa or "ISA ?", ", %s runtime" % runtime if runtime else "")
    return out + "; ran " + (", ".join(ran) if ran else "no oneDNN kernel")


def describe(name, intra=None, inter=None, probe=True, timeout=300):
    """The line for peer `name` (torch, tensorflow, onnxruntime) with the benchmark's thread
    counts (None: the framework's default), from a child process of this Python."""
    code = CHILD[name] % {"intra": intra, "inter": inter, "probe": probe}
    env = dict(os.environ, ONEDNN_VERBOSE="1", DNNL_VERBOSE="1", TF_CPP_MIN_LOG_LEVEL="3")
    try:
        r = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        return _line(name, "n/a (%s)" % e.__class__.__name__)
    out = r.stdout.splitlines()
    facts = [json.loads(ln[6:]) for ln in out if ln.startswith("FACTS ")]
    if not facts:
        why = ([ln for ln in r.stderr.splitlines() if "Error" in ln] or ["exit %d" % r.returncode])[-1]
        return _line(name, "n/a (%s for %s)" % (why.strip()[:100], sys.executable))
    f = facts[0]
    if name == "torch":
        text = "%s; %s; CPU kernels %s, BLAS %s, mkldnn %s; CUDA %s (%s)" % (
            f["version"], _threads(f["intra"], f["inter"]), f["capability"], (f["blas"] or ["?"])[0],
            "on" if f["mkldnn"] else "off", f["cuda"] or "none", f["gpu"] or "no GPU")
    elif name == "tensorflow":
        flag = os.environ.get("TF_ENABLE_ONEDNN_OPTS")
        text = "%s; %s; oneDNN rewrites %s (TF_ENABLE_ONEDNN_OPTS %s)" % (
            f["version"], _threads(intra, inter, "default (0: one per core)"), "off" if flag == "0" else "on",
            "=" + flag if flag is not None else "unset: on by default")
    else:
        text = "%s; %s; providers %s (the benchmarks use CPUExecutionProvider, whose kernels are MLAS)" % (
            f["version"], _threads(intra, inter, "default (0: one per core)"), ", ".join(f["providers"]))
    if probe and name != "onnxruntime":
        text += "; probe: " + (_onednn(out) if r.returncode == 0 else "failed (exit %d)" % r.returncode)
    return _line(name, text)


# oneDNN's dnnl_cpu_isa_t values (dnnl_types.h) and their names; bench_util.h has the same.
ISAS = {0x1: "sse41", 0x3: "avx", 0x7: "avx2", 0x407: "avx2_vnni", 0x27: "avx512_core", 0x67: "avx512_core_vnni",
        0xe7: "avx512_core_bf16", 0x3e7: "avx512_core_amx"}
RUNTIMES = {1: "sequential", 2: "OpenMP", 4: "TBB", 8: "threadpool"}


class _DnnlVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_int), ("minor", ctypes.c_int), ("patch", ctypes.c_int),
                ("hash", ctypes.c_char_p), ("cpu_runtime", ctypes.c_uint), ("gpu_runtime", ctypes.c_uint)]


def _loaded(name):
    """The path of the library `name` this process has loaded (from /proc/self/maps), or None."""
    try:
        with open("/proc/self/maps") as f:
            for ln in f:
                path = ln.split()[-1]
                if os.path.basename(path).startswith(name):
                    return path
    except OSError:
        pass
    return None


def tfc_line(intra, inter, lib=None):
    """tfc's line for a Python benchmark, with its sessions' thread counts (0: the default, one
    per core). `lib` is libtfc's path (default: the one this process loaded with the tfc
    package); its OpenBLAS and oneDNN are asked through ctypes (a library handle finds its
    dependencies' symbols). The same words as bench_util.h's bench_print_tfc_line."""
    default = "default (%d)" % os.cpu_count()
    head = _threads(intra, inter, default)
    lib = lib or _loaded("libtfc.so")
    if lib is None:
        return _line("tfc", "%s; kernels n/a (libtfc is not loaded)" % head)
    try:
        h = ctypes.CDLL(lib)
        h.openblas_get_corename.restype = h.openblas_get_config.restype = ctypes.c_char_p
        h.dnnl_version.restype = ctypes.POINTER(_DnnlVersion)
        core, config = h.openblas_get_corename().decode(), h.openblas_get_config().decode().strip()
        if os.environ.get("OPENBLAS_CORETYPE"):  # a core chosen by hand, not by OpenBLAS
            config = "OPENBLAS_CORETYPE=%s; %s" % (os.environ["OPENBLAS_CORETYPE"], config)
        v = h.dnnl_version().contents
        isa = h.dnnl_get_effective_cpu_isa()
    except (OSError, AttributeError) as e:
        return _line("tfc", "%s; kernels n/a (%s)" % (head, e))
    dnnl = "%d.%d.%d" % (v.major, v.minor, v.patch)
    return _line("tfc", "%s; GEMM: oneDNN %s sgemm from 32768 multiply-adds, else OpenBLAS %s (%s), one thread per "
                        "call, sharded over the intra-op pool; convolution and pooling: oneDNN %s (%s runtime, one "
                        "thread per shard), ISA %s" % (head, dnnl, core, config, dnnl,
                                                       RUNTIMES.get(v.cpu_runtime, "?"), ISAS.get(isa, "unknown")))


def print_block(peers, tfc=None, header=True, probe=True):
    """Prints the block: `peers` maps a peer's name (torch, tensorflow, onnxruntime) to the
    (intra, inter) thread counts the benchmark gives it (None: the framework's default);
    `tfc`, when given, is tfc's (intra, inter) for tfc_line, read in this process, which must
    have imported tfc. Each peer is imported only in a child process (describe), so a
    benchmark's own process never loads a peer it does not time."""
    if header:
        print("peers:")
    if tfc is not None:
        print(tfc_line(*tfc))
    for name, (intra, inter) in peers.items():
        sys.stdout.flush()
        print(describe(name, intra, inter, probe))
    sys.stdout.flush()


def _parse(arg):
    name, _, counts = arg.partition("=")
    if name not in CHILD:
        raise SystemExit("peers.py: unknown peer %r (torch, tensorflow, onnxruntime)" % name)
    vals = [int(v) if v else None for v in counts.split(",")] if counts else []
    vals += [None] * (2 - len(vals))
    return name, tuple(vals[:2])


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    flags = {a for a in argv[1:] if a.startswith("--")}
    print_block(dict(_parse(a) for a in args), header="--no-header" not in flags, probe="--no-probe" not in flags)


if __name__ == "__main__":
    main(sys.argv)
