"""What a quote's text says around its tables: the servers or racks bought, a per-server price basis, the currency.

Title blocks, notes and section titles are read for a stated server count ("Configuration quantity: 16 nodes",
"64 HGX H100 servers", "GPU服务器 16台"), a rack count ("8 racks", "机柜数：4"), a per-server basis ("all prices
per node") and the currency ("All prices in EUR", "币种：人民币（CNY）", "金額単位：円"). A ¥ sign is yuan or yen:
the document's own words decide (``yuan`` / ``yen`` in ``data/quote_vocabulary.csv``: 人民币, 元, RMB, 增值税 … vs
円, 税込, 消費税, kana); when nothing decides, the quote is refused in one line.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .cells import QuoteError, currency_of
from .currency import money_currencies, stated_rates
from .vocab import fold, pattern

AMBIGUOUS_YEN = "¥"
"""What :func:`neoplan.quote.cells.currency_of` returns for a bare ¥: yuan or yen, decided by the document."""

_SERVERS_STRONG = (
    re.compile(r"\b(?:configuration|order|system|server|node|cluster|build)\s+(?:quantity|qty|count|size)\s*[:=]?\s*"
               r"(\d[\d,.]*)"),
    re.compile(r"\b(?:number|no\.?|#|qty|quantity|count)\s+of\s+(?:gpu\s+|hgx\s+|compute\s+)?(?:servers|nodes|systems)"
               r"\s*[:=]?\s*(\d[\d,.]*)"),
    re.compile(r"(?:^|\s)(?:gpu\s+|compute\s+)?(?:nodes|servers|systems|node\s+count|server\s+count)\s*[:=]\s*"
               r"(\d[\d,.]*)"),
    re.compile(r"(?:节点数|节点数量|服务器数量|服务器台数|ノード数|サーバー?台数|노드\s*수|서버\s*수)\s*[:：=]?\s*(\d[\d,]*)"),
    re.compile(r"(?:gpu\s*)?(?:服务器|伺服器|サーバー?|서버)\s*[x×]?\s*(\d[\d,]*)\s*(?:台|ノード|대|节点)"),
)  # fmt: skip
_SERVERS_WEAK = re.compile(
    r"(?<![\w.,])(\d[\d,]*)\s*(?:x\s*|×\s*)?(?:[a-z0-9+-]+\s+){0,3}?(?:servers|nodes|systems)\b(?!\s*(?:of|per))"
)
_RACKS = (
    re.compile(r"\b(?:number|no\.?|#|qty|quantity|count)\s+of\s+(?:compute\s+|gpu\s+|nvl72\s+)?racks\s*[:=]?\s*"
               r"(\d[\d,]*)"),
    re.compile(r"(?<![\w.,])(\d[\d,]*)\s*(?:x\s*|×\s*)?(?:[a-z0-9+-]+\s+){0,3}?racks?\b(?!\s*(?:of|per|unit))"),
    re.compile(r"(?:机柜数|机柜数量|ラック数)\s*[:：=]?\s*(\d[\d,]*)"),
)  # fmt: skip
_RACK_NOT_COUNT = re.compile(r"\b\d+\s*u\b|\bper\s+rack|\brack\s+(?:unit|mount|kit|rail|pdu)|\d+\s*kw")
_GPU_NODES = re.compile(r"gpu|hgx|dgx|h100|h200|h20|b200|b300|gb200|gb300|compute|xe9680|sxm|nvl")
_OTHER_NODES = re.compile(r"management|mgmt|storage|login|head|control|service|cpu|infra|admin|spare")
_PER_SERVER = (
    re.compile(r"\b(?:prices?|pricing|priced|quotation|quote|quoted|budget|costs?)\b[^.;]{0,30}?\b"
               r"(?:per|for\s+one|for\s+a\s+single|for\s+1|for\s+each)\s+(?:gpu\s+|hgx\s+|compute\s+)?"
               r"(?:node|server|system)\b"),
    re.compile(r"\bquantities\s+(?:below\s+|shown\s+|listed\s+|in\s+this\s+quote\s+)?(?:are\s+)?"
               r"(?:per|for\s+one|for\s+a\s+single|for\s+each)\s+(?:gpu\s+)?(?:node|server|system)\b"),
    re.compile(r"^(?:total|sum|subtotal)\s+(?:price\s+)?per\s+(?:gpu\s+)?(?:node|server|system)\b"),
    re.compile(r"^(?:pricing\s+|prices\s+)?per[\s-](?:gpu\s+)?(?:node|server|system)$"),
    re.compile(r"(?:单台|每台|単体|1台あたり|1台当たり|대당)\s*(?:报价|价格|価格|見積|가격)"),
)  # fmt: skip
_CURRENCY_STATEMENT = re.compile(
    r"currency|w[äa]hrung|devise|valuta|moneda|\bprices?\b|pricing|prijzen|preise|\bprix\b|amounts?\b|bedrag|"
    r"币种|币别|幣別|货币|貨幣|通貨|単位|单位|円|人民币|人民幣|통화|원화|단위",
    re.IGNORECASE,
)


def count_in(text: str) -> int | None:
    """A count written in a sentence (``1,024``, ``16``); None unless a whole number 1–100,000."""
    text = text.rstrip(".,")
    if not re.fullmatch(r"\d{1,3}(,\d{3})+|\d+(\.0+)?", text):
        return None
    n = float(text.replace(",", ""))
    return int(n) if n.is_integer() and 1 <= n <= 100_000 else None


def servers_stated(statements: Sequence[str], nodes: Counter[int], ratios: Counter[float]) -> int | None:
    """The server count the quote states: a sentence, else a Nodes column, else Total Qty ÷ Qty/Server."""
    weak: list[tuple[bool, int]] = []  # (names GPU servers, count) of sentences such as "64 HGX H100 servers"
    for text in statements:
        low = fold(text)
        for p in _SERVERS_STRONG:
            for m in p.finditer(low):
                n = count_in(m.group(1))
                if n:
                    return n
        for m in _SERVERS_WEAK.finditer(low):
            n = count_in(m.group(1))
            if n and not _OTHER_NODES.search(m.group(0)):
                weak.append((bool(_GPU_NODES.search(m.group(0))), n))
    if weak:
        gpu = [n for named, n in weak if named]
        return gpu[0] if gpu else max(n for _, n in weak)
    if nodes:
        return nodes.most_common(1)[0][0]
    if ratios:
        ratio, hits = ratios.most_common(1)[0]
        if hits >= 0.6 * sum(ratios.values()) and ratio.is_integer() and 1 <= ratio <= 100_000:
            return int(ratio)
    return None


def racks_stated(statements: Sequence[str], racks: Counter[int]) -> int | None:
    """The rack count the quote states ("8 racks", "Number of racks: 4", a No. of Racks column), else None."""
    if racks:
        return racks.most_common(1)[0][0]
    for text in statements:
        low = fold(text)
        for p in _RACKS:
            for m in p.finditer(low):
                n = count_in(m.group(1))
                if n and not _RACK_NOT_COUNT.search(m.group(0)) and n <= 10_000:
                    return n
    return None


def says_per_server(statements: Iterable[str]) -> bool:
    """True when the text says the prices are for one server ("all prices per node")."""
    return any(p.search(fold(s)) for s in statements for p in _PER_SERVER)


def _evidence(texts: Iterable[str], name: str) -> int:
    found = pattern(name)
    return sum(1 for t in texts if found.search(t))


def resolve_yen(label: str, statements: Sequence[str], texts: Sequence[str]) -> str:
    """CNY or JPY for a quote whose prices are marked ¥, by its own words; QuoteError when nothing decides."""
    said = {c for c in (currency_of(s) for s in statements) if c in ("CNY", "JPY")}
    if len(said) == 1:
        return said.pop()
    yuan, yen = _evidence(texts, "yuan"), _evidence(texts, "yen")
    if yuan > 2 * yen:
        return "CNY"
    if yen > 2 * yuan:
        return "JPY"
    raise QuoteError(
        f"{label}: prices are marked ¥, which is yuan (CNY) or yen (JPY), and the quote does not say which; "
        "state the currency (e.g. a line 'Currency: CNY') or give it (--currency CNY)"
    )


def _yen_as(code: str, yen: str) -> str:
    return yen if code == AMBIGUOUS_YEN else code


@dataclass(frozen=True)
class CurrencyReading:
    """The quote's currency, where the document says it, and the currencies its price cells use."""

    code: str
    evidence: str
    """Where the currency was read (the price cells, headers, totals or a sentence); "" when nothing names it."""
    currencies: tuple[str, ...] = ()
    """The currencies of the price cells when they use several (hardware in USD, services in SAR), else ()."""
    seen: tuple[str, ...] = ()
    """Every currency the document writes (price cells, headers, totals, text), whatever was taken."""


def _said(statements: Sequence[str]) -> list[tuple[str, str]]:
    """(code, sentence) of each currency the text names: a currency statement ("All prices in EUR", "(단위: 원)")
    or an amount with its sign or code ("견적금액: ₩ 4,367,360,800")."""
    out: list[tuple[str, str]] = []
    for text in statements:
        if stated_rates(text):
            continue  # "1 USD = 3.75 SAR" names two currencies and says neither is the prices'
        code = currency_of(text) if _CURRENCY_STATEMENT.search(text) else None
        codes = [code] if code else money_currencies(text)
        out += [(c, text) for c in codes[:1]]
    return out


def _counts(counter: Counter[str]) -> str:
    return ", ".join(f"{c} ×{n}" for c, n in counter.most_common(4))


def currency(
    label: str,
    cells: Counter[str],
    headers: Counter[str],
    statements: Sequence[str],
    texts: Sequence[str],
    warnings: list[str],
    totals: Counter[str] | None = None,
) -> CurrencyReading:
    """The quote's ISO currency: from its price cells (the most used when lines use several), else its price headers,
    else the amounts of its totals, else a sentence of its text, else USD (nothing names it: ``evidence`` "").

    QuoteError when the price headers name several currencies (which line is in which cannot be told) or a ¥ is
    yuan or yen and nothing says which.
    """
    said = _said(statements)
    totals = totals if totals is not None else Counter()
    yen = AMBIGUOUS_YEN
    if any(AMBIGUOUS_YEN in source for source in (cells, headers, totals)) or any(c == AMBIGUOUS_YEN for c, _ in said):
        yen = resolve_yen(label, statements, texts)
    cells, headers, totals = (Counter({_yen_as(c, yen): n for c, n in src.items()}) for src in (cells, headers, totals))
    said = [(_yen_as(c, yen), text) for c, text in said]
    seen = tuple(sorted({*cells, *headers, *totals, *(c for c, _ in said)}))
    if len(headers) > 1:
        names = " and ".join(sorted(c for c in headers if c))
        raise QuoteError(f"{label}: prices are in several currencies ({names}); ask for the quote in one currency")
    if cells:
        found, evidence = cells.most_common(1)[0][0], f"the price cells ({_counts(cells)})"
    elif headers:
        found, evidence = next(iter(headers)), "the price column headers"
    elif totals:
        found, evidence = totals.most_common(1)[0][0], f"the totals' amounts ({_counts(totals)})"
    elif said:
        return CurrencyReading(said[0][0], f"the text {said[0][1][:60]!r}", seen=seen)
    else:
        return CurrencyReading("USD", "", seen=seen)
    if said and said[0][0] != found and said[0][0] not in cells:
        warnings.append(f"{label}: the quote says its prices are in {said[0][0]}, but its prices are marked {found}")
    return CurrencyReading(found, evidence, tuple(sorted(cells)) if len(cells) > 1 else (), seen)


# --- the quote's date -------------------------------------------------------------------------------------------------

_DATE_LABEL = re.compile(
    r"(?:quot(?:e|ation)\s+date|date\s+of\s+(?:quote|quotation|issue)|issue\s+date|issued(?:\s+on)?|dated|"
    r"prepared\s+on|created(?:\s+on)?|\bdate\b|datum|fecha|\bdata\b|日期|报价日期|日付|発行日|見積日|見積日付|작성일|"
    r"견적일(?:자)?|일자)\s*[:：]?\s*",
    re.IGNORECASE,
)
_NOT_ISSUE = re.compile(
    r"valid|expir|until|through|delivery|lead\s*time|due|gültig|bis\b|有效|有効|유효|납기|交货|納期|ship", re.IGNORECASE
)
_MONTHS = {m: i for i, names in enumerate(
    ("jan january janvier januar enero", "feb february fevrier februar febrero", "mar march mars marz marzo",
     "apr april avril abril", "may mai mayo", "jun june juin juni junio", "jul july juillet juli julio",
     "aug august aout agosto", "sep sept september septembre septiembre", "oct october octobre oktober octubre",
     "nov november novembre noviembre", "dec december decembre dezember diciembre"), start=1)
    for m in names.split()}  # fmt: skip
_ISO_DATE = re.compile(r"\b(20\d{2})\s*[-/.年]\s*(\d{1,2})(?:\s*[-/.月]\s*(\d{1,2}))?")
_DMY = re.compile(r"\b(\d{1,2})[./-](\d{1,2})[./-](20\d{2})\b")
_WORDS_DATE = re.compile(r"\b(\d{1,2})?\.?\s*([a-z]{3,9})\.?\s*(\d{1,2})?,?\s*(20\d{2})\b")
_EXCEL_SERIAL = re.compile(r"^\s*(4[0-9]\d{3}|5\d{4})(?:\.0+)?\s*$")
"""An Excel date serial (2009-06 … 2173): a date cell read as its number."""


def _iso(year: int, month: int, day: int | None) -> str | None:
    if not (2000 <= year <= 2100 and 1 <= month <= 12) or (day is not None and not 1 <= day <= 31):
        return None
    return f"{year:04d}-{month:02d}" + (f"-{day:02d}" if day else "")


def date_in(text: str) -> str | None:
    """A date a text writes (``2024-11-04``, ``04.11.2024``, ``11/04/2024``, ``4 November 2024``, ``Nov 4, 2024``,
    ``2024年11月4日``, ``2024. 11. 4.``, an Excel serial) as ``YYYY-MM-DD`` (``YYYY-MM`` without a day); None.
    ``dd/mm`` or ``mm/dd`` is read by whichever part exceeds 12, else as day first."""
    m = _ISO_DATE.search(text)
    if m:
        return _iso(int(m.group(1)), int(m.group(2)), int(m.group(3)) if m.group(3) else None)
    m = _DMY.search(text)
    if m:
        a, b, year = int(m.group(1)), int(m.group(2)), int(m.group(3))
        day, month = (b, a) if b > 12 else (a, b)
        return _iso(year, month, day)
    for w in _WORDS_DATE.finditer(fold(text)):
        named = _MONTHS.get(w.group(2))
        if named:
            day_text = w.group(1) or w.group(3)
            return _iso(int(w.group(4)), named, int(day_text) if day_text else None)
    m = _EXCEL_SERIAL.match(text)
    if m:
        day0 = dt.date(1899, 12, 30) + dt.timedelta(days=int(m.group(1)))
        return day0.isoformat()
    return None


def quote_date(statements: Sequence[str]) -> tuple[str | None, str]:
    """(date, the text it was read from) of the quote: the first labelled date that is no validity or delivery date
    ("Date: 2024-11-04", "Quote date: 04.11.2024", "견적일자: 2026. 3. 2."); (None, "") when it states none."""
    for text in statements[:60]:
        m = _DATE_LABEL.search(text)
        if m is None or _NOT_ISSUE.search(text[max(0, m.start() - 20) : m.end()]):
            continue
        found = date_in(text[m.end() : m.end() + 40])
        if found:
            return found, text[:80]
    return None, ""
