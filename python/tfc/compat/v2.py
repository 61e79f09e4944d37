"""tf.compat.v2 as TF 1.x has it, for the TF 2.x functions whose graphs differ from their TF 1.x
namesakes: image.resize (TF 2.x's resize_images_v2: half-pixel centres, antialias, the
lanczos3, lanczos5, gaussian and mitchellcubic methods through ScaleAndTranslate) and
image.ResizeMethod (its method names). Nothing else of TF 2.x's API is here."""
import types as _types

from tfc.ops import image_ops as _image_ops

image = _types.ModuleType("tfc.compat.v2.image", "tf.compat.v2.image")
image.resize = _image_ops.resize_images_v2
image.ResizeMethod = _image_ops.ResizeMethodV2
