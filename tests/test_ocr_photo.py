"""A photographed page is made flat before OCR (vent_agent/documents/ocr/photo.py): a ruled table seen
at an angle, unevenly lit, comes out with parallel, horizontal and vertical rules that the rule finder
turns into a grid; a flat or skewed scan is left alone."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from PIL import Image

from tests.ocr_fakes import synthetic_scan
from vent_agent.documents.ocr.photo import _spread, _strokes, even_light, rectify_photo
from vent_agent.documents.ocr.rules import find_rules, ruled_grids

ROWS: list[list[str | None]] = [[f"r{r}c{c}" for c in range(5)] for r in range(12)]
WIDTHS = [120, 300, 220, 220, 220]


def _table_page(angle: float = 0.0) -> Image.Image:
    return synthetic_scan(ROWS, col_widths=WIDTHS, origin=(200, 500), angle=angle, speckle=0.001).image


def _photograph(image: Image.Image, squeeze: float, light: bool = True) -> Image.Image:
    """``image`` as a phone sees it held at an angle: the top edge ``squeeze`` × the width narrower than
    the bottom, on a dark background, darker towards one side."""
    w, h = image.size
    inset = squeeze * w / 2
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)
    dst = np.array([[inset + 40, 60], [w - inset - 10, 30], [w - 20, h - 20], [30, h - 50]], dtype=np.float32)
    warped = cv2.warpPerspective(
        np.asarray(image.convert("L")), cv2.getPerspectiveTransform(src, dst), (w, h), borderValue=40
    )
    if light:
        shade = np.linspace(1.0, 0.7, w)[None, :]
        warped = (warped * shade).astype(np.uint8)
    return Image.fromarray(warped).convert("RGB")


def _rule_spread(image: Image.Image) -> float:
    horizontal, vertical = _strokes(even_light(np.asarray(image.convert("L"))))
    return max(_spread(horizontal, False), _spread(vertical, True))


@pytest.mark.parametrize("squeeze", [0.06, 0.12, 0.2])
def test_a_table_photographed_at_an_angle_is_made_flat(squeeze: float) -> None:
    photo = _photograph(_table_page(), squeeze)
    assert _rule_spread(photo) > 1.0  # the rules converge: the rule finder would lose the table
    rectified = rectify_photo(photo)
    assert rectified is not None
    assert _rule_spread(rectified.image) < 0.4
    gray = np.asarray(rectified.image.convert("L"))
    (grid,) = ruled_grids(find_rules(gray, 30.0))
    assert (len(grid.ys), len(grid.xs)) == (len(ROWS) + 1, len(WIDTHS) + 1)
    assert max(rectified.image.size) == pytest.approx(max(photo.size), rel=0.05)


@pytest.mark.parametrize("angle", [0.0, 1.5, -2.5])
def test_a_flat_scan_even_skewed_is_left_alone(angle: float) -> None:
    assert rectify_photo(_table_page(angle)) is None


def test_a_page_without_rules_is_left_alone() -> None:
    page = Image.new("RGB", (1200, 1700), "white")
    assert rectify_photo(page) is None


def test_a_photographed_page_without_rules_is_squared_by_its_edges() -> None:
    photo = _photograph(Image.new("RGB", (1200, 1700), "white"), 0.15)
    rectified = rectify_photo(photo)
    assert rectified is not None
    assert _rule_spread(rectified.image) < 0.4


def test_uneven_light_becomes_white_paper_with_dark_ink() -> None:
    gray = np.full((400, 600), 200, np.uint8)
    gray = (gray * np.linspace(1.0, 0.55, 600)[None, :]).astype(np.uint8)
    gray[190:200, 50:550] = 20
    flat = even_light(gray)
    assert flat[50, 20] > 240 and flat[50, 580] > 240
    assert flat[195, 300] < 100
