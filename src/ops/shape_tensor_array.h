/*
 * shape_tensor_array — shape functions of stacks and TensorArrays (ops_tensor_array.def),
 * following TF 1.15's functions and error texts. Handles have TF's legacy graph shape [2] (a
 * handle input must be a vector of 2 when its shape is known). Element shapes come only from
 * attrs: TF also reads them from resource handle shape data, which tfc's graphs do not carry.
 */
#ifndef TFC_OPS_SHAPE_TENSOR_ARRAY_H
#define TFC_OPS_SHAPE_TENSOR_ARRAY_H

typedef struct tfc_shape_ctx tfc_shape_ctx;

int tfc_shape_two_element_output(tfc_shape_ctx *c); /* StackV2: handle [2] */
int tfc_shape_stack_push(tfc_shape_ctx *c);         /* output = elem */
int tfc_shape_handle_only(tfc_shape_ctx *c);        /* StackCloseV2, TensorArrayCloseV3 */
int tfc_shape_tensor_array(tfc_shape_ctx *c);       /* size scalar; handle [2], flow scalar */
int tfc_shape_tensor_array_grad(tfc_shape_ctx *c);
int tfc_shape_tensor_array_write(tfc_shape_ctx *c);
int tfc_shape_tensor_array_read(tfc_shape_ctx *c);
int tfc_shape_tensor_array_gather(tfc_shape_ctx *c); /* [len(indices)] + element_shape */
int tfc_shape_tensor_array_scatter(tfc_shape_ctx *c);
int tfc_shape_tensor_array_concat(tfc_shape_ctx *c);
int tfc_shape_tensor_array_split(tfc_shape_ctx *c);
int tfc_shape_tensor_array_size(tfc_shape_ctx *c);

#endif
