"""String and file functions with TF 1.x signatures over ops_string.def's ops and StringJoin:
string_join / strings.join, as_string, strings.length, substr, string_to_number,
encode_base64 / decode_base64, string_split (a SparseTensor), read_file / write_file.

TF's other string ops (RegexReplace, the hash buckets, ReduceJoin, StringFormat, UnicodeXxx)
have no kernels in tfc; their names are absent.
"""
from tfc.framework import dtypes
from tfc.framework import ops
from tfc.ops import gen


def string_join(inputs, separator="", name=None):
    return gen.apply("StringJoin", name, inputs=list(inputs), separator=separator)


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):  # noqa: A002
    return gen.apply("AsString", name, input=input, precision=precision, scientific=scientific, shortest=shortest,
                     width=width, fill=fill)


def string_length(input, name=None, unit="BYTE"):  # noqa: A002
    return gen.apply("StringLength", name, input=input, unit=unit)


def substr(input, pos, len, name=None, unit="BYTE"):  # noqa: A002 (TF's names)
    return gen.apply("Substr", name, input=input, pos=pos, len=len, unit=unit)


def string_to_number(string_tensor, out_type=dtypes.float32, name=None):
    return gen.apply("StringToNumber", name, string_tensor=string_tensor, out_type=out_type)


def encode_base64(input, pad=False, name=None):  # noqa: A002
    return gen.apply("EncodeBase64", name, input=input, pad=pad)


def decode_base64(input, name=None):  # noqa: A002
    return gen.apply("DecodeBase64", name, input=input)


def string_split(source, sep=None, skip_empty=True, delimiter=None, result_type="SparseTensor", name=None):
    """A SparseTensor of source's tokens under "StringSplit" (the StringSplit op: every byte of
    the delimiter splits, an empty one splits into bytes; sep and delimiter are aliases,
    default " ")."""
    from tfc.data_flow_ops import SparseTensor
    if sep is not None and delimiter is not None:
        raise ValueError("Cannot specify both 'sep' and 'delimiter'")
    if result_type != "SparseTensor":
        raise ValueError("result_type must be 'SparseTensor' (RaggedTensor is not supported)")
    delimiter = " " if sep is None and delimiter is None else (sep if sep is not None else delimiter)
    with ops.name_scope(name, "StringSplit", [source]):
        delimiter = ops.convert_to_tensor(delimiter, dtype=dtypes.string)
        source = ops.convert_to_tensor(source, dtype=dtypes.string)
        indices, values, shape = gen.apply("StringSplit", None, input=source, delimiter=delimiter,
                                           skip_empty=skip_empty)
        indices.set_shape([None, 2])
        values.set_shape([None])
        shape.set_shape([2])
        return SparseTensor(indices, values, shape)


def read_file(filename, name=None):
    return gen.apply("ReadFile", name, filename=filename)


def write_file(filename, contents, name=None):
    return gen.apply("WriteFile", name, filename=filename, contents=contents)
