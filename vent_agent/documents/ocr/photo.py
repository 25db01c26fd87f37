"""A photographed page made flat before it is read: perspective undone, uneven light evened out.

A phone photo of a printed plan is not a scan: the page is seen at an angle (its ruled lines converge
instead of running parallel), lit unevenly, and framed with some background. The rule finder and the
line grouper expect a flat page whose ruled lines are parallel to its edges, so such a page is read as
loose text and its tables are lost. Before OCR, a page is rectified when its own ruled lines say it was
photographed:

1. the long straight strokes of the page are found with OpenCV's line segment detector, after the light
   has been evened out (the page divided by its blurred self), and split into near-horizontal and
   near-vertical ones;
2. when the strokes of one direction converge (their angles spread over more than
   :data:`MIN_CONVERGENCE_DEG`), the vanishing point of each direction is found (least squares over the
   strokes as homogeneous lines), and the projective transform that sends both vanishing points to
   infinity makes parallel lines parallel again; an affine step then makes them horizontal and
   vertical;
3. the page is warped with that transform (white where nothing was seen), at about its first size.

A page without enough long strokes in both directions (a page of prose, a scan) is left as it is; so is a
transform that would fold the page (a vanishing line crossing it). Coordinates after this step are those
of the rectified image.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image

MIN_CONVERGENCE_DEG = 0.4
"""The spread (10th to 90th percentile) of one direction's stroke angles above which a page is taken for
a photo seen at an angle; a flat scan's ruled lines agree within a few tenths of a degree."""
MAX_TILT_DEG = 20.0
"""Strokes more than this off horizontal or vertical belong to neither direction."""
MIN_STROKES = 4
"""Strokes needed in each direction to find its vanishing point."""


@dataclass(frozen=True)
class Rectified:
    """A photographed page made flat: the image and the 3×3 transform applied (pixels to pixels)."""

    image: Image.Image
    transform: np.ndarray


def even_light(gray: np.ndarray) -> np.ndarray:
    """``gray`` (uint8) divided by its own background (a wide median of the page): shading and a
    coloured or grey paper become white, ink stays dark. uint8, same shape."""
    small = cv2.resize(gray, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
    k = max(3, (min(small.shape) // 12) | 1)
    background = cv2.medianBlur(cv2.dilate(small, np.ones((5, 5), np.uint8)), k)
    background = cv2.resize(background, (gray.shape[1], gray.shape[0]), interpolation=cv2.INTER_LINEAR)
    flat = cv2.divide(gray, np.maximum(background, 1), scale=255)
    return np.asarray(flat, dtype=np.uint8)


def _strokes(gray: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The long straight strokes of ``gray`` as (horizontal, vertical) arrays of ``x0, y0, x1, y1``."""
    detector = cv2.createLineSegmentDetector()
    found = detector.detect(gray)[0]
    if found is None:
        return np.empty((0, 4)), np.empty((0, 4))
    seg = found.reshape(-1, 4).astype(float)
    length = np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1])
    seg = seg[length >= max(60.0, 0.12 * min(gray.shape))]
    angle = np.degrees(np.arctan2(seg[:, 3] - seg[:, 1], seg[:, 2] - seg[:, 0])) % 180.0
    horizontal = seg[(angle <= MAX_TILT_DEG) | (angle >= 180.0 - MAX_TILT_DEG)]
    vertical = seg[np.abs(angle - 90.0) <= MAX_TILT_DEG]
    return horizontal, vertical


def _spread(segments: np.ndarray, vertical: bool) -> float:
    """The 10th-90th percentile spread of the strokes' angles (degrees) off their direction."""
    dx, dy = segments[:, 2] - segments[:, 0], segments[:, 3] - segments[:, 1]
    off = np.degrees(np.arctan2(dx, dy) if vertical else np.arctan2(dy, dx))
    off = (off + 90.0) % 180.0 - 90.0
    return float(np.percentile(off, 90) - np.percentile(off, 10))


def _vanishing_point(segments: np.ndarray) -> np.ndarray:
    """The homogeneous point nearest to all ``segments`` as lines (weighted by length): the smallest
    singular vector of their stacked, normalised line equations."""
    p = np.c_[segments[:, :2], np.ones(len(segments))]
    q = np.c_[segments[:, 2:], np.ones(len(segments))]
    lines = np.cross(p, q)
    lines /= np.linalg.norm(lines[:, :2], axis=1, keepdims=True)
    weights = np.hypot(segments[:, 2] - segments[:, 0], segments[:, 3] - segments[:, 1])
    _, _, vt = np.linalg.svd(lines * weights[:, None])
    return np.asarray(vt[-1])


def _apply(transform: np.ndarray, points: np.ndarray) -> np.ndarray:
    homogeneous = np.c_[points, np.ones(len(points))] @ transform.T
    return np.asarray(homogeneous[:, :2] / homogeneous[:, 2:3])


def _direction(transform: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """The mean unit direction of ``segments`` after ``transform`` (each oriented like the first)."""
    a, b = _apply(transform, segments[:, :2]), _apply(transform, segments[:, 2:])
    d = b - a
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    d[d @ d[0] < 0] *= -1
    mean = d.mean(axis=0)
    return np.asarray(mean / np.linalg.norm(mean))


def rectifying_transform(gray: np.ndarray) -> np.ndarray | None:
    """The 3×3 transform that makes the page's ruled lines parallel, horizontal and vertical, or None
    when the page does not look photographed at an angle (see the module docstring)."""
    horizontal, vertical = _strokes(gray)
    if len(horizontal) < MIN_STROKES or len(vertical) < MIN_STROKES:
        return None
    if max(_spread(horizontal, False), _spread(vertical, True)) < MIN_CONVERGENCE_DEG:
        return None
    horizon = np.cross(_vanishing_point(horizontal), _vanishing_point(vertical))
    if abs(horizon[2]) < 1e-12:
        return None
    horizon = horizon / horizon[2]
    h, w = gray.shape
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=float)
    side = np.c_[corners, np.ones(4)] @ horizon
    if not (np.all(side > 0) or np.all(side < 0)):
        return None  # the vanishing line crosses the page: the transform would fold it
    projective = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [horizon[0], horizon[1], 1.0]])
    dh, dv = _direction(projective, horizontal), _direction(projective, vertical)
    dh = dh if dh[0] > 0 else -dh
    dv = dv if dv[1] > 0 else -dv
    affine = np.eye(3)
    affine[:2, :2] = np.linalg.inv(np.c_[dh, dv])
    transform = affine @ projective
    warped = _apply(transform, corners)
    x0, y0 = warped.min(axis=0)
    x1, y1 = warped.max(axis=0)
    scale = max(w, h) / max(x1 - x0, y1 - y0)
    if not math.isfinite(scale) or scale <= 0:
        return None
    fit = np.array([[scale, 0.0, -x0 * scale], [0.0, scale, -y0 * scale], [0.0, 0.0, 1.0]])
    return np.asarray(fit @ transform)


def rectify_photo(image: Image.Image) -> Rectified | None:
    """``image`` made flat (perspective undone, light evened out) when it is a page photographed at an
    angle, else None. The output keeps about the input's size; what lies outside the photo is white."""
    gray = np.asarray(image.convert("L"))
    flat = even_light(gray)
    transform = rectifying_transform(flat)
    if transform is None:
        return None
    h, w = gray.shape
    corners = _apply(transform, np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=float))
    size = (int(math.ceil(corners[:, 0].max())), int(math.ceil(corners[:, 1].max())))
    size = (max(size[0], 1), max(size[1], 1))
    warped = cv2.warpPerspective(flat, transform, size, flags=cv2.INTER_LINEAR, borderValue=255)
    return Rectified(Image.fromarray(warped).convert("RGB"), transform)
