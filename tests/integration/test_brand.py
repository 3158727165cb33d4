"""Home Assistant serves the integration's own brand images (its `brand/` folder)."""

from __future__ import annotations

from pathlib import Path

from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component
import pytest
from pytest_homeassistant_custom_component.typing import ClientSessionGenerator

BRAND = Path(__file__).parents[2] / "custom_components" / "assist_memory" / "brand"
IMAGES = [
    "icon.png",
    "icon@2x.png",
    "logo.png",
    "logo@2x.png",
    "dark_icon.png",
    "dark_icon@2x.png",
    "dark_logo.png",
    "dark_logo@2x.png",
]


@pytest.mark.parametrize("image", IMAGES)
async def test_each_brand_image_is_served_from_the_integration(
    hass: HomeAssistant, hass_client: ClientSessionGenerator, image: str
) -> None:
    assert await async_setup_component(hass, "brands", {})
    client = await hass_client()
    # No placeholder: a missing file would be a 404, not a grey stand-in.
    response = await client.get(
        f"/api/brands/integration/assist_memory/{image}?placeholder=no"
    )
    assert response.status == 200
    assert response.content_type == "image/png"
    assert await response.read() == (BRAND / image).read_bytes()
