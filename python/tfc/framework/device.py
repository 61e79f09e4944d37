"""Device strings as nested `tf.device` strings combine: canonical form and merging.

One implementation, the C builders' (TFC_MergeDeviceSpec): "/gpu:2" is "/device:GPU:2", and
merge(inner, outer) keeps inner's fields and fills the unset ones from outer. A malformed
spec raises ValueError.
"""
from tfc import _pywrap
from tfc.framework import errors


def merge(inner, outer):
    try:
        return _pywrap.merge_device(outer or "", inner or "")
    except errors.InvalidArgumentError as e:
        raise ValueError(e.message)


def canonical(spec):
    return merge(spec, "")
