"""The feed QR codes scan: decoded by a real reader (zxing-cpp), not only drawn by segno."""

from __future__ import annotations

import numpy
import pytest
import zxingcpp

from server.app.qr import BORDER, SCALE, qr_code

LINKS = [
    "http://127.0.0.1:8080/feeds/all.ics",
    "https://confcal.example.org/c/pycon-2026/feeds/room/master-stage.ics",
    "https://example.org/feeds/speaker/" + "zoë-ødegård-" * 8 + ".ics",
]


def _decode(text: str) -> list[tuple[str, str]]:
    pixels = numpy.array(
        [
            [0 if dark else 255 for dark in row]
            for row in qr_code(text).matrix_iter(scale=SCALE, border=BORDER + 2)
        ],
        dtype=numpy.uint8,
    )
    return [(found.text, found.ec_level) for found in zxingcpp.read_barcodes(pixels)]


@pytest.mark.parametrize("link", LINKS)
def test_feed_qr_code_decodes_to_its_link_with_error_correction_m(link: str) -> None:
    assert _decode(link) == [(link, "M")]

