/* shape_array — shape functions of the array family (see shape_array.c). */
#ifndef TFC_OPS_SHAPE_ARRAY_H
#define TFC_OPS_SHAPE_ARRAY_H
#endif
