"""String and file functions with TF 1.x signatures over ops_string.def's ops and StringJoin:
string_join / strings.join, as_string, strings.length, substr, string_to_number,
encode_base64 / decode_base64, string_split (a SparseTensor), read_file / write_file.

Also regex_full_match / regex_replace (the Static* ops for Python patterns), the hash buckets,
strings.split (StringSplitV2), strip / lower / upper, strings.format and tf.print (StringFormat
+ PrintV2). ReduceJoin and the Unicode ops have no kernels in tfc; their names are absent.
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


# ---- the regex, hash, split, case and format ops (kernels_regex.c, kernels_string_ops.c) ----

def regex_full_match(input, pattern, name=None):  # noqa: A002
    """StaticRegexFullMatch for a Python pattern (compiled once), RegexFullMatch for a tensor."""
    if isinstance(pattern, (str, bytes)):
        return gen.apply("StaticRegexFullMatch", name, input=input, pattern=pattern)
    return gen.apply("RegexFullMatch", name, input=input, pattern=pattern)


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """StaticRegexReplace when pattern and rewrite are Python strings, else RegexReplace."""
    if isinstance(pattern, (str, bytes)) and isinstance(rewrite, (str, bytes)):
        return gen.apply("StaticRegexReplace", name, input=input, pattern=pattern, rewrite=rewrite,
                         replace_global=replace_global)
    return gen.apply("RegexReplace", name, input=input, pattern=pattern, rewrite=rewrite,
                     replace_global=replace_global)


def string_to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002
    return gen.apply("StringToHashBucketFast", name, input=input, num_buckets=num_buckets)


def string_to_hash_bucket_strong(input, num_buckets, key, name=None):  # noqa: A002
    return gen.apply("StringToHashBucketStrong", name, input=input, num_buckets=num_buckets, key=list(key))


def string_to_hash_bucket(string_tensor, num_buckets, name=None):
    return gen.apply("StringToHashBucket", name, string_tensor=string_tensor, num_buckets=num_buckets)


def string_strip(input, name=None):  # noqa: A002
    return gen.apply("StringStrip", name, input=input)


def string_lower(input, encoding="", name=None):  # noqa: A002
    return gen.apply("StringLower", name, input=input, encoding=encoding)


def string_upper(input, encoding="", name=None):  # noqa: A002
    return gen.apply("StringUpper", name, input=input, encoding=encoding)


def string_split_v2(source, sep=None, maxsplit=-1, name=None):
    """tf.strings.split (1.15): a SparseTensor of source's tokens split on sep (None: whitespace
    runs, as Python's str.split) under StringSplitV2."""
    from tfc.data_flow_ops import SparseTensor
    with ops.name_scope(name, "StringSplit", [source]):
        source = ops.convert_to_tensor(source, dtype=dtypes.string)
        indices, values, shape = gen.apply("StringSplitV2", None, input=source, sep="" if sep is None else sep,
                                           maxsplit=maxsplit)
        indices.set_shape([None, 2])
        values.set_shape([None])
        shape.set_shape([2])
        return SparseTensor(indices, values, shape)


def string_format(template, inputs, placeholder="{}", summarize=3, name=None):
    """tf.strings.format: StringFormat with TF's Python check of the placeholder count."""
    if isinstance(inputs, (list, tuple)):
        inputs = list(inputs)
    else:
        inputs = [inputs]
    n = template.count(placeholder)
    if n != len(inputs):
        raise ValueError("The template expects %d tensors, but the inputs only has %d. Please ensure the number of "
                         "placeholders in template matches inputs length." % (n, len(inputs)))
    return gen.apply("StringFormat", name, inputs=[ops.convert_to_tensor(x) for x in inputs], template=template,
                     placeholder=placeholder, summarize=summarize)


def print_v2(*inputs, **kwargs):
    """tf.print: the inputs (tensors rendered by StringFormat, other values by str) joined by
    sep, printed by PrintV2 to output_stream (sys.stderr, sys.stdout or a "file://" path)."""
    import sys
    output_stream = kwargs.pop("output_stream", sys.stderr)
    sep, end = kwargs.pop("sep", " "), kwargs.pop("end", "\n")
    summarize, name = kwargs.pop("summarize", 3), kwargs.pop("name", None)
    if kwargs:
        raise ValueError("Unrecognized keyword arguments for tf.print: %s" % list(kwargs))
    if output_stream is sys.stderr:
        stream = "stderr"
    elif output_stream is sys.stdout:
        stream = "stdout"
    elif isinstance(output_stream, str) and output_stream.startswith("file://"):
        stream = output_stream
    else:
        raise ValueError("Unsupported output stream, logging level, or file. %s" % (output_stream,))
    placeholder = "{}"
    parts, tensors = [], []
    for x in inputs:
        if isinstance(x, ops.Tensor):
            parts.append(placeholder)
            tensors.append(x)
        else:
            parts.append(str(x))
    with ops.name_scope(name, "PrintV2"):
        s = gen.apply("StringFormat", None, inputs=tensors, template=sep.join(parts), placeholder=placeholder,
                      summarize=summarize)
        return gen.apply("PrintV2", None, input=s, output_stream=stream, end=end)
