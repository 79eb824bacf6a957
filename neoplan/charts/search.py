"""Figures of a design search (the Search page): capex against project IRR, and the frontier of the best designs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .spec import Spec, chart, color, data, n, q, tip

if TYPE_CHECKING:
    from ..analysis.search import SearchResult

PLATFORM_COLORS = {
    "h100-sxm": "#b0b7c3",
    "h200-sxm": "#8ab17d",
    "b200-sxm": "#2a9d8f",
    "b300-sxm": "#264653",
    "gb200-nvl72": "#f4a261",
    "gb300-nvl72": "#e76f51",
}


def designs(found: SearchResult) -> Any:
    """One row per design built (debt shares folded: capex and project IRR do not depend on them): its best rank,
    whether any of its financing cases is feasible, and its figures."""
    t = found.table[found.table["capex_usd"].notna()]
    first = t.sort_values("rank").groupby("design", sort=False).first()
    return first.assign(feasible=t.groupby("design")["feasible"].any()).reset_index()


def frontier(points: Any) -> Any:
    """The designs no other design beats on both capex (lower) and project IRR (higher), by capex."""
    ordered = points.dropna(subset=["project_irr"]).sort_values(["capex_usd", "project_irr"], ascending=[True, False])
    best, keep = float("-inf"), []
    for index, irr in zip(ordered.index, ordered["project_irr"], strict=True):
        if irr > best:
            best = irr
            keep.append(index)
    return ordered.loc[keep]


def capex_irr_figure(found: SearchResult) -> Spec:
    """Project IRR against capex of every design built, by platform; feasible designs filled, the others hollow;
    the frontier of feasible designs as a dotted step line [USD, %] (Vega-Lite spec)."""
    points = designs(found)
    series: list[str] = []
    colours: list[str] = []
    values = []
    for platform, group in points.groupby("gpu_model", sort=False):
        for feasible in (True, False):
            part = group[group["feasible"] == feasible]
            if part.empty:
                continue
            name = f"{platform}" + ("" if feasible else " (infeasible)")
            series.append(name)
            colours.append(PLATFORM_COLORS.get(str(platform), "#888888"))
            values += [
                {
                    "series": name,
                    "feasible": bool(feasible),
                    "platform": str(platform),
                    "topology": str(p.topology),
                    "oversubscription": f"{p.oversubscription:g}:1",
                    "nics": p.nics_per_node,
                    "storage": str(p.storage),
                    "rank": p.rank,
                    "capex": p.capex_usd,
                    "irr": p.project_irr,
                }
                for p in part.itertuples()
            ]
    x = q("capex", "Capex [USD]", "$,.3~s", scale={"zero": False})
    y = q("irr", "Project IRR [%]", ".0%", scale={"zero": False})
    layers: list[Spec] = [
        {
            "data": data(values),
            "mark": {"type": "point", "shape": "circle", "size": 81, "strokeWidth": 1.5, "opacity": 1},
            "encoding": {
                "x": x,
                "y": y,
                "stroke": color("series", series, colours),
                # hollow markers for the infeasible designs: the same legend as the stroke, filled or not
                "fill": color(
                    "series",
                    series,
                    [c if "(infeasible)" not in s else "transparent" for s, c in zip(series, colours, strict=True)],
                ),
                "tooltip": [
                    tip("platform", "platform", kind="nominal"),
                    tip("topology", "topology", kind="nominal"),
                    tip("oversubscription", "oversubscription", kind="nominal"),
                    tip("nics", "NICs per node", ",.0f"),
                    tip("storage", "storage", kind="nominal"),
                    tip("capex", "capex", "$,.0f"),
                    tip("irr", "project IRR", ".1%"),
                    tip("rank", "best rank", ",.0f"),
                ],
            },
        }
    ]
    edge = frontier(points[points["feasible"]])
    if not edge.empty:
        layers.append(
            {
                "data": data(
                    [
                        {"capex": c, "irr": r, "line": "frontier"}
                        for c, r in zip(edge["capex_usd"], edge["project_irr"], strict=True)
                    ]
                ),
                "mark": {"type": "line", "color": "#1d3557", "interpolate": "step-after", "strokeWidth": 1.5},
                "encoding": {
                    "x": {"field": "capex", "type": "quantitative"},
                    "y": {"field": "irr", "type": "quantitative"},
                    "strokeDash": n(
                        "line",
                        scale={"domain": ["frontier"], "range": [[2, 3]]},
                        legend={"symbolType": "stroke", "symbolSize": 500, "symbolStrokeWidth": 2},
                    ),
                },
            }
        )
    return chart(*layers, title="Capex against project IRR: every design, and the frontier", height=420)
