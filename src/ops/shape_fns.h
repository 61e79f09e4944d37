/*
 * shape_fns — declarations of the per-family shape functions named in the op table rows.
 * One block per family file (shape_<family>.c).
 */
#ifndef TFC_OPS_SHAPE_FNS_H
#define TFC_OPS_SHAPE_FNS_H

typedef struct tfc_shape_ctx tfc_shape_ctx;

/* shape_core.c */
int tfc_shape_const(tfc_shape_ctx *c);
int tfc_shape_placeholder(tfc_shape_ctx *c);
int tfc_shape_placeholder_with_default(tfc_shape_ctx *c);
int tfc_shape_identity_n(tfc_shape_ctx *c);
int tfc_shape_arg(tfc_shape_ctx *c);
int tfc_shape_assign(tfc_shape_ctx *c);
int tfc_shape_var_handle(tfc_shape_ctx *c); /* refuses a non-empty allowed_devices */

/* shape_control.c */
int tfc_shape_switch(tfc_shape_ctx *c);
int tfc_shape_merge_fn(tfc_shape_ctx *c);
int tfc_shape_enter(tfc_shape_ctx *c);
int tfc_shape_functional(tfc_shape_ctx *c); /* If, While: from output_shapes when given */
int tfc_shape_loop_cond(tfc_shape_ctx *c);

/* shape_math.c */
int tfc_shape_matmul(tfc_shape_ctx *c);
#include "ops/shape_math.h"

/* shape_array.c */
#include "ops/shape_array.h"

/* shape_nn.c, shape_conv.c, shape_random.c, shape_training.c */
#include "ops/shape_nn.h"
#include "ops/shape_conv.h"
#include "ops/shape_random.h"
#include "ops/shape_training.h"

/* shape_parse.c, shape_data.c, shape_checkpoint.c, shape_summary.c */
#include "ops/shape_parse.h"
#include "ops/shape_data.h"
#include "ops/shape_checkpoint.h"
#include "ops/shape_summary.h"

/* shape_list.c */
#include "ops/shape_list.h"
/* shape_tensor_array.c */
#include "ops/shape_tensor_array.h"
/* shape_tail.c */
#include "ops/shape_tail.h"
/* shape_image.c */
#include "ops/shape_image.h"
/* shape_nn_tail.c */
#include "ops/shape_nn_tail.h"
/* shape_codec.c */
#include "ops/shape_codec.h"
/* shape_string.c */
#include "ops/shape_string.h"

/* shape_fft.c */
#include "ops/shape_fft.h"
#endif
