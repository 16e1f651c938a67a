"""paddle.dataset.image's helpers (OpenCV-based, as Paddle's): load, resize, crop, flip."""

import cv2
import numpy as np


def load_image_bytes(data, is_color=True):
    flag = cv2.IMREAD_COLOR if is_color else cv2.IMREAD_GRAYSCALE
    return cv2.imdecode(np.frombuffer(data, np.uint8), flag)


def load_image(file, is_color=True):
    flag = cv2.IMREAD_COLOR if is_color else cv2.IMREAD_GRAYSCALE
    return cv2.imread(file, flag)


def resize_short(im, size):
    h, w = im.shape[:2]
    if h > w:
        h_new, w_new = size * h // w, size
    else:
        h_new, w_new = size, size * w // h
    return cv2.resize(im, (w_new, h_new), interpolation=cv2.INTER_CUBIC)


def to_chw(im, order=(2, 0, 1)):
    return im.transpose(order)


def center_crop(im, size, is_color=True):
    h, w = im.shape[:2]
    h_start, w_start = (h - size) // 2, (w - size) // 2
    return im[h_start:h_start + size, w_start:w_start + size]


def random_crop(im, size, is_color=True):
    h, w = im.shape[:2]
    h_start = np.random.randint(0, h - size + 1)
    w_start = np.random.randint(0, w - size + 1)
    return im[h_start:h_start + size, w_start:w_start + size]


def left_right_flip(im, is_color=True):
    return im[:, ::-1, :] if len(im.shape) == 3 and is_color else im[:, ::-1]


def simple_transform(im, resize_size, crop_size, is_train, is_color=True, mean=None):
    im = resize_short(im, resize_size)
    im = random_crop(im, crop_size) if is_train else center_crop(im, crop_size)
    if is_train and np.random.randint(2) == 0:
        im = left_right_flip(im, is_color)
    if len(im.shape) == 3:
        im = to_chw(im)
    im = im.astype("float32")
    if mean is not None:
        im -= np.array(mean, dtype="float32").reshape(-1, 1, 1) if np.ndim(mean) == 1 else mean
    return im


def load_and_transform(filename, resize_size, crop_size, is_train, is_color=True, mean=None):
    return simple_transform(load_image(filename, is_color), resize_size, crop_size, is_train,
                            is_color, mean)
