"""tf.lookup (TF 1.15's lookup_ops.py) over ops_lookup.def's V2 ops: tables are resources of
the device (HashTableV2, MutableHashTableV2, MutableHashTableOfTensorsV2) and their
initializers (InitializeTableV2, InitializeTableFromTextFileV2) go into the
`table_initializer` collection that tables_initializer groups.

StaticHashTable (HashTable), StaticVocabularyTable (known words by a table, others by
StringToHashBucketFast into num_oov_buckets after them), KeyValueTensorInitializer,
TextFileInitializer / TextFileIndex, index_table_from_file, index_table_from_tensor,
index_to_string_table_from_tensor, MutableHashTable, DenseHashTable (MutableDenseHashTableV2),
tables_initializer. Mutable tables add a saveable (_TableSaveable) to the SAVEABLE_OBJECTS
collection that tf.train.Saver saves, as TF's.
"""
from tfc.framework import dtypes
from tfc.framework import ops
from tfc.ops import gen


class TextFileIndex(object):
    WHOLE_LINE = -2
    LINE_NUMBER = -1


def _collection_add(op):
    ops.add_to_collection(ops.GraphKeys.TABLE_INITIALIZERS, op)
    return op


class KeyValueTensorInitializer(object):
    """Keys and values from tensors (InitializeTableV2)."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        with ops.name_scope(name, "key_value_init", [keys, values]) as scope:
            self._keys = ops.convert_to_tensor(keys, dtype=key_dtype, name="keys")
            self._values = ops.convert_to_tensor(values, dtype=value_dtype, name="values")
            self._name = scope
        self.key_dtype, self.value_dtype = self._keys.dtype, self._values.dtype
        self._shared_name = None

    def initialize(self, table):
        with ops.name_scope(self._name, values=(table.resource_handle, self._keys, self._values)):
            return _collection_add(gen.apply("InitializeTableV2", None, table_handle=table.resource_handle,
                                             keys=self._keys, values=self._values))


class TextFileInitializer(object):
    """Keys and values from the columns of a text file (InitializeTableFromTextFileV2): index
    TextFileIndex.WHOLE_LINE is the line, LINE_NUMBER its number (int64), others a column."""

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index, vocab_size=None, delimiter="\t",
                 name=None):
        if key_index == TextFileIndex.LINE_NUMBER and key_dtype != dtypes.int64:
            raise ValueError("Signature mismatch. Keys must be dtype %s, got %s." % (dtypes.int64, key_dtype))
        if value_index == TextFileIndex.LINE_NUMBER and value_dtype != dtypes.int64:
            raise ValueError("Signature mismatch. Values must be dtype %s, got %s." % (dtypes.int64, value_dtype))
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError("Invalid vocab_size %s." % vocab_size)
        self._filename, self._vocab_size, self._delimiter = filename, vocab_size, delimiter
        self._key_index, self._value_index, self._name = key_index, value_index, name
        self.key_dtype, self.value_dtype = dtypes.as_dtype(key_dtype), dtypes.as_dtype(value_dtype)
        if isinstance(filename, str):
            self._shared_name = "hash_table_%s_%d_%s_%s" % (filename, vocab_size or -1, key_index, value_index)
        else:
            self._shared_name = None

    def initialize(self, table):
        with ops.name_scope(self._name, "text_file_init", (table.resource_handle,)):
            filename = ops.convert_to_tensor(self._filename, dtypes.string, name="asset_filepath")
            init = gen.apply("InitializeTableFromTextFileV2", None, table_handle=table.resource_handle,
                             filename=filename, key_index=self._key_index, value_index=self._value_index,
                             vocab_size=-1 if self._vocab_size is None else self._vocab_size,
                             delimiter=self._delimiter)
            _collection_add(init)
            if filename.op.type == "Const":
                ops.add_to_collection(ops.GraphKeys.ASSET_FILEPATHS, filename)
            return init


class StaticHashTable(object):
    """An immutable table (HashTableV2) filled by its initializer."""

    def __init__(self, initializer, default_value, name=None):
        self._initializer = initializer
        self.key_dtype, self.value_dtype = initializer.key_dtype, initializer.value_dtype
        with ops.name_scope(name, "hash_table", (initializer,)) as scope:
            self._resource_handle = gen.apply("HashTableV2", None, shared_name=initializer._shared_name or "",
                                              key_dtype=self.key_dtype, value_dtype=self.value_dtype)
            self._name = scope
            self._default_value = ops.convert_to_tensor(default_value, dtype=self.value_dtype)
            self._init_op = initializer.initialize(self)

    resource_handle = property(lambda self: self._resource_handle)
    initializer = property(lambda self: self._init_op)
    default_value = property(lambda self: self._default_value)
    name = property(lambda self: self._name.rstrip("/"))

    def size(self, name=None):
        with ops.name_scope(name, "%s_Size" % self.name, [self.resource_handle]):
            return gen.apply("LookupTableSizeV2", None, table_handle=self.resource_handle)

    def lookup(self, keys, name=None):
        with ops.name_scope(name, "%s_Lookup" % self.name, (self.resource_handle, keys, self._default_value)):
            keys = ops.convert_to_tensor(keys, dtype=self.key_dtype, name="keys")
            values = gen.apply("LookupTableFindV2", None, table_handle=self.resource_handle, keys=keys,
                               default_value=self._default_value)
            values.set_shape(keys.shape)
            return values

    def export(self, name=None):
        with ops.name_scope(name, "%s_Export" % self.name, [self.resource_handle]):
            return gen.apply("LookupTableExportV2", None, table_handle=self.resource_handle, Tkeys=self.key_dtype,
                             Tvalues=self.value_dtype)


HashTable = StaticHashTable


class StaticVocabularyTable(object):
    """Words of the initializer's table map to their ids; the others to
    size + StringToHashBucketFast(word) mod num_oov_buckets."""

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None):
        if num_oov_buckets <= 0:
            raise ValueError("oov_buckets must be > 0.")
        with ops.name_scope(name, "hash_table"):
            self._table = StaticHashTable(initializer, -1)
        self._num_oov_buckets = num_oov_buckets
        self.key_dtype, self.value_dtype = lookup_key_dtype or initializer.key_dtype, dtypes.int64

    resource_handle = property(lambda self: self._table.resource_handle)
    initializer = property(lambda self: self._table.initializer)

    def size(self, name=None):
        from tfc.ops import math_ops
        with ops.name_scope(name, "size"):
            return math_ops.add(self._table.size(), self._num_oov_buckets)

    def lookup(self, keys, name=None):
        from tfc.ops import array_ops, math_ops, string_ops
        with ops.name_scope(name, "hash_table_Lookup"):
            keys = ops.convert_to_tensor(keys, dtype=self.key_dtype)
            ids = self._table.lookup(keys)
            buckets = string_ops.string_to_hash_bucket_fast(keys, self._num_oov_buckets, name="hash_bucket")
            buckets = math_ops.add(buckets, self._table.size())
            is_known = math_ops.not_equal(ids, self._table.default_value)
            return array_ops.where(is_known, ids, buckets)


def index_table_from_file(vocabulary_file=None, num_oov_buckets=0, vocab_size=None, default_value=-1,
                          hasher_spec=None, key_dtype=dtypes.string, name=None, key_column_index=-2,
                          value_column_index=-1, delimiter="\t"):
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("vocabulary_file must be specified and must not be empty.")
    if num_oov_buckets < 0:
        raise ValueError("num_oov_buckets must be greater or equal than 0, got %d." % num_oov_buckets)
    with ops.name_scope(name, "string_to_index"):
        init = TextFileInitializer(vocabulary_file, dtypes.string, key_column_index, dtypes.int64,
                                   value_column_index, vocab_size=vocab_size, delimiter=delimiter)
        if num_oov_buckets:
            return StaticVocabularyTable(init, num_oov_buckets)
        return StaticHashTable(init, default_value)


def index_table_from_tensor(vocabulary_list, num_oov_buckets=0, default_value=-1, hasher_spec=None,
                            dtype=dtypes.string, name=None):
    from tfc.ops import array_ops, math_ops
    with ops.name_scope(name, "string_to_index"):
        keys = ops.convert_to_tensor(vocabulary_list, dtype=dtype)
        ids = math_ops.cast(array_ops.range(array_ops.size(keys)), dtypes.int64)
        init = KeyValueTensorInitializer(keys, ids, dtype, dtypes.int64, name="table_init")
        if num_oov_buckets:
            return StaticVocabularyTable(init, num_oov_buckets)
        return StaticHashTable(init, default_value)


def index_to_string_table_from_tensor(vocabulary_list, default_value="UNK", name=None):
    from tfc.ops import array_ops, math_ops
    with ops.name_scope(name, "index_to_string"):
        values = ops.convert_to_tensor(vocabulary_list, dtypes.string)
        keys = math_ops.cast(array_ops.range(array_ops.size(values)), dtypes.int64)
        init = KeyValueTensorInitializer(keys, values, dtypes.int64, dtypes.string, name="table_init")
        return StaticHashTable(init, default_value)


class _TableSaveable(object):
    """What tf.train.Saver saves of a mutable table (TF's MutableHashTable._Saveable): the
    table's exported keys and values as "<name>-keys" and "<name>-values", restored by
    LookupTableImportV2 (the C saver's TFC_SaverTable)."""

    def __init__(self, table, name):
        self.table = table
        self.name = name
        self.keys, self.values = table.export()


class _MutableTable(object):
    """The operations of the mutable tables: ops named as TF's (`<name>_lookup_table_find`, ...)
    and colocated with the table."""

    def _finish(self, name, checkpoint):
        if checkpoint:
            ops.add_to_collection(ops.GraphKeys.SAVEABLE_OBJECTS, _TableSaveable(self, name))

    resource_handle = property(lambda self: self._resource_handle)
    name = property(lambda self: self._name)
    default_value = property(lambda self: self._default_value)

    def size(self, name=None):
        with ops.name_scope(name, "%s_Size" % self.name, [self._resource_handle]):
            with ops.colocate_with(self._resource_handle):
                return gen.apply("LookupTableSizeV2", None, table_handle=self._resource_handle)

    def lookup(self, keys, name=None):
        with ops.name_scope(name, "%s_lookup_table_find" % self.name,
                            (self._resource_handle, keys, self._default_value)):
            keys = ops.convert_to_tensor(keys, self.key_dtype, name="keys")
            with ops.colocate_with(self._resource_handle):
                return gen.apply("LookupTableFindV2", None, table_handle=self._resource_handle, keys=keys,
                                 default_value=self._default_value)

    def insert(self, keys, values, name=None):
        with ops.name_scope(name, "%s_lookup_table_insert" % self.name, [self._resource_handle, keys, values]):
            keys = ops.convert_to_tensor(keys, self.key_dtype, name="keys")
            values = ops.convert_to_tensor(values, self.value_dtype, name="values")
            with ops.colocate_with(self._resource_handle):
                return gen.apply("LookupTableInsertV2", None, table_handle=self._resource_handle, keys=keys,
                                 values=values)

    def remove(self, keys, name=None):
        keys = ops.convert_to_tensor(keys, self.key_dtype, name="keys") if not isinstance(keys, ops.Tensor) else keys
        if keys.dtype != self.key_dtype:
            raise TypeError("Signature mismatch. Keys must be dtype %s, got %s." % (self.key_dtype, keys.dtype))
        with ops.name_scope(name, "%s_lookup_table_remove" % self.name, (self._resource_handle, keys)):
            return gen.apply("LookupTableRemoveV2", None, table_handle=self._resource_handle, keys=keys)

    def export(self, name=None):
        with ops.name_scope(name, "%s_lookup_table_export_values" % self.name, [self._resource_handle]):
            with ops.colocate_with(self._resource_handle):
                return gen.apply("LookupTableExportV2", None, table_handle=self._resource_handle,
                                 Tkeys=self.key_dtype, Tvalues=self.value_dtype)


class MutableHashTable(_MutableTable):
    """A mutable table (MutableHashTableV2, or ...OfTensorsV2 for a non-scalar default), named
    `name`; with checkpoint=True (shared under its node name) tf.train.Saver saves it."""

    def __init__(self, key_dtype, value_dtype, default_value, name="MutableHashTable", checkpoint=True):
        self.key_dtype, self.value_dtype = dtypes.as_dtype(key_dtype), dtypes.as_dtype(value_dtype)
        self._default_value = ops.convert_to_tensor(default_value, dtype=self.value_dtype)
        shape = self._default_value.shape.as_list()
        self._name = name
        common = dict(key_dtype=self.key_dtype, value_dtype=self.value_dtype, use_node_name_sharing=bool(checkpoint))
        if shape:
            self._resource_handle = gen.apply("MutableHashTableOfTensorsV2", name, value_shape=shape, **common)
        else:
            self._resource_handle = gen.apply("MutableHashTableV2", name, **common)
        self._finish(name, checkpoint)


class DenseHashTable(_MutableTable):
    """TF's open-addressing table (MutableDenseHashTableV2): empty_key and deleted_key mark free
    and removed buckets and may not be used as keys; the default value's shape is the value
    shape. Export gives the bucket arrays; tf.train.Saver saves them (checkpoint=True)."""

    def __init__(self, key_dtype, value_dtype, default_value, empty_key, deleted_key, initial_num_buckets=None,
                 name="MutableDenseHashTable", checkpoint=True):
        self.key_dtype, self.value_dtype = dtypes.as_dtype(key_dtype), dtypes.as_dtype(value_dtype)
        self._default_value = ops.convert_to_tensor(default_value, dtype=self.value_dtype, name="default_value")
        self._name = name
        empty = ops.convert_to_tensor(empty_key, dtype=self.key_dtype, name="empty_key")
        deleted = ops.convert_to_tensor(deleted_key, dtype=self.key_dtype, name="deleted_key")
        attrs = dict(key_dtype=self.key_dtype, value_dtype=self.value_dtype, use_node_name_sharing=bool(checkpoint),
                     value_shape=self._default_value.shape.as_list())
        if initial_num_buckets is not None:
            attrs["initial_num_buckets"] = initial_num_buckets
        self._resource_handle = gen.apply("MutableDenseHashTableV2", name, empty_key=empty, deleted_key=deleted,
                                          **attrs)
        self._finish(name, checkpoint)


MutableDenseHashTable = DenseHashTable


def tables_initializer(name="init_all_tables"):
    """Groups the `table_initializer` collection (a NoOp when it is empty)."""
    from tfc.ops import check_ops, variables
    inits = ops.get_collection(ops.GraphKeys.TABLE_INITIALIZERS)
    if inits:
        return variables.group(*inits, name=name)
    return check_ops.no_op(name=name)
