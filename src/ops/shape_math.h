/* shape_math — shape functions of the math family (see shape_math.c). */
#ifndef TFC_OPS_SHAPE_MATH_H
#define TFC_OPS_SHAPE_MATH_H
#endif
