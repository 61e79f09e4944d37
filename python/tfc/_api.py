"""The TF 1.x API namespace: what `import tfc.compat.v1 as tf` and `import tfc as tf` see.

Only names are gathered here; each lives in its module under framework/, ops/ or client/.
Submodules of the namespace (tf.nn, tf.errors, tf.raw_ops, tf.compat) are module objects.
"""
import types as _types

from tfc.framework import dtypes as _dtypes
from tfc.framework import errors  # noqa: F401 (tf.errors)
from tfc.framework import ops as _ops
from tfc.framework import tensor_shape as _tensor_shape
from tfc.framework import config as _config
from tfc.framework import constant_op as _constant_op
from tfc.client import session as _session
from tfc.ops import array_ops as _array_ops
from tfc.ops import math_ops as _math_ops
from tfc.ops import nn_ops as _nn_ops
from tfc.ops import clip_ops as _clip_ops
from tfc.ops import random_ops as _random_ops
from tfc.ops import complex_ops as _complex_ops
from tfc.ops import raw_ops  # noqa: F401 (tf.raw_ops)

# dtypes
DType = _dtypes.DType
as_dtype = _dtypes.as_dtype
for _n in ("float16", "half", "float32", "float64", "double", "bfloat16", "int8", "int16", "int32",
           "int64", "uint8", "uint16", "uint32", "uint64", "string", "bool", "complex64", "complex128",
           "qint8", "quint8", "qint16", "quint16", "qint32", "resource", "variant"):
    globals()[_n] = getattr(_dtypes, _n)

# shapes
TensorShape = _tensor_shape.TensorShape
Dimension = _tensor_shape.Dimension
dimension_value = _tensor_shape.dimension_value

# graph
Graph = _ops.Graph
Operation = _ops.Operation
Tensor = _ops.Tensor
GraphKeys = _ops.GraphKeys
get_default_graph = _ops.get_default_graph
reset_default_graph = _ops.reset_default_graph
name_scope = _ops.name_scope
device = _ops.device
control_dependencies = _ops.control_dependencies
add_to_collection = _ops.add_to_collection
add_to_collections = _ops.add_to_collections
get_collection = _ops.get_collection
get_collection_ref = _ops.get_collection_ref
convert_to_tensor = _ops.convert_to_tensor
register_tensor_conversion_function = _ops.register_tensor_conversion_function
is_tensor = _ops.is_tensor
constant = _constant_op.constant
OperatorNotAllowedInGraphError = errors.OperatorNotAllowedInGraphError

# session and config
Session = _session.Session
InteractiveSession = _session.InteractiveSession
get_default_session = _session.get_default_session
ConfigProto = _config.ConfigProto
GPUOptions = _config.GPUOptions
GraphOptions = _config.GraphOptions
OptimizerOptions = _config.OptimizerOptions
RunOptions = _config.RunOptions
RunMetadata = _config.RunMetadata

# ops
placeholder = _array_ops.placeholder
placeholder_with_default = _array_ops.placeholder_with_default
identity = _array_ops.identity
reshape = _array_ops.reshape
shape = _array_ops.shape
stack = _array_ops.stack
strided_slice = _array_ops.strided_slice
add = _math_ops.add
subtract = _math_ops.subtract
multiply = _math_ops.multiply
negative = _math_ops.negative
cast = _math_ops.cast
truediv = _math_ops.truediv
divide = _math_ops.divide
matmul = _math_ops.matmul
reduce_sum = _math_ops.reduce_sum
reduce_mean = _math_ops.reduce_mean
reduce_max = _math_ops.reduce_max
reduce_min = _math_ops.reduce_min
reduce_prod = _math_ops.reduce_prod

nn = _types.ModuleType("tfc.nn", "tf.nn")
nn.relu = _nn_ops.relu
nn.softmax = _nn_ops.softmax

# math, array, nn, random and clip functions (ops/*.py): tf.*, tf.math.*, tf.nn.*, tf.random.*
math = _types.ModuleType("tfc.math", "tf.math")
random = _types.ModuleType("tfc.random", "tf.random")
_MATH = ("add_n abs negative square sqrt rsqrt exp log log1p expm1 tanh sigmoid sign floor ceil round pow "
         "maximum minimum equal not_equal less less_equal greater greater_equal logical_and logical_or "
         "logical_not logical_xor argmax argmin reduce_all reduce_any reduce_logsumexp reduce_sum reduce_mean "
         "reduce_max reduce_min reduce_prod count_nonzero cumsum cumprod squared_difference floordiv floormod "
         "mod truediv divide realdiv reciprocal sin cos add subtract multiply scalar_mul is_finite is_nan "
         "is_inf tensordot linspace lin_space").split()
for _n in _MATH:
    setattr(math, _n, getattr(_math_ops, _n))
for _n in _MATH + "div to_float to_double to_int32 to_int64 to_bfloat16 saturate_cast".split():
    globals()[_n] = getattr(_math_ops, _n)
for _n in ("concat split unstack expand_dims squeeze transpose tile pad gather one_hot zeros ones zeros_like "
           "ones_like fill range slice reverse reverse_v2 where where_v2 size rank shape_n identity_n "
           "sequence_mask meshgrid stop_gradient boolean_mask gather_nd dynamic_partition dynamic_stitch "
           "parallel_dynamic_stitch broadcast_to").split():
    globals()[_n] = getattr(_array_ops, _n)
for _n in "clip_by_value clip_by_norm global_norm clip_by_global_norm clip_by_average_norm".split():
    globals()[_n] = getattr(_clip_ops, _n)
for _n in "random_normal truncated_normal random_uniform random_shuffle multinomial".split():
    globals()[_n] = getattr(_random_ops, _n)
random.normal, random.truncated_normal, random.uniform, random.shuffle = (
    _random_ops.random_normal, _random_ops.truncated_normal, _random_ops.random_uniform,
    _random_ops.random_shuffle)
random.multinomial, random.categorical = _random_ops.multinomial, _random_ops.categorical
random.stateless_uniform, random.stateless_normal, random.stateless_truncated_normal = (
    _random_ops.stateless_random_uniform, _random_ops.stateless_random_normal,
    _random_ops.stateless_truncated_normal)
math.in_top_k, math.top_k = _nn_ops.in_top_k, _nn_ops.top_k
math.sigmoid, math.tanh, math.softplus = _math_ops.sigmoid, _math_ops.tanh, _nn_ops.softplus
for _n in ("relu6 elu selu leaky_relu softplus softsign sigmoid tanh bias_add xw_plus_b relu_layer log_softmax "
           "l2_loss l2_normalize sparse_softmax_cross_entropy_with_logits softmax_cross_entropy_with_logits "
           "softmax_cross_entropy_with_logits_v2 sigmoid_cross_entropy_with_logits "
           "weighted_cross_entropy_with_logits in_top_k moments batch_normalization fused_batch_norm conv2d "
           "max_pool avg_pool dropout embedding_lookup top_k lrn local_response_normalization").split():
    setattr(nn, _n, getattr(_nn_ops, _n))
nn.softmax_cross_entropy_with_logits_v2 = _nn_ops.softmax_cross_entropy_with_logits_v2
nn.log_softmax = _nn_ops.log_softmax
math.log_softmax, math.softmax = _nn_ops.log_softmax, _nn_ops.softmax

# complex numbers (ops/complex_ops.py)
for _n in "complex real imag conj angle".split():
    globals()[_n] = getattr(_complex_ops, _n)
    setattr(math, _n, getattr(_complex_ops, _n))

newaxis = None
__version__ = "1.15.0"
VERSION = __version__

# variables and training (tfc/ops/variables.py: the bridge to include/tfc/train.h's builders)
from tfc.ops import variables as _variables  # noqa: E402
from tfc.ops import variable_scope as _vs  # noqa: E402
from tfc.ops import init_ops as _init_ops  # noqa: E402
from tfc.ops import gradients_impl as _gradients_impl  # noqa: E402
from tfc.training import optimizer as _optimizer  # noqa: E402
from tfc.training import training_util as _training_util  # noqa: E402

Variable = _variables.Variable
VariableScope = _vs.VariableScope
variable_scope = _vs.variable_scope
variable_op_scope = _vs.variable_op_scope
get_variable = _vs.get_variable
get_variable_scope = _vs.get_variable_scope
AUTO_REUSE = _vs.AUTO_REUSE
for _n in ("global_variables", "all_variables", "trainable_variables", "local_variables", "model_variables",
           "moving_average_variables", "variables_initializer", "initialize_variables",
           "global_variables_initializer", "initialize_all_variables", "local_variables_initializer",
           "initialize_local_variables", "set_random_seed", "group", "assign", "assign_add", "assign_sub",
           "is_variable_initialized"):
    globals()[_n] = getattr(_variables, _n)
for _n in ("zeros_initializer", "ones_initializer", "constant_initializer", "random_uniform_initializer",
           "random_normal_initializer", "truncated_normal_initializer", "glorot_uniform_initializer",
           "glorot_normal_initializer", "variance_scaling_initializer"):
    globals()[_n] = getattr(_init_ops, _n)
random.set_random_seed = _variables.set_random_seed
gradients = _gradients_impl.gradients

# control flow (tfc/ops/control_flow_ops.py: include/tfc/control_flow.h's builders)
from tfc.ops import control_flow_ops as _cf  # noqa: E402
cond, case, while_loop = _cf.cond, _cf.case, _cf.while_loop
initializers = _types.ModuleType("tfc.initializers", "tf.initializers")
initializers.zeros, initializers.ones = _init_ops.Zeros, _init_ops.Ones
initializers.constant, initializers.glorot_uniform = _init_ops.Constant, _init_ops.GlorotUniform
initializers.random_normal, initializers.random_uniform = _init_ops.RandomNormal, _init_ops.RandomUniform
initializers.truncated_normal = _init_ops.TruncatedNormal
initializers.global_variables = _variables.global_variables_initializer
initializers.local_variables = _variables.local_variables_initializer
initializers.variables = _variables.variables_initializer

train = globals().get("train") or _types.ModuleType("tfc.train", "tf.train")
for _n in ("Optimizer", "GradientDescentOptimizer", "MomentumOptimizer", "AdamOptimizer", "AdagradOptimizer",
           "RMSPropOptimizer", "AdadeltaOptimizer", "FtrlOptimizer", "ProximalGradientDescentOptimizer",
           "ProximalAdagradOptimizer"):
    setattr(train, _n, getattr(_optimizer, _n))
from tfc.training import sync_replicas_optimizer as _sync_replicas  # noqa: E402
train.SyncReplicasOptimizer = _sync_replicas.SyncReplicasOptimizer
for _n in ("get_global_step", "get_or_create_global_step", "create_global_step", "exponential_decay",
           "ExponentialMovingAverage"):
    setattr(train, _n, getattr(_training_util, _n))
from tfc.training import learning_rate_decay as _lr_decay  # noqa: E402
for _n in ("piecewise_constant", "polynomial_decay", "natural_exp_decay", "inverse_time_decay", "cosine_decay",
           "cosine_decay_restarts", "linear_cosine_decay"):
    setattr(train, _n, getattr(_lr_decay, _n))
contrib = globals().get("contrib") or _types.ModuleType("tfc.contrib", "tf.contrib")
if not hasattr(contrib, "layers"):
    contrib.layers = _types.ModuleType("tfc.contrib.layers", "tf.contrib.layers")
contrib.layers.l2_regularizer = _training_util.l2_regularizer
contrib.layers.xavier_initializer = _init_ops.xavier_initializer
# tf.train.replica_device_setter and tf.contrib.training's ps strategy (tfc/training/device_setter.py)
from tfc.training import device_setter as _device_setter  # noqa: E402
train.replica_device_setter = _device_setter.replica_device_setter
if not hasattr(contrib, "training"):
    contrib.training = _types.ModuleType("tfc.contrib.training", "tf.contrib.training")
contrib.training.GreedyLoadBalancingStrategy = _device_setter.GreedyLoadBalancingStrategy
contrib.training.byte_size_load_fn = _device_setter.byte_size_load_fn

# tf.losses (tfc/losses/): a package, exported as the module object
from tfc import losses  # noqa: E402,F401
from tfc import metrics  # noqa: E402,F401
# the long tail of TF 1.x's op-level API (linalg_ops, check_ops, image_ops, string_ops,
# gfile, tf_logging, test_util): one block, names only
from tfc import gfile as _gfile  # noqa: E402
from tfc import tf_logging as logging  # noqa: E402,F401 (tf.logging)
from tfc import test_util as _test_util  # noqa: E402
from tfc.ops import check_ops as _check_ops  # noqa: E402
from tfc.ops import image_ops as _image_ops  # noqa: E402
from tfc.ops import linalg_ops as _linalg_ops  # noqa: E402
from tfc.ops import string_ops as _string_ops  # noqa: E402
from tfc.ops import script_ops as _script_ops  # noqa: E402
from tfc.ops import sparse_ops as _sparse_ops  # noqa: E402
for _n in ("no_op Assert Print check_numerics verify_tensor_all_finite report_uninitialized_variables assert_equal "
           "assert_none_equal assert_less assert_less_equal assert_greater assert_greater_equal assert_positive "
           "assert_negative assert_non_negative assert_non_positive assert_rank assert_rank_at_least assert_type "
           "assert_integer is_numeric_tensor").split():
    globals()[_n] = getattr(_check_ops, _n)
debugging = _types.ModuleType("tfc.debugging", "tf.debugging")
for _n in ("Assert check_numerics assert_equal assert_none_equal assert_less assert_less_equal assert_greater "
           "assert_greater_equal assert_positive assert_negative assert_non_negative assert_non_positive "
           "assert_rank assert_rank_at_least assert_type assert_integer is_numeric_tensor").split():
    setattr(debugging, _n, getattr(_check_ops, _n))
_TAIL = ("erf erfc lgamma digamma atan2 segment_sum segment_mean segment_prod segment_max segment_min "
         "unsorted_segment_sum unsorted_segment_max unsorted_segment_min unsorted_segment_prod").split()
for _n in _TAIL + ("norm einsum accumulate_n batch_gather random_crop diag diag_part matrix_diag matrix_diag_part "
                   "matrix_set_diag matrix_band_part matrix_inverse matrix_determinant cholesky matrix_solve trace "
                   "eye div_no_nan unique unique_with_counts setdiff1d scatter_nd invert_permutation bincount "
                   "confusion_matrix").split():
    globals()[_n] = getattr(_linalg_ops, _n)
for _n in _TAIL + "reduce_std reduce_variance accumulate_n top_k xdivy xlogy".split():
    setattr(math, _n, getattr(_linalg_ops, _n))
math.divide_no_nan = _linalg_ops.div_no_nan
math.bincount, math.confusion_matrix = _linalg_ops.bincount, _linalg_ops.confusion_matrix
math.invert_permutation = _linalg_ops.invert_permutation
nn.top_k = _linalg_ops.top_k
for _n in ("conv1d conv2d_transpose conv2d_backprop_input conv2d_backprop_filter swish zero_fraction depthwise_conv2d "
           "depthwise_conv2d_native separable_conv2d").split():
    setattr(nn, _n, getattr(_nn_ops, _n))
from tfc.ops import nn_atrous as _nn_atrous  # noqa: E402
nn.convolution, nn.atrous_conv2d = _nn_atrous.convolution, _nn_atrous.atrous_conv2d
nn.with_space_to_batch = _nn_atrous.with_space_to_batch
from tfc.ops import nn_conv3d as _nn_conv3d  # noqa: E402
for _n in "conv3d conv3d_transpose max_pool3d avg_pool3d".split():
    setattr(nn, _n, getattr(_nn_conv3d, _n))
math.l2_normalize = _nn_ops.l2_normalize
linalg = _types.ModuleType("tfc.linalg", "tf.linalg")
linalg.matmul, linalg.norm, linalg.einsum = _math_ops.matmul, _linalg_ops.norm, _linalg_ops.einsum
linalg.tensordot, linalg.l2_normalize = _math_ops.tensordot, _nn_ops.l2_normalize
for _a, _n in (("det", "matrix_determinant"), ("inv", "matrix_inverse"), ("diag", "matrix_diag"),
               ("diag_part", "matrix_diag_part"), ("set_diag", "matrix_set_diag"), ("band_part", "matrix_band_part"),
               ("cholesky", "cholesky"), ("solve", "matrix_solve"), ("eye", "eye"), ("trace", "trace")):
    setattr(linalg, _a, getattr(_linalg_ops, _n))
image = _types.ModuleType("tfc.image", "tf.image")
for _n in ("flip_left_right flip_up_down random_flip_left_right random_flip_up_down per_image_standardization "
           "convert_image_dtype central_crop pad_to_bounding_box crop_to_bounding_box adjust_brightness "
           "random_brightness resize_images resize_bilinear resize_nearest_neighbor ResizeMethod").split():
    setattr(image, _n, getattr(_image_ops, _n))
for _n in ("resize resize_bicubic resize_area crop_and_resize non_max_suppression non_max_suppression_padded "
           "non_max_suppression_with_scores non_max_suppression_overlaps combined_non_max_suppression").split():
    setattr(image, _n, getattr(_image_ops, _n))
for _n in ("string_join as_string substr string_to_number encode_base64 decode_base64 string_split read_file "
           "write_file").split():
    globals()[_n] = getattr(_string_ops, _n)
py_func, numpy_function = _script_ops.py_func, _script_ops.numpy_function
sparse_to_dense, sparse_tensor_to_dense = _sparse_ops.sparse_to_dense, _sparse_ops.sparse_tensor_to_dense
sparse = globals().get("sparse") or _types.ModuleType("tfc.sparse", "tf.sparse")
sparse.to_dense = _sparse_ops.sparse_tensor_to_dense
strings = _types.ModuleType("tfc.strings", "tf.strings")
strings.join, strings.length, strings.substr = _string_ops.string_join, _string_ops.string_length, _string_ops.substr
strings.to_number, strings.as_string = _string_ops.string_to_number, _string_ops.as_string
# regex, hashes, split, case, format, print (string_ops.py) and tf.lookup (lookup_ops.py)
from tfc.ops import lookup_ops as _lookup_ops  # noqa: E402
strings.regex_full_match, strings.regex_replace = _string_ops.regex_full_match, _string_ops.regex_replace
strings.to_hash_bucket_fast = _string_ops.string_to_hash_bucket_fast
strings.to_hash_bucket_strong = _string_ops.string_to_hash_bucket_strong
strings.to_hash_bucket = _string_ops.string_to_hash_bucket
strings.strip, strings.lower, strings.upper = _string_ops.string_strip, _string_ops.string_lower, _string_ops.string_upper
strings.split, strings.format = _string_ops.string_split_v2, _string_ops.string_format
for _n in ("regex_replace string_to_hash_bucket_fast string_to_hash_bucket_strong string_to_hash_bucket "
           "string_strip").split():
    globals()[_n] = getattr(_string_ops, _n)
print = _string_ops.print_v2  # noqa: A001 (tf.print)
lookup = _types.ModuleType("tfc.lookup", "tf.lookup")
for _n in "StaticHashTable StaticVocabularyTable KeyValueTensorInitializer TextFileInitializer TextFileIndex".split():
    setattr(lookup, _n, getattr(_lookup_ops, _n))
lookup.experimental = _types.ModuleType("tfc.lookup.experimental", "tf.lookup.experimental")
lookup.experimental.MutableHashTable = _lookup_ops.MutableHashTable
lookup.experimental.DenseHashTable = _lookup_ops.DenseHashTable
tables_initializer = _lookup_ops.tables_initializer
contrib.lookup = _types.ModuleType("tfc.contrib.lookup", "tf.contrib.lookup")
for _n in ("HashTable KeyValueTensorInitializer TextFileInitializer TextFileIndex MutableHashTable "
           "MutableDenseHashTable index_table_from_file index_table_from_tensor "
           "index_to_string_table_from_tensor").split():
    setattr(contrib.lookup, _n, getattr(_lookup_ops, _n))
gfile = _gfile.v1_module(_types)
test = _types.ModuleType("tfc.test", "tf.test")
for _n in ("TestCase is_gpu_available gpu_device_name is_built_with_cuda is_built_with_gpu_support "
           "is_built_with_rocm get_temp_dir main compute_gradient_error").split():
    setattr(test, _n, getattr(_test_util, _n))

# input pipelines, records, summaries, servers, app (their module adds the names)
from tfc import _api_io as _api_io  # noqa: E402
_api_io.export(globals())
from tfc import _api_saver as _api_saver  # noqa: E402
_api_saver.export(globals())
from tfc import _api_monitored as _api_monitored  # noqa: E402 (monitored sessions and hooks)
_api_monitored.export(globals())
from tfc import _saved_model  # noqa: E402 (tf.saved_model)
_saved_model.export(globals())

# colocation, tf.layers, tf.contrib.layers' layers and regularizers (tfc/layers/)
colocate_with = _ops.colocate_with
from tfc.layers import base as _layers_base, core as _layers_core  # noqa: E402
from tfc.layers import convolutional as _layers_conv, normalization as _layers_norm  # noqa: E402
layers = _types.ModuleType("tfc.layers", "tf.layers")
for _m, _names in ((_layers_base, "Layer InputSpec"), (_layers_core, "Dense Dropout Flatten dense dropout flatten"),
                   (_layers_conv, "Conv2D Convolution2D MaxPooling2D MaxPool2D AveragePooling2D AvgPool2D conv2d "
                                  "max_pooling2d average_pooling2d Conv3D Convolution3D MaxPooling3D MaxPool3D "
                                  "AveragePooling3D AvgPool3D conv3d max_pooling3d average_pooling3d"),
                   (_layers_norm, "BatchNormalization batch_normalization")):
    for _n in _names.split():
        setattr(layers, _n, getattr(_m, _n))
from tfc.layers import contrib as _contrib_layers  # noqa: E402
for _n in ("fully_connected convolution2d conv2d max_pool2d flatten l1_regularizer sum_regularizer "
           "apply_regularization variance_scaling_initializer xavier_initializer xavier_initializer_conv2d "
           "batch_norm avg_pool2d dropout linear").split():
    setattr(contrib.layers, _n, getattr(_contrib_layers, _n))
# TensorArray, dynamic_rnn and the RNN cells (tf.nn.rnn_cell, tf.contrib.rnn)
from tfc import _api_rnn as _api_rnn  # noqa: E402
_api_rnn.export(globals())

# map_fn, scan, foldl, foldr: while loops over TensorArrays (tfc/ops/functional_ops.py)
from tfc.ops import functional_ops as _functional  # noqa: E402
map_fn, scan, foldl, foldr = _functional.map_fn, _functional.scan, _functional.foldl, _functional.foldr

# graph files: GraphDef and its messages, import_graph_def, tf.graph_util (tfc/_api_graph.py)
from tfc import _api_graph as _api_graph  # noqa: E402
_api_graph.export(globals())

io.gfile = _gfile.v2_module(_types)  # noqa: F821 (tf.io is made by _api_io)
for _n in "read_file write_file encode_base64 decode_base64".split():
    setattr(io, _n, getattr(_string_ops, _n))  # noqa: F821

# image codecs: tf.image.decode_jpeg, ... and their tf.io aliases (tfc/ops/image_codec_ops.py)
from tfc.ops import image_codec_ops as _image_codec_ops  # noqa: E402
for _n in _image_codec_ops.NAMES:
    setattr(image, _n, getattr(_image_codec_ops, _n))
    setattr(io, _n, getattr(_image_codec_ops, _n))  # noqa: F821 (tf.io is made by _api_io)

# tf.signal's transforms and their TF 1.x tf.spectral aliases (tfc/ops/fft_ops.py)
from tfc.ops import fft_ops as _fft_ops  # noqa: E402
signal = globals().get("signal") or _types.ModuleType("tfc.signal", "tf.signal")
spectral = _types.ModuleType("tfc.spectral", "tf.spectral")
for _n in _fft_ops.NAMES:
    setattr(signal, _n, getattr(_fft_ops, _n))
    setattr(spectral, _n, getattr(_fft_ops, _n))

from tfc.framework import tensor_util as _tensor_util  # noqa: E402
get_static_value = _tensor_util.constant_value

# tf.tuple shadows the builtin here: kept last, so nothing above sees it.
globals()["tuple"] = _cf.tuple_
# gradient accumulators of synchronous training: tf.ConditionalAccumulator, tf.SparseConditionalAccumulator
from tfc import accumulator_ops as _accumulator_ops  # noqa: E402
_accumulator_ops.export(globals())
