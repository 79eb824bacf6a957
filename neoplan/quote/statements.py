"""What a quote's text says around its tables: the servers or racks bought, a per-server price basis, the currency.

Title blocks, notes and section titles are read for a stated server count ("Configuration quantity: 16 nodes",
"64 HGX H100 servers", "GPU服务器 16台"), a rack count ("8 racks", "机柜数：4"), a per-server basis ("all prices
per node") and the currency ("All prices in EUR", "币种：人民币（CNY）", "金額単位：円"). A ¥ sign is yuan or yen:
the document's own words decide (``yuan`` / ``yen`` in ``data/quote_vocabulary.csv``: 人民币, 元, RMB, 增值税 … vs
円, 税込, 消費税, kana); when nothing decides, the quote is refused in one line.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from .cells import QuoteError, currency_of
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
    r"币种|币别|幣別|货币|貨幣|通貨|単位|单位|円|人民币|人民幣|통화|원화",
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


def currency(
    label: str,
    cells: Counter[str],
    headers: Counter[str],
    statements: Sequence[str],
    texts: Sequence[str],
    warnings: list[str],
) -> str:
    """The quote's ISO currency: from its price cells, else its price headers, else a statement, else USD."""
    said = [c for c in (currency_of(s) for s in statements if _CURRENCY_STATEMENT.search(s)) if c]
    yen = AMBIGUOUS_YEN
    if AMBIGUOUS_YEN in cells or AMBIGUOUS_YEN in headers or AMBIGUOUS_YEN in said:
        yen = resolve_yen(label, statements, texts)
    cells = Counter({_yen_as(c, yen): n for c, n in cells.items()})
    headers = Counter({_yen_as(c, yen): n for c, n in headers.items()})
    said = [_yen_as(c, yen) for c in said]
    for source in (cells, headers):
        if len(source) > 1:
            names = " and ".join(sorted(c for c in source if c))
            raise QuoteError(f"{label}: prices are in several currencies ({names}); ask for the quote in one currency")
    found = next(iter(cells), None) or next(iter(headers), None)
    if found is None:
        return said[0] if said else "USD"
    if said and said[0] != found:
        warnings.append(f"{label}: the quote says its prices are in {said[0]}, but its prices are marked {found}")
    return found
