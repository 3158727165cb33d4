"""The brand images as the brands rules want them: sizes, transparency, trimming.

Icons are square, 256 px (512 px for @2x); logos are wider than high with the
shorter side 128 to 256 px (twice that for @2x); every image is an RGBA PNG with a
transparent background and no empty border (trimmed). The dark variants are for
dark themes. `script/images.py` draws them.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image
import pytest

BRAND = Path(__file__).resolve().parents[2] / "custom_components/assist_memory/brand"
ICONS = {"icon.png": 256, "icon@2x.png": 512, "dark_icon.png": 256}
ICONS["dark_icon@2x.png"] = 512
LOGOS = {"logo.png": 1, "logo@2x.png": 2, "dark_logo.png": 1, "dark_logo@2x.png": 2}


def open_png(name: str) -> Image.Image:
    image = Image.open(BRAND / name)
    assert image.format == "PNG", name
    assert image.mode == "RGBA", f"{name}: {image.mode}, not RGBA"
    return image


def test_the_brand_folder_holds_the_eight_images() -> None:
    assert sorted(p.name for p in BRAND.iterdir()) == sorted({*ICONS, *LOGOS})


@pytest.mark.parametrize(("name", "size"), ICONS.items())
def test_icons_are_square(name: str, size: int) -> None:
    assert open_png(name).size == (size, size)


@pytest.mark.parametrize(("name", "scale"), LOGOS.items())
def test_logos_are_landscape(name: str, scale: int) -> None:
    width, height = open_png(name).size
    assert width > height
    assert 128 * scale <= height <= 256 * scale


@pytest.mark.parametrize("name", [*ICONS, *LOGOS])
def test_transparent_background_and_trimmed(name: str) -> None:
    image = open_png(name)
    alpha = image.getchannel("A")
    # The upper corners are outside the bubble's rounded corners.
    corners = [(0, 0), (image.width - 1, 0)]
    assert all(alpha.getpixel(xy) == 0 for xy in corners), f"{name}: opaque corner"
    # Trimmed: something is drawn within a pixel or two of every edge.
    box = alpha.point(lambda a: 255 if a > 32 else 0).getbbox()
    assert box is not None, f"{name} is empty"
    left, top, right, bottom = box
    assert max(left, top) <= 2, f"{name}: empty border at the left or top"
    assert min(right - image.width, bottom - image.height) >= -2, (
        f"{name}: empty border at the right or bottom"
    )


@pytest.mark.parametrize("size", ["", "@2x"])
def test_dark_variants_differ_from_the_light_ones(size: str) -> None:
    for kind in ("icon", "logo"):
        light = open_png(f"{kind}{size}.png").tobytes()
        assert open_png(f"dark_{kind}{size}.png").tobytes() != light
