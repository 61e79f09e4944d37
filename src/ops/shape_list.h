/*
 * shape_list — shape functions of the TensorList ops (ops_list.def, shape_list.c). A list
 * handle is a scalar; what a list holds is known to TF's shape inference through handle data,
 * which tfc does not track, so element shapes come from the ops' element_shape inputs when
 * those are constant and are unknown otherwise.
 */
#ifndef TFC_OPS_SHAPE_LIST_H
#define TFC_OPS_SHAPE_LIST_H

typedef struct tfc_shape_ctx tfc_shape_ctx;

/* Output 0 is a scalar handle (EmptyTensorList, TensorListReserve, SetItem, PushBack, ...). */
int tfc_shape_list_handle(tfc_shape_ctx *c);
/* TensorListLength: a scalar. */
int tfc_shape_list_length(tfc_shape_ctx *c);
/* TensorListElementShape: unknown (a vector, or the scalar -1 for an unknown rank). */
int tfc_shape_list_element_shape(tfc_shape_ctx *c);
/* TensorListGetItem: the element_shape input (2). */
int tfc_shape_list_get_item(tfc_shape_ctx *c);
/* TensorListPopBack: a scalar handle and the element_shape input (1). */
int tfc_shape_list_pop_back(tfc_shape_ctx *c);
/* TensorListStack: [num_elements or ?] + the element_shape input (1). */
int tfc_shape_list_stack(tfc_shape_ctx *c);
/* TensorListGather: [len(indices)] + the element_shape input (2). */
int tfc_shape_list_gather(tfc_shape_ctx *c);
/* TensorListConcat(V2): [?] + the element shape (attr, or input 1) but its first dim; the
 * lengths a vector. */
int tfc_shape_list_concat(tfc_shape_ctx *c);

#endif
