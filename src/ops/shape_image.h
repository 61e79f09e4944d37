/* shape_image — shape functions of the image geometry rows of ops_image.def added after the
 * resizes (shape_image.c); tfc_shape_resize itself is in shape_tail.c. */
#ifndef TFC_OPS_SHAPE_IMAGE_H
#define TFC_OPS_SHAPE_IMAGE_H

typedef struct tfc_shape_ctx tfc_shape_ctx;

int tfc_shape_resize_grad(tfc_shape_ctx *c);                /* original_image's (input 1) */
int tfc_shape_crop_and_resize(tfc_shape_ctx *c);            /* [num_boxes, crop_h, crop_w, depth] */
int tfc_shape_crop_and_resize_grad_image(tfc_shape_ctx *c); /* image_size's value, rank 4 */
int tfc_shape_crop_and_resize_grad_boxes(tfc_shape_ctx *c); /* boxes' (input 2) */
int tfc_shape_nms(tfc_shape_ctx *c);          /* NonMaxSuppression V1-V5: [?] (padded: [max]) */
int tfc_shape_nms_overlaps(tfc_shape_ctx *c); /* square overlaps, scores alike: [?] */
int tfc_shape_combined_nms(tfc_shape_ctx *c); /* [b, total, 4], [b, total] x2, [b] */

#endif
