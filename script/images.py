#!/usr/bin/env python3
"""Draw the project's images: the integration's brand/ folder and the add-on's.

Usage: .venv/bin/python script/images.py

The mark is a blue speech bubble holding a white bookmark: a conversation, kept.
Integration (custom_components/assist_memory/brand/): icon.png 256 x 256 and
icon@2x.png 512 x 512; logo.png (128 px high) and logo@2x.png, the mark and the
name; dark_* variants of each for dark themes. Every image is trimmed, on a
transparent background. Add-on (addon/): icon.png 128 x 128 and logo.png 250 x 100.
Shapes are drawn at four times the size and scaled down for smooth edges. Pillow
comes with Home Assistant's test requirements.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parent.parent
BRAND = ROOT / "custom_components" / "assist_memory" / "brand"
ADDON = ROOT / "addon"
SUPERSAMPLE = 4
NAME = "Assist Memory"

Colour = tuple[int, int, int, int]
BLUE: Colour = (3, 169, 244, 255)  # Home Assistant's blue
LIGHT_BLUE: Colour = (79, 195, 247, 255)  # the same, brighter, for dark themes
WHITE: Colour = (255, 255, 255, 255)
INK: Colour = (33, 33, 33, 255)
PAPER: Colour = (245, 245, 245, 255)
CLEAR: Colour = (0, 0, 0, 0)


def _scaled(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    """Scale with premultiplied alpha, so edges do not darken."""
    return image.convert("RGBa").resize(size, Image.Resampling.LANCZOS).convert("RGBA")


def _trimmed(image: Image.Image) -> Image.Image:
    """Without the fully transparent border."""
    box = image.getchannel("A").getbbox()
    if box is None:
        raise ValueError("nothing drawn")
    return image.crop(box)


def draw_mark(size: int, bubble: Colour) -> Image.Image:
    """The mark at `size` x `size`, filling the square edge to edge.

    A speech bubble with its tail at the lower left, and a bookmark in it.
    """
    s = size * SUPERSAMPLE
    unit = s / 100  # coordinates below on a 100 x 100 grid
    image = Image.new("RGBA", (s, s), CLEAR)
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((0, 0, s - 1, 80 * unit), radius=22 * unit, fill=bubble)
    draw.polygon(
        [(16 * unit, 70 * unit), (14 * unit, s - 1), (44 * unit, 74 * unit)],
        fill=bubble,
    )
    # The bookmark: a ribbon with a notch cut into its lower end.
    draw.polygon(
        [
            (36 * unit, 16 * unit),
            (64 * unit, 16 * unit),
            (64 * unit, 64 * unit),
            (50 * unit, 52 * unit),
            (36 * unit, 64 * unit),
        ],
        fill=WHITE,
    )
    return _scaled(image, (size, size))


def draw_logo(
    height: int, bubble: Colour, ink: Colour, lines: list[str]
) -> Image.Image:
    """The mark and the name beside it (one line or more), `height` px high, trimmed."""
    h = height * SUPERSAMPLE
    font = ImageFont.load_default(size=round(h * 0.52 / len(lines)))
    text_width = max(round(font.getlength(line)) for line in lines)
    canvas = Image.new("RGBA", (h + h // 6 + text_width + h // 10, h), CLEAR)
    canvas.paste(draw_mark(h, bubble), (0, 0))
    draw = ImageDraw.Draw(canvas)
    step = h / len(lines)
    for number, line in enumerate(lines):
        middle = (number + 0.5) * step - (0.06 * h if len(lines) == 1 else 0)
        draw.text((h + h // 6, middle), line, font=font, fill=ink, anchor="lm")
    logo = _trimmed(canvas)
    return _scaled(logo, (round(logo.width * height / logo.height), height))


def _fit(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    """The image scaled to fit `size` and centred on a transparent canvas."""
    scale = min(size[0] / image.width, size[1] / image.height)
    inner = _scaled(image, (round(image.width * scale), round(image.height * scale)))
    canvas = Image.new("RGBA", size, CLEAR)
    canvas.paste(inner, ((size[0] - inner.width) // 2, (size[1] - inner.height) // 2))
    return canvas


def main() -> None:
    """Write every image."""
    BRAND.mkdir(exist_ok=True)
    for prefix, bubble, ink in (("", BLUE, INK), ("dark_", LIGHT_BLUE, PAPER)):
        for suffix, scale in (("", 1), ("@2x", 2)):
            draw_mark(256 * scale, bubble).save(
                BRAND / f"{prefix}icon{suffix}.png", optimize=True
            )
            draw_logo(128 * scale, bubble, ink, [NAME]).save(
                BRAND / f"{prefix}logo{suffix}.png", optimize=True
            )
    draw_mark(128, BLUE).save(ADDON / "icon.png", optimize=True)
    addon_logo = draw_logo(200, BLUE, INK, NAME.split())
    _fit(addon_logo, (250, 100)).save(ADDON / "logo.png", optimize=True)
    print(f"wrote the images in {BRAND} and {ADDON}")


if __name__ == "__main__":
    main()
