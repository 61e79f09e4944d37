"""The discrete Fourier transforms (tf.signal.* and their TF 1.x tf.spectral.* aliases) over
ops_fft.def's ops: fft, ifft, fft2d, ifft2d, fft3d, ifft3d (the ops themselves, as TF's) and
rfft, irfft, rfft2d, irfft2d, rfft3d, irfft3d, which, as TF's wrappers do, infer fft_length
from the input's inner dims when it is not given (irfft: 2 * (n - 1) for the innermost), zero-pad
the input up to fft_length (irfft: its innermost dim up to fft_length / 2 + 1; the op crops),
and take float32 / float64 (rfft) or complex64 / complex128 (irfft), raising TF's ValueError
for other dtypes. The ops' gradients are src/grad/grad_fft.c's.
"""
from tfc.framework import dtypes
from tfc.framework import ops
from tfc.framework import tensor_util
from tfc.ops import array_ops
from tfc.ops import gen
from tfc.ops import math_ops

NAMES = "fft ifft fft2d ifft2d fft3d ifft3d rfft irfft rfft2d irfft2d rfft3d irfft3d".split()


def _complex(op_type):
    def fn(input, name=None):  # noqa: A002 (TF's name)
        return gen.apply(op_type, name, input=input)
    fn.__name__ = op_type.lower()
    return fn


fft, ifft = _complex("FFT"), _complex("IFFT")
fft2d, ifft2d = _complex("FFT2D"), _complex("IFFT2D")
fft3d, ifft3d = _complex("FFT3D"), _complex("IFFT3D")


def _infer_length(x, rank, inverse):
    """fft_length from x's inner dims: a constant when they are known, else from Shape."""
    inner = x.shape[-rank:]
    if inner.is_fully_defined():
        n = inner.as_list()
        if inverse:
            n[-1] = max(0, 2 * (n[-1] - 1))
        return ops.convert_to_tensor(n, dtypes.int32)
    n = array_ops.shape(x)[-rank:]
    if not inverse:
        return n
    dims = array_ops.unstack(n, num=rank)
    dims[-1] = math_ops.maximum(0, 2 * (dims[-1] - 1))
    return array_ops.stack(dims)


def _maybe_pad(x, rank, fft_length, inverse):
    """x zero-padded on its inner `rank` dims up to fft_length (irfft: innermost to n / 2 + 1)."""
    if x.shape.ndims is not None and any(d == 0 for d in x.shape.as_list()):
        return x
    n = tensor_util.constant_value(fft_length)
    if n is not None and x.shape.ndims is not None and x.shape[-rank:].is_fully_defined():
        want = [int(v) for v in n]
        if inverse:
            want[-1] = want[-1] // 2 + 1
        pads = [[0, max(w - d, 0)] for w, d in zip(want, x.shape[-rank:].as_list())]
        if any(p > 0 for _, p in pads):
            return array_ops.pad(x, [[0, 0]] * max(x.shape.ndims - rank, 0) + pads)
        return x
    inner = array_ops.shape(x)[-rank:]
    outer = array_ops.zeros([math_ops.maximum(0, array_ops.rank(x) - rank)], fft_length.dtype)
    if inverse:
        fft_length = array_ops.concat([fft_length[:-1], fft_length[-1:] // 2 + 1], 0)
    pads = array_ops.concat([outer, math_ops.maximum(0, fft_length - inner)], 0)
    return array_ops.pad(x, array_ops.stack([array_ops.zeros_like(pads), pads], axis=1))


def _double_op(op_type, name, x, fft_length):
    """op_type on float64 / complex128: Treal and Tcomplex came after TF 1.15, so the op list
    Python reads (TF 1.15's view, float32 / complex64 only) has no place for them and the node
    is made with both set, as TF 2.x writes them. Float32 nodes leave them out (TF 1.15's)."""
    with ops.name_scope(name, op_type) as scope:
        n = ops.convert_to_tensor(fft_length, dtypes.int32, name="fft_length")
        attrs = [(a,) + gen._attr_value(op_type, {"type": "type", "name": a}, dt)
                 for a, dt in (("Treal", dtypes.float64), ("Tcomplex", dtypes.complex128))]
        return ops.get_default_graph()._create_op(op_type, [x, n], attrs, name=scope).outputs[0]


def _real(op_type, rank, default_name, inverse):
    def fn(input_tensor, fft_length=None, name=None):
        with ops.name_scope(name, default_name, [input_tensor, fft_length]) as name:
            x = ops.convert_to_tensor(input_tensor,
                                      preferred_dtype=dtypes.complex64 if inverse else dtypes.float32)
            if inverse:
                x.shape.with_rank_at_least(rank)
                if x.dtype not in (dtypes.complex64, dtypes.complex128):
                    raise ValueError("IRFFT requires tf.complex64 or tf.complex128 inputs, got: %s" % x)
            elif x.dtype not in (dtypes.float32, dtypes.float64):
                raise ValueError("RFFT requires tf.float32 or tf.float64 inputs, got: %s" % x)
            else:
                x.shape.with_rank_at_least(rank)
            if fft_length is None:
                fft_length = _infer_length(x, rank, inverse)
            else:
                fft_length = ops.convert_to_tensor(fft_length, dtypes.int32)
            x = _maybe_pad(x, rank, fft_length, inverse)
            static = tensor_util.constant_value(fft_length)
            if static is not None:
                fft_length = static
            if x.dtype in (dtypes.float32, dtypes.complex64):
                return gen.apply(op_type, name, input=x, fft_length=fft_length)
            return _double_op(op_type, name, x, fft_length)
    fn.__name__ = default_name
    return fn


rfft, irfft = _real("RFFT", 1, "rfft", False), _real("IRFFT", 1, "irfft", True)
rfft2d, irfft2d = _real("RFFT2D", 2, "rfft2d", False), _real("IRFFT2D", 2, "irfft2d", True)
rfft3d, irfft3d = _real("RFFT3D", 3, "rfft3d", False), _real("IRFFT3D", 3, "irfft3d", True)
