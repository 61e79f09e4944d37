/* shape_array — shape functions of the array family (ops_array.def). */
#include "ops/opdef.h"
