"""String functions with TF 1.x signatures over the string ops tfc has: string_join
(StringJoin) as tf.string_join and tf.strings.join.

The other string ops of TF (AsString, StringSplit, Substr, RegexReplace, StringToNumber, the
hash buckets, base64, ReduceJoin, StringLength) have no kernels in tfc; their names are absent.
"""
from tfc.ops import gen


def string_join(inputs, separator="", name=None):
    return gen.apply("StringJoin", name, inputs=list(inputs), separator=separator)
