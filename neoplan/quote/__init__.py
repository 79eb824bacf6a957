"""OEM quote review: read a quote, identify its lines, size the cluster, find the padding, compare with the design.

A quote comes as CSV or XLSX, the way OEMs, resellers and distributors send them::

    data = Path("quote.xlsx").read_bytes()
    review = review_quote(read_quote(data, "quote.xlsx"))          # servers quoted: read from the quote
    review = review_quote(read_quote(eur, "angebot.csv"), usd_per_unit=1.08)   # a quote in EUR
    review.gpus, review.servers, review.gpu_model, review.per_server, review.findings
    scenario = apply_recommendations(review)   # the quote's cluster with the article's optimized BoM

Modules: :mod:`.read` (bytes → sheets of cells, safe limits, encodings), :mod:`.structure` (the named steps:
:mod:`.header`, :mod:`.rows`, :mod:`.groups`, :mod:`.sections`, with rack matrices (:mod:`.matrix`) and price breaks
(:mod:`.tiers`); then :mod:`.statements`: counts, currency, date), :mod:`.currency` (evidence, stated rates, each
line to USD), :mod:`.ratecard` (a broker's rates: no hardware quote), :mod:`.vocab` (the words of
``data/quote_headers.csv`` and ``data/quote_vocabulary.csv``), :mod:`.classify` (part-number catalogue, scored rules,
confidence), :mod:`.system` (a whole-server or rack line read into its parts), :mod:`.accelerators` (AMD, Gaudi, TPU:
named, not compared), :mod:`.lines` (USD, like-for-like price check), :mod:`.layout` (base rows, sub-item totals,
spares pools), :mod:`.quantities` (each line for the order), :mod:`.size` (the cluster's size from independent
readings), :mod:`.rackscale` (NVL72 services per rack), :mod:`.aggregates`, :mod:`.design`, :mod:`.findings`,
:mod:`.guard` (invariants: a finding that would break one is withheld), :mod:`.bands` and :mod:`.plausibility` (a
reading that breaks a band shows no headline), :mod:`.corrections` (the user's corrections, bundles split, and a
vendor's aliases), :mod:`.compare`, :mod:`.review` (the stages), :mod:`.reviewed` (what a review found),
:mod:`.export`.

Plausible or withheld
---------------------
Bands per platform (``data/quote_bands.csv`` and the book: a server's price per GPU, the quote's total per GPU, the
lines against the book, what one server holds) are checked before any headline: a reading outside one (a server at
1,000× the book, 38 TB of RAM per server) withholds the headline, the comparison and every saving resting on it, and
one sentence names the likely cause (currency, size, quantity basis, classification) and the fix
(``review.implausible``, ``review.headline_withheld``). A rate or currency the user gives is applied or refused with
the reason; the quote's date picks the price book (``review.book``, ``review.book_from``).

Safe when unsure
----------------
No finding saves more than the quote charges for the lines it cites (a part bundled in a server counts as part of
its price; a stand-alone line at 0, "Included", "N/C" saves nothing); a discount is never an item; the savings
never add up to more than the quote total. A finding that would break one is withheld with the reason
(``review.withheld``). Alternatives (Option A/B sheets or sections, "select one") are reviewed one at a time
(``option=``), never summed. Where readings of the cluster's size disagree, ``review.conflicts`` says so and
``size_from=`` picks another.

Identity
--------
A line's part number is looked up in ``data/quote_catalogue.csv`` first; then a complete GPU server (a server SKU
that is not a bare chassis, or a description listing a GPU board, CPUs and memory) is read into its parts; then
every rule of ``data/quote_rules.csv`` matching the normalised text (400Gb/s = 400G = NDR, 2 TB = 2,048 GB) is
scored by the line's head noun (a transceiver that says "multimode" is no fibre). A line whose confidence is below
:data:`UNSURE_BELOW` is ``unsure``: listed, never priced into a finding.

Pricing
-------
Like for like only: a line is compared with the price book when its component and size match (speeds agree;
DIMM, drive and term sizes scale the book price); a whole server is compared with the model's whole node. A
price more than :data:`MAX_BOOK_RATIO` times off the book is ``could_not_price`` (check the classification),
never a saving. Findings cite the quote's own (sheet, row); savings use the quote's prices for what goes and
book prices for what comes (a part included in a server's price counts at book), and may overlap; the headline
saving is the quote minus the recommended design, component by component (whole servers against whole nodes).
"""

from __future__ import annotations

from .bands import Band
from .cells import (
    HEADER_SCAN_ROWS,
    MAX_CELL_CHARS,
    MAX_COLUMNS,
    MAX_MONEY_USD,
    MAX_QUANTITY,
    MAX_QUOTE_BYTES,
    MAX_ROWS_PER_SHEET,
    MAX_SHEETS,
    MAX_XLSX_EXPANDED_BYTES,
    RULES_FILE,
    SAMPLES_DIR,
    QuoteError,
    parse_money,
    parse_quantity,
)
from .classify import (
    UNSURE_BELOW,
    CatalogueEntry,
    Identity,
    Rule,
    classify,
    component_of_key,
    default_catalogue,
    default_rules,
    read_catalogue,
    read_rules,
    score_rules,
)
from .codes import (
    BACKEND_NICS_RECOMMENDED,
    CATEGORIES,
    CENT_USD,
    DEFAULT_PRICE_TOLERANCE,
    FINDINGS,
    MISMATCH_SHARE,
    RAM_GB_PER_SERVER_RECOMMENDED,
    UFM_REQUIRED_ABOVE_GPUS,
)
from .compare import ComparisonRow, compare
from .corrections import (
    Alias,
    Correction,
    aliases_from,
    classes,
    guess_vendor,
    parse_aliases,
    parse_corrections,
    parse_split,
    read_aliases_file,
)
from .currency import Conversion, StatedRate, stated_rates
from .export import (
    ANNOTATED_COLUMNS,
    QUOTE_COLUMNS,
    annotated_records,
    design_quote_rows,
    finding_records,
    rows_to_csv,
    safe_cell,
    sample_quotes,
    text_summary,
    to_csv_bytes,
    to_xlsx_bytes,
)
from .findings import (
    Finding,
    find_above_book,
    find_all,
    find_dpus,
    find_flagged,
    find_mismatch,
    find_missing,
    find_nics,
    find_nonblocking,
    find_nvaie,
    find_optics_everywhere,
    find_ram,
    find_swaps,
)
from .guard import Withheld
from .lines import MAX_BOOK_RATIO, QuoteLine, identify_line
from .plausibility import Breach
from .ratecard import Rate, RateCard
from .read import read_quote, read_quote_file
from .review import apply_recommendations, choose_option, load_quote, review_quote, usd_rate
from .reviewed import QuoteReview
from .size import READINGS, Conflict, Reading
from .structure import ParsedQuote, RawLine, StatedTotal, find_header, header_roles
from .system import SystemConfig, SystemPart, parse_system
from .units import normalise

__all__ = [
    "ANNOTATED_COLUMNS",
    "BACKEND_NICS_RECOMMENDED",
    "CATEGORIES",
    "CENT_USD",
    "DEFAULT_PRICE_TOLERANCE",
    "FINDINGS",
    "HEADER_SCAN_ROWS",
    "MAX_BOOK_RATIO",
    "MAX_CELL_CHARS",
    "MAX_COLUMNS",
    "MAX_MONEY_USD",
    "MAX_QUANTITY",
    "MAX_QUOTE_BYTES",
    "MAX_ROWS_PER_SHEET",
    "MAX_SHEETS",
    "MAX_XLSX_EXPANDED_BYTES",
    "MISMATCH_SHARE",
    "QUOTE_COLUMNS",
    "RAM_GB_PER_SERVER_RECOMMENDED",
    "READINGS",
    "RULES_FILE",
    "SAMPLES_DIR",
    "UFM_REQUIRED_ABOVE_GPUS",
    "UNSURE_BELOW",
    "Alias",
    "Band",
    "Breach",
    "CatalogueEntry",
    "ComparisonRow",
    "Conflict",
    "Conversion",
    "Correction",
    "Finding",
    "Identity",
    "ParsedQuote",
    "QuoteError",
    "QuoteLine",
    "QuoteReview",
    "Rate",
    "RateCard",
    "RawLine",
    "Reading",
    "Rule",
    "StatedRate",
    "StatedTotal",
    "SystemConfig",
    "SystemPart",
    "Withheld",
    "aliases_from",
    "annotated_records",
    "apply_recommendations",
    "choose_option",
    "classes",
    "classify",
    "compare",
    "component_of_key",
    "default_catalogue",
    "default_rules",
    "design_quote_rows",
    "find_above_book",
    "find_all",
    "find_dpus",
    "find_flagged",
    "find_header",
    "find_mismatch",
    "find_missing",
    "find_nics",
    "find_nonblocking",
    "find_nvaie",
    "find_optics_everywhere",
    "find_ram",
    "find_swaps",
    "finding_records",
    "guess_vendor",
    "header_roles",
    "identify_line",
    "load_quote",
    "normalise",
    "parse_aliases",
    "parse_corrections",
    "parse_money",
    "parse_quantity",
    "parse_split",
    "parse_system",
    "read_aliases_file",
    "read_catalogue",
    "read_quote",
    "read_quote_file",
    "read_rules",
    "review_quote",
    "rows_to_csv",
    "safe_cell",
    "sample_quotes",
    "score_rules",
    "stated_rates",
    "text_summary",
    "to_csv_bytes",
    "to_xlsx_bytes",
    "usd_rate",
]
