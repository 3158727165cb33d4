#!/usr/bin/env python3
"""Draw the add-on's icon.png (128x128) and logo.png (250x100) into addon/.

Usage: .venv/bin/python script/addon_images.py

A white brain of overlapping lobes on a blue rounded square, drawn at four times the
size and scaled down for smooth edges. Pillow comes with Home Assistant's test
requirements.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

ADDON = Path(__file__).resolve().parent.parent / "addon"
SCALE = 4
BLUE = (3, 169, 244, 255)
WHITE = (255, 255, 255, 255)
INK = (33, 33, 33, 255)
# Lobes of one half of the brain as (x, y, radius) on a 128 x 128 canvas; the other
# half is their mirror image.
LOBES = ((46, 46, 20), (36, 66, 20), (48, 84, 18), (58, 62, 16))
# Folds: arcs as (box on the 128 x 128 canvas, start and end angle), left half.
FOLDS = (
    ((40, 30, 64, 54), 90, 200),
    ((24, 52, 48, 76), 300, 60),
    ((40, 64, 64, 88), 180, 290),
    ((30, 80, 50, 100), 270, 20),
)


def draw_icon(size: int) -> Image.Image:
    """The icon at `size` x `size` pixels."""
    big = 128 * SCALE
    image = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((0, 0, big - 1, big - 1), radius=28 * SCALE, fill=BLUE)
    for x, y, r in LOBES:
        for cx in (x, 128 - x):
            box = ((cx - r) * SCALE, (y - r) * SCALE, (cx + r) * SCALE, (y + r) * SCALE)
            draw.ellipse(box, fill=WHITE)
    # The gap between the halves, and the folds, in the background colour.
    draw.line(
        (64 * SCALE, 28 * SCALE, 64 * SCALE, 100 * SCALE), fill=BLUE, width=4 * SCALE
    )
    for (left, top, right, bottom), start, end in FOLDS:
        for mirrored in (False, True):
            x0, x1 = (128 - right, 128 - left) if mirrored else (left, right)
            angles = (180 - end, 180 - start) if mirrored else (start, end)
            draw.arc(
                (x0 * SCALE, top * SCALE, x1 * SCALE, bottom * SCALE),
                *angles,
                fill=BLUE,
                width=3 * SCALE,
            )
    return image.resize((size, size), Image.Resampling.LANCZOS)


def draw_logo() -> Image.Image:
    """The logo: the icon and the name, 250 x 100 pixels."""
    logo = Image.new("RGBA", (250, 100), (0, 0, 0, 0))
    logo.paste(draw_icon(84), (8, 8))
    draw = ImageDraw.Draw(logo)
    font = ImageFont.load_default(size=24)
    draw.text((102, 22), "Assist", font=font, fill=INK)
    draw.text((102, 52), "Memory", font=font, fill=INK)
    return logo


def main() -> None:
    """Write both images."""
    draw_icon(128).save(ADDON / "icon.png", optimize=True)
    draw_logo().save(ADDON / "logo.png", optimize=True)
    print(f"wrote {ADDON / 'icon.png'} and {ADDON / 'logo.png'}")


if __name__ == "__main__":
    main()
