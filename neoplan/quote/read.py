"""Files to rows: CSV and XLSX bytes read into sheets of cells, within safe limits.

XLSX is read by a small streaming reader of its own (zipfile + ElementTree.iterparse), not by a spreadsheet
library, so every limit holds before memory is spent: each part's declared size and its real uncompressed stream
are capped (:data:`MAX_XLSX_PART_BYTES`, :data:`MAX_XLSX_EXPANDED_BYTES`), XML entity declarations are refused,
cells are counted on the raw stream before any row is built (:data:`MAX_CELLS`) and a sheet with a filled row
past :data:`MAX_ROWS_PER_SHEET` is refused at that row. A row's index in the returned list is its spreadsheet row
number − 1 (CSV: its line number − 1), so rows are cited as the file shows them.
"""

from __future__ import annotations

import csv
import io
import posixpath
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO
from xml.etree import ElementTree as ET

from ..limits import MIB, QUOTE_FILE_MB, size_text
from .cells import (
    _OLE_MAGIC,
    _XLSX_MAGIC,
    DEEP_HEADER_SCAN_ROWS,
    ISO_CURRENCIES,
    MAX_CELL_CHARS,
    MAX_CELLS,
    MAX_COLUMNS,
    MAX_QUOTE_BYTES,
    MAX_ROWS_PER_SHEET,
    MAX_SHEETS,
    MAX_XLSX_EXPANDED_BYTES,
    MAX_XLSX_PART_BYTES,
    MAX_XLSX_PARTS,
    Cell,
    QuoteError,
    clear_caches,
)
from .structure import ParsedQuote, header_quality, parse_sheets

Sheets = list[tuple[str, list[list[Cell]]]]
_MAX_RAW_CELL_CHARS = MAX_CELL_CHARS * 4
_ESCAPE = re.compile(r"_x([0-9A-Fa-f]{4})_")  # Excel's escape of a character XML cannot hold (_x000D_ = CR)
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffd]")
_MAX_ROW_ELEMENTS = 10 * MAX_ROWS_PER_SHEET  # row records of a sheet, filled or not
_SMALL_PART_BYTES = 5_000_000  # workbook.xml and relationship parts [bytes]
_WHOLE_PART_BYTES = 4_000_000  # a sheet this small is parsed whole (a tree of a few tens of MB) [bytes]


def read_quote(data: bytes, name: str = "quote", currency: str | None = None) -> ParsedQuote:
    """Read a quote from the bytes of its file: sheets, header row, items and sub-items, quantities, prices.

    CSV or XLSX, told apart by content, within safe limits (file size, sheets, rows, columns, cell length, an XLSX
    file's expanded size); headers and row words in English, Chinese, Japanese, Korean, German, French or Spanish.

    Parameters
    ----------
    data : bytes
        The file's content.
    name : str, optional
        The file's name, for messages.
    currency : str, optional
        The ISO 4217 code of the quote's prices when you know it (a quote marked ¥ that does not say whether it
        means yuan or yen); None = as the quote says.

    Returns
    -------
    ParsedQuote
        The quote's rows, ready for :func:`neoplan.quote.review_quote`.

    Raises
    ------
    QuoteError
        For an empty, oversized or unreadable file (an old ``.xls``, a password), or an unknown currency code.

    Examples
    --------
    >>> from neoplan.quote import read_quote, review_quote
    >>> csv = b"Description,Qty,Unit price\\nHGX H100 8-GPU server,16,280000\\n"
    >>> review_quote(read_quote(csv, "quote.csv")).servers
    16
    >>> read_quote(b"", "empty.csv")
    Traceback (most recent call last):
    ...
    neoplan.quote.errors.QuoteError: empty.csv: the file is empty
    """
    label = Path(name).name or "quote"
    if currency is not None:
        currency = currency.strip().upper()
        if currency not in ISO_CURRENCIES:
            raise QuoteError(f"currency must be an ISO 4217 code such as USD, EUR, CNY or JPY, got {currency!r}")
    clear_caches()  # per file: timings and memory do not depend on the files read before
    if len(data) > MAX_QUOTE_BYTES:
        raise QuoteError(f"{label}: file is {len(data) / MIB:.1f} MB, over the {size_text(QUOTE_FILE_MB)} limit")
    if not data.strip():
        raise QuoteError(f"{label}: the file is empty")
    if data.startswith(_XLSX_MAGIC):
        sheets, notes = read_xlsx(data, label)
    elif data.startswith(_OLE_MAGIC):
        raise QuoteError(
            f"{label}: an old Excel .xls file or a password-protected workbook is not supported; "
            "save it as .xlsx without a password, or as CSV"
        )
    else:
        sheets, notes = [("", read_csv(data, label))], []
    return parse_sheets(sheets, label, notes, currency)


def read_quote_file(path: str | Path, currency: str | None = None) -> ParsedQuote:
    """Read a quote file from disk (its size checked before reading): :func:`read_quote` of its bytes.

    Parameters
    ----------
    path : str or pathlib.Path
        The CSV or XLSX file.
    currency : str, optional
        The quote's ISO 4217 currency code when the file does not say it clearly.

    Returns
    -------
    ParsedQuote
        The quote's rows.

    Raises
    ------
    QuoteError
        For a missing, oversized or unreadable file.

    Examples
    --------
    >>> from neoplan.quote import SAMPLES_DIR, read_quote_file
    >>> quote = read_quote_file(SAMPLES_DIR / "clean_1024_h100.csv")  # a synthetic sample
    >>> read_quote_file(SAMPLES_DIR / "no_such_quote.csv")
    Traceback (most recent call last):
    ...
    neoplan.quote.errors.QuoteError: .../no_such_quote.csv: no such file
    """
    path = Path(path)
    if not path.is_file():
        raise QuoteError(f"{path}: no such file")
    size = path.stat().st_size
    if size > MAX_QUOTE_BYTES:
        raise QuoteError(f"{path.name}: file is {size / MIB:.1f} MB, over the {size_text(QUOTE_FILE_MB)} limit")
    return read_quote(path.read_bytes(), path.name, currency)


# --- CSV --------------------------------------------------------------------------------------------------------------


def read_csv(data: bytes, label: str) -> list[list[Cell]]:
    """Rows of a CSV file (row i is line i + 1), delimiter chosen by the best header; raises QuoteError."""
    return _csv_rows(_decode(data, label), label)


LEGACY_ENCODINGS = ("cp932", "gb18030", "cp1252")
"""Encodings tried, in this order, for a CSV that is not UTF-8: Japanese Excel (Shift_JIS), Chinese Excel
(GB18030, a superset of GBK/GB2312), Western Excel ("CSV (Windows)"); the one whose text reads best wins."""


def _decode(data: bytes, label: str) -> str:
    """Text of a CSV file: UTF-8 (with or without BOM), UTF-16 (BOM), else the legacy encoding whose text has the
    best quote header and the fewest stray characters (:data:`LEGACY_ENCODINGS`); binary content raises."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError:
            raise QuoteError(f"{label}: not a CSV or XLSX file (binary content)") from None
    elif b"\x00" in data:
        raise QuoteError(f"{label}: not a CSV or XLSX file (binary content)")
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = _legacy(data, label)
    control = len(_CONTROL.findall(text))
    if control > max(2, 0.01 * len(text)):
        raise QuoteError(f"{label}: not a CSV or XLSX file (binary content)")
    return text


def _legacy(data: bytes, label: str) -> str:
    """``data`` decoded with the legacy encoding that reads best (see :data:`LEGACY_ENCODINGS`)."""
    best: tuple[tuple[int, float], str] | None = None
    for encoding in LEGACY_ENCODINGS:
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        score = (_best_header(text[:_SNIFF_CHARS], label)[0], -_stray_share(text[:_SNIFF_CHARS]))
        if best is None or score > best[0]:
            best = (score, text)
    return best[1] if best is not None else data.decode("cp1252", errors="replace")


_SNIFF_CHARS = 65_536
_STRAY = re.compile(r"[\x80-\x9f\ufffd\ue000-\uf8ff]|[\u0080-\u00bf](?=[\u0080-\u00ff])")


def _stray_share(text: str) -> float:
    """Share of characters that a wrong decoding leaves: C1 controls, private use, runs of Latin-1 symbols."""
    return len(_STRAY.findall(text)) / max(1, len(text))


def _best_header(text: str, label: str) -> tuple[int, str]:
    """(header quality, delimiter) of the delimiter whose header reads best (comma, semicolon, tab or pipe)."""
    best: tuple[int, str] = (-2, ",")
    for delimiter in (",", ";", "\t", "|"):
        try:
            head = _split_csv(text, delimiter, label, DEEP_HEADER_SCAN_ROWS + 1, refuse_more=False)
        except QuoteError:
            continue
        score = header_quality(head)
        if score > best[0]:
            best = (score, delimiter)
    return best


def _csv_rows(text: str, label: str) -> list[list[Cell]]:
    """Rows of a CSV text with the delimiter whose header is best (comma, semicolon, tab or pipe)."""
    return _split_csv(text, _best_header(text, label)[1], label, MAX_ROWS_PER_SHEET, refuse_more=True)


def _split_csv(text: str, delimiter: str, label: str, limit: int, *, refuse_more: bool) -> list[list[Cell]]:
    """Up to ``limit`` rows of ``text`` split at ``delimiter``, one per line (a quoted multi-line cell keeps the
    numbering: row i is the line i + 1 the row starts on); an unreadable CSV or, with ``refuse_more``, a filled
    row past ``limit`` raises QuoteError."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows: list[list[Cell]] = []
    try:
        start = 1
        for raw in reader:
            if start > limit:
                if not refuse_more:
                    break
                if any(c.strip() for c in raw):
                    raise QuoteError(
                        f"{label}: more than {MAX_ROWS_PER_SHEET:,} rows (line {start:,} is filled); "
                        "split the quote into smaller files"
                    )
            else:
                while len(rows) < start - 1:
                    rows.append([])
                rows.append([c[:_MAX_RAW_CELL_CHARS] for c in raw[:MAX_COLUMNS]])
            start = reader.line_num + 1
    except csv.Error as exc:
        raise QuoteError(f"{label}: not a readable CSV file (line {reader.line_num}: {exc})") from None
    return rows


# --- XLSX -------------------------------------------------------------------------------------------------------------


class _CappedStream(io.RawIOBase):
    """A zip member read through a byte cap: the real stream, not the declared size, is counted."""

    def __init__(self, raw: IO[bytes], cap: int, budget: list[int], what: str) -> None:
        self._raw, self._cap, self._budget, self._what, self._read = raw, cap, budget, what, 0
        self._tail = b""

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        chunk = self._raw.read(size if size is not None and size > 0 else 65_536)
        self._read += len(chunk)
        self._budget[0] -= len(chunk)
        if self._read > self._cap:
            raise QuoteError(f"{self._what} expands to more than {self._cap / 1e6:.0f} MB; refused as unsafe")
        if self._budget[0] < 0:
            raise QuoteError(
                f"{self._what}: the workbook expands to more than {MAX_XLSX_EXPANDED_BYTES / 1e6:.0f} MB; refused"
            )
        window = self._tail + chunk
        if b"<!DOCTYPE" in window or b"<!ENTITY" in window:
            raise QuoteError(f"{self._what} declares XML entities; refused as unsafe")
        self._tail = chunk[-16:]
        return chunk

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _local(tag: str) -> str:
    """``{namespace}name`` → ``name``."""
    return tag.rpartition("}")[2]


def _attr(elem: ET.Element, name: str) -> str | None:
    """Attribute ``name`` in any namespace (relationship ids are ``r:id`` in several namespaces)."""
    if name in elem.attrib:
        return elem.attrib[name]
    return next((v for k, v in elem.attrib.items() if _local(k) == name), None)


class _Workbook:
    """The parts of an XLSX zip, read with caps."""

    def __init__(self, zf: zipfile.ZipFile, label: str) -> None:
        self.zf, self.label = zf, label
        self.names = {info.filename: info for info in zf.infolist()}
        self.budget = [MAX_XLSX_EXPANDED_BYTES]

    def open(self, part: str, cap: int = MAX_XLSX_PART_BYTES) -> _CappedStream:
        return _CappedStream(self.zf.open(self.names[part]), cap, self.budget, f"{self.label}: part {part!r}")

    def small(self, part: str) -> ET.Element | None:
        """A small part (workbook, relationships) parsed whole; None when absent."""
        if part not in self.names:
            return None
        return ET.parse(self.open(part, _SMALL_PART_BYTES)).getroot()

    def rels(self, part: str) -> dict[str, tuple[str, str]]:
        """Relationship id → (type, absolute target part) of ``part``."""
        folder, file = posixpath.split(part)
        root = self.small(posixpath.join(folder, "_rels", file + ".rels"))
        out: dict[str, tuple[str, str]] = {}
        for rel in [] if root is None else root:
            target = rel.get("Target") or ""
            if rel.get("TargetMode") == "External":
                continue
            path = target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join(folder, target))
            out[rel.get("Id") or ""] = (rel.get("Type") or "", path)
        return out


def read_xlsx(data: bytes, label: str) -> tuple[Sheets, list[str]]:
    """(sheet name, rows) of every visible worksheet, and notes on what was left out; raises QuoteError.

    A formula cell counts with the value the spreadsheet last saved for it (none in a file never opened in a
    spreadsheet: such cells read as empty).
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            _check_declared(zf, label)
            return _read_workbook(_Workbook(zf, label))
    except QuoteError:
        raise
    except Exception as exc:  # a corrupt upload: zipfile, zlib and the XML parser raise many types
        raise QuoteError(f"{label}: not a readable XLSX file ({type(exc).__name__})") from None


def _check_declared(zf: zipfile.ZipFile, label: str) -> None:
    """Refuse a workbook whose parts declare more than the caps (a zip bomb), before anything is inflated."""
    infos = zf.infolist()
    if len(infos) > MAX_XLSX_PARTS:
        raise QuoteError(f"{label}: the XLSX has {len(infos):,} parts, over the {MAX_XLSX_PARTS:,} limit")
    biggest = max(infos, key=lambda i: i.file_size, default=None)
    if biggest is not None and biggest.file_size > MAX_XLSX_PART_BYTES:
        raise QuoteError(
            f"{label}: part {biggest.filename!r} of the XLSX expands to {biggest.file_size / 1e6:.0f} MB, over the "
            f"{MAX_XLSX_PART_BYTES / 1e6:.0f} MB limit"
        )
    expanded = sum(i.file_size for i in infos)
    if expanded > MAX_XLSX_EXPANDED_BYTES:
        raise QuoteError(
            f"{label}: the XLSX expands to {expanded / 1e6:.0f} MB, over the "
            f"{MAX_XLSX_EXPANDED_BYTES / 1e6:.0f} MB limit"
        )


def _read_workbook(wb: _Workbook) -> tuple[Sheets, list[str]]:
    root_rels = wb.rels("")
    book_part = next((t for typ, t in root_rels.values() if typ.endswith("/officeDocument")), "xl/workbook.xml")
    book = wb.small(book_part)
    if book is None:
        if "content.xml" in wb.names:
            raise QuoteError(f"{wb.label}: an OpenDocument (.ods) file is not supported; save it as .xlsx or CSV")
        if any(n.endswith(".bin") for n in wb.names):
            raise QuoteError(f"{wb.label}: a binary workbook (.xlsb) is not supported; save it as .xlsx or CSV")
        raise QuoteError(f"{wb.label}: not a readable XLSX file (no workbook part)")
    rels = wb.rels(book_part)
    strings_part = next((t for typ, t in rels.values() if typ.endswith("/sharedStrings")), None)
    strings = _shared_strings(wb, strings_part) if strings_part in wb.names else []
    sheets: Sheets = []
    notes: list[str] = []
    budget = [MAX_CELLS]
    for elem in book.iter():
        if _local(elem.tag) != "sheet":
            continue
        title = (elem.get("name") or "")[:MAX_CELL_CHARS]
        kind, part = rels.get(_attr(elem, "id") or "", ("", ""))
        if not kind.endswith("/worksheet") or part not in wb.names:
            continue  # chart sheets, dialog sheets, dangling references
        if elem.get("state") in ("hidden", "veryHidden"):
            notes.append(f"sheet {title!r} is hidden and was not read")
            continue
        if len(sheets) >= MAX_SHEETS:
            notes.append(f"only the first {MAX_SHEETS} sheets were read")
            break
        sheets.append((title, _sheet_rows(wb, part, title, strings, budget)))
    if not sheets:
        raise QuoteError(f"{wb.label}: the XLSX has no worksheet")
    return sheets, notes


def _shared_strings(wb: _Workbook, part: str | None) -> list[str]:
    """The shared-string table: rich-text runs joined, phonetic runs left out."""
    out: list[str] = []
    if part is None:
        return out
    if _count_tags(wb, part, b"si") > MAX_CELLS:
        raise QuoteError(f"{wb.label}: more than {MAX_CELLS:,} shared strings; refused")
    parent: ET.Element | None = None
    for event, elem in ET.iterparse(wb.open(part), events=("start", "end")):
        name = _local(elem.tag)
        if event == "start":
            if name == "sst":
                parent = elem
            continue
        if name == "si":
            out.append(_inline_text(elem))
            if len(out) > MAX_CELLS:
                raise QuoteError(f"{wb.label}: more than {MAX_CELLS:,} shared strings; refused")
            if parent is not None:
                parent.clear()
    return out


def _is(tag: str, name: str) -> bool:
    """True when an element tag is ``name`` in any namespace (``{ns}name`` or ``name``)."""
    return tag == name or (tag.endswith(name) and tag[-len(name) - 1] == "}")


def _inline_text(elem: ET.Element) -> str:
    """Text of an ``si`` / ``is`` element: its ``t`` and rich-text runs' ``t``, without phonetic runs."""
    parts: list[str] = []
    for child in elem:
        if _is(child.tag, "t"):
            parts.append(child.text or "")
        elif _is(child.tag, "r"):
            parts.extend(t.text or "" for t in child if _is(t.tag, "t"))
    text = "".join(parts)[:_MAX_RAW_CELL_CHARS]
    return _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text) if "_x" in text else text


def _column_of(letters: str) -> int:
    """``AB`` → 27 (0-based column index); -1 without letters or past a spreadsheet's 16,384 columns."""
    col = 0
    for ch in letters.upper():
        if not "A" <= ch <= "Z" or col > 20_000:
            return -1 if col == 0 else col - 1
        col = col * 26 + ord(ch) - 64
    return col - 1


def _column(ref: str) -> int:
    """``AB12`` → 27 (0-based column index); -1 when ``ref`` has no column letters."""
    return _column_of(ref.rstrip("0123456789")[:8])


def _cell_value(elem: ET.Element, kind: str | None, strings: list[str]) -> Cell:
    v: str | None = None
    for child in elem:
        tag = child.tag
        if kind == "inlineStr":
            if _is(tag, "is"):
                return _inline_text(child)
        elif _is(tag, "v"):
            v = child.text
            break
    if v is None:
        return ""
    if kind is None or kind == "n":
        try:
            return float(v)
        except ValueError:
            return v[:_MAX_RAW_CELL_CHARS]
    if kind == "s":
        try:
            return strings[int(v)]
        except (ValueError, IndexError):
            return ""
    if kind in ("str", "d"):
        return v[:_MAX_RAW_CELL_CHARS]
    if kind == "b":
        return "TRUE" if v.strip() == "1" else "FALSE"
    return ""  # an error value (#N/A) or an unknown type


def _count_tags(wb: _Workbook, part: str, tag: bytes) -> int:
    """Start tags ``<tag …>`` in a part, counted on the raw stream (fast: no XML events)."""
    stream, count, tail = wb.open(part), 0, b""
    while chunk := stream.read(1 << 20):
        window = tail + chunk
        tail = window[-40:]
        count += _tags(window, tag) - _tags(tail, tag)  # the tail is counted again with the next chunk
    return count + _tags(tail, tag)


def _tags(data: bytes, tag: bytes) -> int:
    """Count of ``<tag …>`` start tags in ``data``, with or without a namespace prefix."""
    count = sum(data.count(b"<" + tag + end) for end in (b" ", b">", b"/"))
    if b":" + tag in data:
        count += len(re.findall(rb"<[A-Za-z_][\w.-]*:" + tag + rb"[\s/>]", data))
    return count


def _sheet_rows(wb: _Workbook, part: str, title: str, strings: list[str], budget: list[int]) -> list[list[Cell]]:
    """Rows of one worksheet, row i being spreadsheet row i + 1; refuses a filled row past MAX_ROWS_PER_SHEET.

    Cells are counted on the raw stream first (the budget of the whole workbook), then each row is read when its
    element ends and cleared; a sheet of more than :data:`_MAX_ROW_ELEMENTS` row elements (filled or not) is
    refused, so the cleared rows kept by the parser stay small.
    """
    budget[0] -= _count_tags(wb, part, b"c")
    if budget[0] < 0:
        raise QuoteError(f"{wb.label}: more than {MAX_CELLS:,} cells in the workbook; refused")
    rows: list[list[Cell]] = []
    row_no = 0
    seen = 0
    for elem in _row_elements(wb, part):
        seen += 1
        if seen > _MAX_ROW_ELEMENTS:
            raise QuoteError(f"{wb.label}: sheet {title!r} has more than {_MAX_ROW_ELEMENTS:,} row records; refused")
        r = elem.get("r")
        row_no = int(r) if r and r.isdigit() else row_no + 1
        cells = _row_cells(elem, strings)
        elem.clear()
        if not cells:
            continue
        if row_no > MAX_ROWS_PER_SHEET:
            raise QuoteError(
                f"{wb.label}: sheet {title!r} has more than {MAX_ROWS_PER_SHEET:,} rows (row {row_no:,} is "
                "filled); split the quote into smaller files"
            )
        while len(rows) < row_no:
            rows.append([])
        width = max(cells) + 1
        old = rows[row_no - 1]  # rows out of order or repeated: merge
        rows[row_no - 1] = [cells.get(i, old[i] if i < len(old) else "") for i in range(max(width, len(old)))]
    return rows


def _row_elements(wb: _Workbook, part: str) -> Iterator[ET.Element]:
    """The ``row`` elements of a worksheet part: parsed whole when the part is small (fast), else streamed."""
    if wb.names[part].file_size <= _WHOLE_PART_BYTES:  # zipfile never returns more than the declared size
        root = ET.parse(wb.open(part)).getroot()
        for data in root:
            if _local(data.tag) == "sheetData":
                yield from (row for row in data if _local(row.tag) == "row")
        return
    for _event, elem in ET.iterparse(wb.open(part), events=("end",)):
        tag = elem.tag
        if tag.endswith("row") and _local(tag) == "row":
            yield elem


def _row_cells(row: ET.Element, strings: list[str]) -> dict[int, Cell]:
    """Column index → value of the filled cells of a ``row`` element."""
    cells: dict[int, Cell] = {}
    col = -1
    for c in row:
        tag = c.tag
        if not (tag == "c" or tag.endswith("}c")):
            continue
        ref = c.get("r")
        col = _column(ref) if ref else col + 1
        if 0 <= col < MAX_COLUMNS:
            value = _cell_value(c, c.get("t"), strings)
            if value != "":
                cells[col] = value
    return cells
