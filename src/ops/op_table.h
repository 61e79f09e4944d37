/*
 * op_table — the one list of ops, included with TFC_OP defined (see opdef.h). Families in
 * their own files, in this order; order fixes the enum values, so append within a family.
 * No include guard on purpose.
 */
#include "ops/ops_core.def"
#include "ops/ops_math.def"
#include "ops/ops_array.def"
#include "ops/ops_state.def"
#include "ops/ops_nn.def"
#include "ops/ops_conv.def"
#include "ops/ops_random.def"
#include "ops/ops_training.def"
#include "ops/ops_parse.def"
#include "ops/ops_data.def"
#include "ops/ops_checkpoint.def"
#include "ops/ops_summary.def"
#include "ops/ops_control.def"
#include "ops/ops_function.def"
#include "ops/ops_list.def"
#include "ops/ops_tensor_array.def"
#include "ops/ops_script.def"
#include "ops/ops_math_tail.def"
#include "ops/ops_string.def"
#include "ops/ops_array_tail.def"
#include "ops/ops_image.def"
#include "ops/ops_codec.def"
#include "ops/ops_lookup.def"
#include "ops/ops_fused.def"
