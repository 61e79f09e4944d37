"""tf.image functions over existing ops, with TF 1.x signatures and graphs: flips (ReverseV2),
random flips (a cond on RandomUniform < 0.5), per_image_standardization, convert_image_dtype,
central_crop, pad_to_bounding_box / crop_to_bounding_box, adjust_brightness and
random_brightness.

Images are 3-D [height, width, channels] or 4-D [batch, height, width, channels]. Each
function checks the rank statically where known (ValueError "'image' must be either 3 or 4
dimensions." / "'image' (shape ...) must be three-dimensional.") and makes the
control_dependency Identity TF makes for its runtime checks.

resize_images / resize (bilinear, nearest neighbor, bicubic, area: ResizeMethod's ints or the
names 'bilinear', 'nearest', 'bicubic', 'area'; preserve_aspect_ratio), resize_bilinear,
resize_nearest_neighbor, resize_bicubic and resize_area run the kernels of
kernels_image_resize.c; resize_images_v2 (TF 2.x's tf.image.resize, tf.compat.v2.image.resize:
antialias and the lanczos3, lanczos5, gaussian and mitchellcubic methods) also
ScaleAndTranslate (kernels_image_scale.c); crop_and_resize and
the non_max_suppression family (plain, _padded, _with_scores, _overlaps, combined_) those of
kernels_image_crop.c and kernels_image_nms.c, with TF 1.15's signatures and name scopes.
"""
from tfc.framework import dtypes
from tfc.framework import ops
from tfc.ops import array_ops
from tfc.ops import gen
from tfc.ops import math_ops


def _checked(image, require_static=True, allow_4d=True):
    image = ops.convert_to_tensor(image, name="image")
    nd = image.shape.ndims
    if nd is None:
        if require_static:
            raise ValueError("'image' (shape %s) must be fully defined." % image.shape)
    elif allow_4d and nd < 3:
        raise ValueError("'image' (shape %s) must be at least three-dimensional." % image.shape)
    elif allow_4d and nd > 4:
        raise ValueError("'image' must have either 3 or 4 dimensions.")
    elif not allow_4d and nd != 3:
        raise ValueError("'image' (shape %s) must be three-dimensional." % image.shape)
    return image


def _guard(image):
    """The control_dependency Identity TF's shape assertions leave (none are needed when the
    shape is known)."""
    return array_ops.identity(image, name="control_dependency")


def _flip(image, axis3, scope, name=None):
    with ops.name_scope(name, scope, [image]):
        image = _checked(image, require_static=False)
        image = _guard(image)
        nd = image.shape.ndims
        axis = axis3 if nd == 3 or nd is None else axis3 + 1
        return array_ops.reverse(image, [axis])


def flip_left_right(image):
    return _flip(image, 1, "flip_left_right")


def flip_up_down(image):
    return _flip(image, 0, "flip_up_down")


def _random_flip(image, axis3, seed, scope):
    from tfc.ops import control_flow_ops
    from tfc.ops import random_ops
    with ops.name_scope(None, scope, [image]):
        image = _checked(image, require_static=False)
        image = _guard(image)
        nd = image.shape.ndims
        if nd == 4:
            raise NotImplementedError("random flips of 4-D batches are not supported")
        uniform_random = random_ops.random_uniform([], 0, 1.0, seed=seed)
        mirror_cond = math_ops.less(uniform_random, 0.5)
        return control_flow_ops.cond(mirror_cond, lambda: array_ops.reverse(image, [axis3]), lambda: image)


def random_flip_left_right(image, seed=None):
    return _random_flip(image, 1, seed, "random_flip_left_right")


def random_flip_up_down(image, seed=None):
    return _random_flip(image, 0, seed, "random_flip_up_down")


def per_image_standardization(image):
    """(image - mean) / max(stddev, 1/sqrt(num_pixels)) per image, in float32."""
    from tfc.ops import linalg_ops
    with ops.name_scope(None, "per_image_standardization", [image]) as scope:
        image = _checked(image, require_static=False)
        image = _guard(image)
        image = math_ops.cast(image, dtype=dtypes.float32)
        num_pixels = math_ops.reduce_prod(array_ops.shape(image)[-3:])
        image_mean = math_ops.reduce_mean(image, axis=[-1, -2, -3], keepdims=True)
        stddev = linalg_ops.reduce_std(image, axis=[-1, -2, -3], keepdims=True)
        min_stddev = gen.apply("Rsqrt", None, x=math_ops.cast(num_pixels, dtypes.float32))
        adjusted_stddev = math_ops.maximum(stddev, min_stddev)
        image = image - image_mean
        return gen.apply("RealDiv", scope, x=image, y=adjusted_stddev)


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Integer images scale by the ratio of the types' maxima, floats to integers by
    max + 0.5, as TF's."""
    image = ops.convert_to_tensor(image, name="image")
    dtype = dtypes.as_dtype(dtype)
    if not image.dtype.is_floating and not image.dtype.is_integer:
        raise AttributeError("image dtype must be floating point or integer")
    if not dtype.is_floating and not dtype.is_integer:
        raise AttributeError("dtype must be either floating point or integer")
    if dtype == image.dtype:
        return array_ops.identity(image, name=name)
    with ops.name_scope(name, "convert_image", [image]) as name:
        if image.dtype.is_integer and dtype.is_integer:
            scale_in, scale_out = image.dtype.max, dtype.max
            if scale_in > scale_out:
                scale = (scale_in + 1) // (scale_out + 1)
                scaled = math_ops.floordiv(image, scale)
                return math_ops.cast(scaled, dtype, name=name)
            scale = (scale_out + 1) // (scale_in + 1)
            scaled = math_ops.cast(image, dtype)
            return math_ops.multiply(scaled, scale, name=name)
        if image.dtype.is_floating and dtype.is_floating:
            return math_ops.cast(image, dtype, name=name)
        if image.dtype.is_integer:
            cast = math_ops.cast(image, dtype)
            scale = 1.0 / image.dtype.max
            return math_ops.multiply(cast, scale, name=name)
        scale = dtype.max + 0.5
        scaled = math_ops.multiply(image, scale)
        if saturate:
            return math_ops.saturate_cast(scaled, dtype, name=name)
        return math_ops.cast(scaled, dtype, name=name)


def central_crop(image, central_fraction):
    """The central region holding central_fraction of each spatial side (Slice)."""
    with ops.name_scope(None, "central_crop", [image]):
        image = ops.convert_to_tensor(image, name="image")
        if central_fraction <= 0.0 or central_fraction > 1.0:
            raise ValueError("central_fraction must be within (0, 1]")
        if central_fraction == 1.0:
            return image
        image = _checked(image)
        nd = image.shape.ndims
        image = _guard(image)
        dims = image.shape.as_list()
        h, w = (dims[0], dims[1]) if nd == 3 else (dims[1], dims[2])
        if h is None or w is None:
            raise NotImplementedError("central_crop of images of unknown size is not supported")
        bh = int((h - h * central_fraction) / 2)
        bw = int((w - w * central_fraction) / 2)
        if nd == 3:
            begin, size = [bh, bw, 0], [h - bh * 2, w - bw * 2, -1]
        else:
            begin, size = [0, bh, bw, 0], [-1, h - bh * 2, w - bw * 2, -1]
        begin = array_ops.stack(begin)
        size = array_ops.stack(size)
        return array_ops.slice(image, begin, size)


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """Zero padding to target_height x target_width with the image at the offsets (Pad)."""
    with ops.name_scope(None, "pad_to_bounding_box", [image]):
        image = ops.convert_to_tensor(image, name="image")
        is_batch = True
        if image.shape.ndims == 3:
            is_batch = False
            image = array_ops.expand_dims(image, 0)
        elif image.shape.ndims is None:
            raise ValueError("'image' (shape %s) must be fully defined." % image.shape)
        elif image.shape.ndims != 4:
            raise ValueError("'image' (shape %s) must have either 3 or 4 dimensions." % image.shape)
        image = _guard(image)
        _, h, w, _ = image.shape.as_list()
        if None in (h, w):
            raise NotImplementedError("pad_to_bounding_box of images of unknown size is not supported")
        after_padding_width = target_width - offset_width - w
        after_padding_height = target_height - offset_height - h
        if offset_height < 0:
            raise ValueError("offset_height must be >= 0")
        if offset_width < 0:
            raise ValueError("offset_width must be >= 0")
        if after_padding_width < 0:
            raise ValueError("width must be <= target - offset")
        if after_padding_height < 0:
            raise ValueError("height must be <= target - offset")
        paddings = array_ops.reshape(
            array_ops.stack([0, 0, offset_height, after_padding_height, offset_width, after_padding_width, 0, 0]),
            [4, 2])
        padded = array_ops.pad(image, paddings)
        padded.set_shape([image.shape[0], target_height, target_width, image.shape[3]])
        if not is_batch:
            padded = array_ops.squeeze(padded, axis=[0])
        return padded


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The target_height x target_width window at the offsets (Slice)."""
    with ops.name_scope(None, "crop_to_bounding_box", [image]):
        image = ops.convert_to_tensor(image, name="image")
        is_batch = True
        if image.shape.ndims == 3:
            is_batch = False
            image = array_ops.expand_dims(image, 0)
        elif image.shape.ndims is None:
            raise ValueError("'image' (shape %s) must be fully defined." % image.shape)
        elif image.shape.ndims != 4:
            raise ValueError("'image' (shape %s) must have either 3 or 4 dimensions." % image.shape)
        image = _guard(image)
        _, h, w, _ = image.shape.as_list()
        if offset_width < 0:
            raise ValueError("offset_width must be >= 0.")
        if offset_height < 0:
            raise ValueError("offset_height must be >= 0.")
        if target_width <= 0:
            raise ValueError("target_width must be > 0.")
        if target_height <= 0:
            raise ValueError("target_height must be > 0.")
        if w is not None and w < target_width + offset_width:
            raise ValueError("width must be >= target + offset.")
        if h is not None and h < target_height + offset_height:
            raise ValueError("height must be >= target + offset.")
        begin = array_ops.stack([0, offset_height, offset_width, 0])
        size = array_ops.stack([array_ops.shape(image)[0], target_height, target_width, array_ops.shape(image)[3]])
        cropped = array_ops.slice(image, begin, size)
        cropped.set_shape([image.shape[0], target_height, target_width, image.shape[3]])
        if not is_batch:
            cropped = array_ops.squeeze(cropped, axis=[0])
        return cropped


def adjust_brightness(image, delta):
    """image + delta, computed in float (integer images are converted and back)."""
    with ops.name_scope(None, "adjust_brightness", [image, delta]) as name:
        image = ops.convert_to_tensor(image, name="image")
        orig_dtype = image.dtype
        flt_image = image if orig_dtype.is_floating else convert_image_dtype(image, dtypes.float32)
        adjusted = math_ops.add(flt_image, math_ops.cast(delta, flt_image.dtype), name=name)
        return convert_image_dtype(adjusted, orig_dtype, saturate=True)


def random_brightness(image, max_delta, seed=None):
    from tfc.ops import random_ops
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_brightness(image, delta)


# ---------------- resizing (kernels_image.c) ----------------

class ResizeMethod(object):
    """TF 1.15's tf.image.ResizeMethod (ints)."""
    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


def resize_bilinear(images, size, align_corners=False, name=None, half_pixel_centers=False):
    return gen.apply("ResizeBilinear", name, images=images, size=size, align_corners=align_corners,
                     half_pixel_centers=half_pixel_centers)


def resize_nearest_neighbor(images, size, align_corners=False, name=None, half_pixel_centers=False):
    return gen.apply("ResizeNearestNeighbor", name, images=images, size=size, align_corners=align_corners,
                     half_pixel_centers=half_pixel_centers)


def resize_bicubic(images, size, align_corners=False, name=None, half_pixel_centers=False):
    return gen.apply("ResizeBicubic", name, images=images, size=size, align_corners=align_corners,
                     half_pixel_centers=half_pixel_centers)


def resize_area(images, size, align_corners=False, name=None):
    return gen.apply("ResizeArea", name, images=images, size=size, align_corners=align_corners)


# TF 1.15's resize_images takes ResizeMethodV1's ints and ResizeMethod's (v2) names alike.
_METHODS = {ResizeMethod.BILINEAR: resize_bilinear, "bilinear": resize_bilinear,
            ResizeMethod.NEAREST_NEIGHBOR: resize_nearest_neighbor, "nearest": resize_nearest_neighbor,
            ResizeMethod.BICUBIC: resize_bicubic, "bicubic": resize_bicubic,
            ResizeMethod.AREA: resize_area, "area": resize_area}


def _image_dimensions(image, rank):
    """TF's _ImageDimensions: the static dims where known, else the Shape's unstacked ones."""
    if image.shape.is_fully_defined():
        return image.shape.as_list()
    static = image.shape.with_rank(rank).as_list()
    dynamic = array_ops.unstack(array_ops.shape(image), rank)
    return [s if s is not None else d for s, d in zip(static, dynamic)]


def _folded_aspect_size(size, cur_h, cur_w):
    """preserve_aspect_ratio's size as TF's shape inference folds it (float32 arithmetic, round
    half to even) when the size and the image's height and width are known; else None."""
    import numpy as np
    if size is None or not isinstance(cur_h, int) or not isinstance(cur_w, int):
        return None
    f32 = np.float32
    factor = min(f32(size[0]) / f32(cur_h), f32(size[1]) / f32(cur_w))
    return int(np.round(f32(factor * f32(cur_h)))), int(np.round(f32(factor * f32(cur_w))))


def _resize_images_common(images, resizer_fn, size, preserve_aspect_ratio, name, skip_resize_if_same):
    """TF's resize core under "resize": 3-D images get a batch axis for the op; with
    preserve_aspect_ratio the size becomes round(min(size / image size) * image size) (in float,
    computed in the graph, as TF); a size equal to the image's known size returns the images
    unchanged when skip_resize_if_same (v1); the result's static shape takes the constant size."""
    from tfc.ops import check_ops
    with ops.name_scope(name, "resize", [images, size]):
        images = ops.convert_to_tensor(images, name="images")
        if images.shape.ndims is None:
            raise ValueError("'images' contains no shape.")
        is_batch = True
        if images.shape.ndims == 3:
            is_batch = False
            images = array_ops.expand_dims(images, 0)
        elif images.shape.ndims != 4:
            raise ValueError("'images' must have either 3 or 4 dimensions.")
        _, height, width, _ = images.shape.as_list()
        try:
            size = ops.convert_to_tensor(size, dtypes.int32, name="size")
        except (TypeError, ValueError):
            raise ValueError("'size' must be a 1-D int32 Tensor")
        if not size.shape.is_compatible_with([2]):
            raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
        folded = None
        if preserve_aspect_ratio:
            _, cur_h, cur_w, _ = _image_dimensions(images, 4)
            folded = _folded_aspect_size(check_ops.constant_value(size), cur_h, cur_w)
            f32 = dtypes.float32
            scale_h = math_ops.cast(size[0], f32) / math_ops.cast(cur_h, f32)
            scale_w = math_ops.cast(size[1], f32) / math_ops.cast(cur_w, f32)
            factor = math_ops.minimum(scale_h, scale_w)
            new_h = math_ops.cast(math_ops.round(factor * math_ops.cast(cur_h, f32)), dtypes.int32)
            new_w = math_ops.cast(math_ops.round(factor * math_ops.cast(cur_w, f32)), dtypes.int32)
            size = ops.convert_to_tensor([new_h, new_w], dtypes.int32, name="size")
        const = check_ops.constant_value(size)
        new_h, new_w = (int(const[0]), int(const[1])) if const is not None else (None, None)
        if (skip_resize_if_same and None not in (new_w, width, new_h, height) and width == new_w and
                height == new_h):
            return images if is_batch else array_ops.squeeze(images, axis=[0])
        images = resizer_fn(images, size)
        if folded is not None:  # what TF's shape inference folds from the size's graph
            new_h, new_w = folded
        images.set_shape([None, new_h, new_w, None])
        return images if is_batch else array_ops.squeeze(images, axis=[0])


def resize_images(images, size, method=ResizeMethod.BILINEAR, align_corners=False, preserve_aspect_ratio=False,
                  name=None):
    """TF 1.x's resize_images (also tf.image.resize): ResizeMethod's ints or the names
    'bilinear', 'nearest', 'bicubic', 'area'; ValueError for any other method."""
    try:
        fn = _METHODS.get(method)
    except TypeError:  # an unhashable method
        fn = None

    def resizer(images_t, new_size):
        if fn is None:
            raise ValueError("Resize method is not implemented.")
        return fn(images_t, new_size, align_corners=align_corners)
    return _resize_images_common(images, resizer, size, preserve_aspect_ratio, name, True)


class ResizeMethodV2(object):
    """TF 2.x's tf.image.ResizeMethod (names): tf.compat.v2.image.ResizeMethod."""
    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


def scale_and_translate(images, size, scale, translation, kernel_type="lanczos3", antialias=True, name=None):
    return gen.apply("ScaleAndTranslate", name, images=images, size=size, scale=scale, translation=translation,
                     kernel_type=kernel_type, antialias=antialias)


def resize_images_v2(images, size, method=ResizeMethodV2.BILINEAR, preserve_aspect_ratio=False, antialias=False,
                     name=None):
    """TF 2.x's tf.image.resize (tf.compat.v2.image.resize): half-pixel-centred ResizeBilinear,
    ResizeNearestNeighbor and ResizeBicubic, ResizeArea, and ScaleAndTranslate (size / image size
    as the scale, no translation) for lanczos3, lanczos5, gaussian and mitchellcubic, and for
    bilinear ("triangle") and bicubic ("keyscubic") with antialias. Never skips the resize."""
    M = ResizeMethodV2

    def resizer(images_t, new_size):
        def with_scale_and_translate(kernel):
            f32 = dtypes.float32
            scale = math_ops.cast(new_size, dtype=f32) / math_ops.cast(array_ops.shape(images_t)[1:3], dtype=f32)
            return scale_and_translate(images_t, new_size, scale, array_ops.zeros([2]), kernel_type=kernel,
                                       antialias=antialias)
        if method == M.BILINEAR:
            if antialias:
                return with_scale_and_translate("triangle")
            return resize_bilinear(images_t, new_size, half_pixel_centers=True)
        if method == M.NEAREST_NEIGHBOR:
            return resize_nearest_neighbor(images_t, new_size, half_pixel_centers=True)
        if method == M.BICUBIC:
            if antialias:
                return with_scale_and_translate("keyscubic")
            return resize_bicubic(images_t, new_size, half_pixel_centers=True)
        if method == M.AREA:
            return resize_area(images_t, new_size)
        if method in (M.LANCZOS3, M.LANCZOS5, M.GAUSSIAN, M.MITCHELLCUBIC):
            return with_scale_and_translate(method)
        raise ValueError("Resize method is not implemented.")
    return _resize_images_common(images, resizer, size, preserve_aspect_ratio, name, False)


resize = resize_images


# ---------------- crops of boxes and non-max suppression ----------------

def crop_and_resize(image, boxes, box_ind=None, crop_size=None, method="bilinear", extrapolation_value=0,
                    name=None, box_indices=None):
    """TF 1.15's crop_and_resize (box_indices is box_ind's newer name)."""
    if box_indices is not None:
        if box_ind is not None:
            raise ValueError("Cannot specify both 'box_indices' and its deprecated alias 'box_ind'")
        box_ind = box_indices
    return gen.apply("CropAndResize", name, image=image, boxes=boxes, box_ind=box_ind, crop_size=crop_size,
                     method=method, extrapolation_value=extrapolation_value)


def _thresholds(**kw):
    return {k: ops.convert_to_tensor(v, name=k) for k, v in kw.items()}


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                        name=None):
    """NonMaxSuppressionV3 under "non_max_suppression": the selected indices."""
    with ops.name_scope(name, "non_max_suppression"):
        t = _thresholds(iou_threshold=iou_threshold, score_threshold=score_threshold)
        return gen.apply("NonMaxSuppressionV3", None, boxes=boxes, scores=scores, max_output_size=max_output_size,
                         **t)


def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0, name=None):
    """NonMaxSuppressionV5 (soft NMS when soft_nms_sigma > 0): (indices, scores)."""
    with ops.name_scope(name, "non_max_suppression_with_scores"):
        t = _thresholds(iou_threshold=iou_threshold, score_threshold=score_threshold, soft_nms_sigma=soft_nms_sigma)
        out = gen.apply("NonMaxSuppressionV5", None, boxes=boxes, scores=scores, max_output_size=max_output_size,
                        pad_to_max_output_size=False, **t)
        return out[0], out[1]


def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                               pad_to_max_output_size=False, name=None):
    """TF 1.15's NonMaxSuppressionV4: (indices, valid_outputs); with pad_to_max_output_size
    the indices are padded with 0 to max_output_size."""
    with ops.name_scope(name, "non_max_suppression_padded"):
        t = _thresholds(iou_threshold=iou_threshold, score_threshold=score_threshold)
        out = gen.apply("NonMaxSuppressionV4", None, boxes=boxes, scores=scores, max_output_size=max_output_size,
                        pad_to_max_output_size=pad_to_max_output_size, **t)
        return out[0], out[1]


def non_max_suppression_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                 score_threshold=float("-inf"), name=None):
    """NonMaxSuppressionWithOverlaps: suppression by a given [n, n] overlap matrix."""
    with ops.name_scope(name, "non_max_suppression_overlaps"):
        t = _thresholds(overlap_threshold=overlap_threshold)
        return gen.apply("NonMaxSuppressionWithOverlaps", None, overlaps=overlaps, scores=scores,
                         max_output_size=max_output_size, score_threshold=score_threshold, **t)


def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold=0.5,
                                 score_threshold=float("-inf"), pad_per_class=False, clip_boxes=True, name=None):
    """CombinedNonMaxSuppression: (nmsed_boxes, nmsed_scores, nmsed_classes, valid_detections)."""
    with ops.name_scope(name, "combined_non_max_suppression"):
        iou_threshold = ops.convert_to_tensor(iou_threshold, dtypes.float32, name="iou_threshold")
        score_threshold = ops.convert_to_tensor(score_threshold, dtypes.float32, name="score_threshold")
        out = gen.apply("CombinedNonMaxSuppression", None, boxes=boxes, scores=scores,
                        max_output_size_per_class=max_output_size_per_class, max_total_size=max_total_size,
                        iou_threshold=iou_threshold, score_threshold=score_threshold, pad_per_class=pad_per_class,
                        clip_boxes=clip_boxes)
        return tuple(out)
