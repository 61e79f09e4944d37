"""Sparse functions with TF 1.x signatures: sparse_to_dense and sparse_tensor_to_dense /
tf.sparse.to_dense over the SparseToDense op (kernels_array_tail.c), for the SparseTensors of
data_flow_ops (VarLenFeature parsing, string_split).

The other sparse ops (SparseAdd, SparseReduceSum, SparseConcat, sparse_placeholder's feeds,
embedding_lookup_sparse) have no kernels or session support in tfc; their names are absent.
"""
from tfc.ops import gen


def _to_sparse_tensor(sp_input):
    from tfc.data_flow_ops import SparseTensor, SparseTensorValue
    if isinstance(sp_input, SparseTensorValue):
        return SparseTensor(sp_input.indices, sp_input.values, sp_input.dense_shape)
    if not isinstance(sp_input, SparseTensor):
        raise TypeError("Input must be a SparseTensor.")
    return sp_input


def sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value=0, validate_indices=True, name=None):
    return gen.apply("SparseToDense", name, sparse_indices=sparse_indices, output_shape=output_shape,
                     sparse_values=sparse_values, default_value=default_value, validate_indices=validate_indices)


def sparse_tensor_to_dense(sp_input, default_value=0, validate_indices=True, name=None):
    """The dense tensor of sp_input, default_value where it has no entry (SparseToDense)."""
    sp_input = _to_sparse_tensor(sp_input)
    if default_value is None:
        default_value = b"" if sp_input.dtype.name == "string" else 0
    return sparse_to_dense(sp_input.indices, sp_input.dense_shape, sp_input.values, default_value=default_value,
                           validate_indices=validate_indices, name=name)
