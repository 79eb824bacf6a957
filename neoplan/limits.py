"""Size limits on what users hand in, stated once: the readers enforce them, the app's uploaders show and enforce
the same numbers, and ``.streamlit/config.toml``'s ``server.maxUploadSize`` is the largest of them (a test checks).

Sizes in mebibytes, as Streamlit counts an upload's "MB" (1 MB = 1,048,576 bytes).
"""

from __future__ import annotations

MIB = 1024 * 1024
"""Bytes in one "MB" of an upload limit [bytes]."""

SCENARIO_FILE_MB = 1
"""Largest scenario file (YAML or JSON) [MB]: a full scenario with every price overridden is under 100 kB."""
QUOTE_FILE_MB = 5
"""Largest quote file (CSV or XLSX) [MB]."""
UPLOAD_MB = max(SCENARIO_FILE_MB, QUOTE_FILE_MB)
"""What the server accepts in one upload [MB] (``server.maxUploadSize``); each uploader caps itself lower."""
UPLOAD_REQUEST_MB = UPLOAD_MB + 1
"""The largest upload request a proxy in front must let through [MB] (nginx ``client_max_body_size``): Streamlit
accepts a request body of ``server.maxUploadSize`` plus 1 MB of multipart framing (boundaries, part headers)."""

SCENARIO_FILE_BYTES = SCENARIO_FILE_MB * MIB
QUOTE_FILE_BYTES = QUOTE_FILE_MB * MIB

SCENARIO_MAX_NODES = 20_000
"""Most values (mappings, lists and scalars) in one scenario file or mapping: a full scenario has about 250, and
``prices`` at most 1,000 more. Counted before anything is built from them."""
SCENARIO_MAX_DEPTH = 32
"""Deepest nesting of mappings and lists in a scenario (a scenario nests 4 deep)."""


def size_text(mb: int) -> str:
    """An upload limit for people: ``1 MB``."""
    return f"{mb} MB"
