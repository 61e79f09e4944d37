"""tf.python_io: TFRecordWriter, tf_record_iterator, TFRecordOptions and
TFRecordCompressionType, over include/tfc/record.h.

Design: a writer and an iterator each own one C TFC_RecordWriter / TFC_RecordReader (the
framing TF writes: length, masked CRC-32C of the length, the bytes, masked CRC-32C of the bytes,
optionally inside one ZLIB or GZIP stream), so files are TF's and TF reads them. Records are
bytes (str is UTF-8 encoded, as TF's writer takes it). Options follow TF 1.15: None, a
compression type string ("", "ZLIB", "GZIP"), a TFRecordCompressionType value or a
TFRecordOptions (whose zlib tuning fields are accepted; the stream uses zlib's defaults).

Errors: TF's, raised as its OpError classes: NotFoundError "<path>; No such file or directory"
for a missing file, DataLossError naming the file and offset of a corrupt record, and
writes to a closed writer FailedPreconditionError. An unknown compression type is ValueError.
"""
from tfc import _pywrap


class TFRecordCompressionType(object):
    NONE = 0
    ZLIB = 1
    GZIP = 2


class TFRecordOptions(object):
    compression_type_map = {
        TFRecordCompressionType.ZLIB: "ZLIB",
        TFRecordCompressionType.GZIP: "GZIP",
        TFRecordCompressionType.NONE: "",
    }

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None, output_buffer_size=None,
                 window_bits=None, compression_level=None, compression_method=None, mem_level=None,
                 compression_strategy=None):
        if compression_type is None:
            compression_type = ""
        if isinstance(compression_type, str):
            if compression_type not in ("", "ZLIB", "GZIP"):
                raise ValueError("Unknown compression type: %s" % compression_type)
        elif compression_type not in self.compression_type_map:
            raise ValueError("Unknown compression type: %s" % compression_type)
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options):
        if not options:
            return ""
        if isinstance(options, TFRecordOptions):
            return cls.get_compression_type_string(options.compression_type)
        if isinstance(options, str):
            if options not in ("", "ZLIB", "GZIP"):
                raise ValueError("Unknown compression type: %s" % options)
            return options
        if options in cls.compression_type_map:
            return cls.compression_type_map[options]
        raise ValueError("Unknown compression type: %s" % options)


def _as_bytes(record):
    if isinstance(record, str):
        return record.encode("utf-8")
    if isinstance(record, (bytes, bytearray, memoryview)):
        return bytes(record)
    raise TypeError("Expected binary or unicode string, got %r" % (record,))


class TFRecordWriter(object):
    """tf.python_io.TFRecordWriter(path, options=None): write(record), flush(), close(); a
    context manager."""

    def __init__(self, path, options=None):
        self._path = str(path)
        self._writer = _pywrap.record_writer(self._path, TFRecordOptions.get_compression_type_string(options))

    def write(self, record):
        _pywrap.record_writer_write(self._writer, _as_bytes(record))

    def flush(self):
        _pywrap.record_writer_flush(self._writer)

    def close(self):
        _pywrap.record_writer_close(self._writer)

    def __enter__(self):
        return self

    def __exit__(self, *unused):
        self.close()


def tf_record_iterator(path, options=None):
    """Yields the records of the TFRecord file at path, as bytes. The file is opened when the
    iteration starts (TF 1.15 opens it at the call; both raise NotFoundError for a missing
    file on the first next())."""
    reader = _pywrap.record_reader(str(path), TFRecordOptions.get_compression_type_string(options))
    try:
        while True:
            rec = _pywrap.record_reader_next(reader)
            if rec is None:
                return
            yield rec
    finally:
        _pywrap.handle_close(reader)
