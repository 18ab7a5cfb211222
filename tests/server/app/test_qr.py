"""The feed QR codes scan: decoded by a real reader (zxing-cpp), not only drawn by segno."""

from __future__ import annotations

import io
import re

import numpy
import numpy.typing
import pytest
import zxingcpp
from hypothesis import given, settings
from hypothesis import strategies as st

from server.app.qr import BORDER, SCALE, qr_code, qr_svg

LINKS = [
    "http://127.0.0.1:8080/feeds/all.ics",
    "https://confcal.example.org/c/pycon-2026/feeds/room/master-stage.ics",
    "https://example.org/feeds/speaker/" + "zoë-ødegård-" * 8 + ".ics",
]


def _decode(text: str) -> list[tuple[str, str]]:
    pixels = numpy.array(
        [[0 if dark else 255 for dark in row] for row in qr_code(text).matrix_iter(scale=SCALE, border=BORDER + 2)],
        dtype=numpy.uint8,
    )
    return [(found.text, found.ec_level) for found in zxingcpp.read_barcodes(pixels)]


@pytest.mark.parametrize("link", LINKS)
def test_feed_qr_code_decodes_to_its_link_with_error_correction_m(link: str) -> None:
    assert _decode(link) == [(link, "M")]


def _segno_svg(text: str, title: str) -> bytes:
    """What segno's own SVG writer gives for the options qr_svg draws with."""
    out = io.BytesIO()
    qr_code(text).save(
        out, kind="svg", scale=SCALE, border=BORDER, xmldecl=False, title=title, dark="#000", light="#fff"
    )
    return out.getvalue()


@pytest.mark.parametrize("link", LINKS)
def test_the_svg_is_byte_for_byte_segnos_drawing(link: str) -> None:
    title = "Subscribe: R&D <Talks> “Zoë”"

    assert qr_svg.__wrapped__(link, title).body == _segno_svg(link, title)


def _pixels_of(svg: bytes) -> numpy.typing.NDArray[numpy.uint8]:
    """The dark runs of the drawn path (`M x y h n` / `m dx dy h n`) as a module grid."""
    size = int(re.search(rb'd="M0 0h(\d+)v', svg).group(1))  # type: ignore[union-attr]
    path = re.search(rb'class="qrline" stroke="#000" d="([^"]*)"', svg).group(1)  # type: ignore[union-attr]
    grid = numpy.full((size, size), 255, dtype=numpy.uint8)
    x = y = 0.0
    for move, dx, dy, length in re.findall(rb"([Mm])(-?[\d.]+) (-?[\d.]+)h(\d+)", path):
        x, y = (float(dx), float(dy)) if move == b"M" else (x + float(dx), y + float(dy))
        grid[int(y - 0.5), int(x) : int(x) + int(length)] = 0
        x += int(length)
    return numpy.pad(grid.repeat(SCALE, 0).repeat(SCALE, 1), 2 * SCALE, constant_values=255)


@pytest.mark.parametrize("link", LINKS)
def test_the_drawn_svg_decodes_to_its_link(link: str) -> None:
    found = zxingcpp.read_barcodes(_pixels_of(qr_svg.__wrapped__(link, "Subscribe").body))

    assert [(f.text, f.ec_level) for f in found] == [(link, "M")]


@settings(max_examples=40, deadline=None)
@given(st.text(min_size=1, max_size=300), st.text(max_size=40))
def test_the_svg_is_segnos_drawing_for_any_text(text: str, title: str) -> None:
    assert qr_svg.__wrapped__(text, title).body == _segno_svg(text, title)
