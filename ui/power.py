"""Plan from power: the size-by toggle and the IT envelope input, bound to ``cluster.size_by`` and
``facility.it_power_mw`` (the model sizes the design; see :mod:`neoplan.design.sizing`)."""

from __future__ import annotations

import math
from typing import Any

import streamlit as st

from neoplan.inputs.hardware import Cluster
from neoplan.inputs.platforms import follows_rule
from neoplan.model import Result

from .format import plain
from .labels import humanize
from .state import WIDGET_PREFIX, field_errors, get_scenario, update_field, update_fields
from .widgets import field_input

SIZE_BY = "cluster.size_by"
ENVELOPE = "facility.it_power_mw"
STORAGE = "storage.usable_pb"
TOGGLE_KEY = WIDGET_PREFIX + SIZE_BY
DEFAULT_MW = 10.0


def _envelope_from(result: Result | None) -> float:
    """A first envelope when the user switches to power: the current design's IT peak rounded up to 0.1 MW."""
    if result is None:
        return DEFAULT_MW
    return max(math.ceil(result.facility.it_peak_mw * 10) / 10, 0.1)


def _on_toggle(result: Result | None) -> None:
    by_power = bool(st.session_state[TOGGLE_KEY])
    sc = get_scenario()
    if by_power:
        if sc.facility.it_power_mw is None:
            update_field(ENVELOPE, _envelope_from(result))
        values: dict[str, object] = {SIZE_BY: "power"}
        if follows_rule(sc.model_dump(mode="json")):  # storage by the platform's rule follows the count found
            values[STORAGE] = None
        update_fields(values)
        return
    # back to a GPU count: keep the count the power plan found, so the plan does not jump
    gpus = result.gpus if result is not None and result.scenario.cluster.size_by == "power" else sc.cluster.gpus
    cluster = {**sc.cluster.model_dump(mode="json"), "size_by": "gpus", "gpus": gpus}
    if not update_field("cluster", cluster):
        field_errors()[SIZE_BY] = field_errors().pop("cluster", "")


def power_plan_input(result: Result | None, where: object = None) -> None:
    """The "plan from power" entry: a toggle (size by power) and the IT envelope [MW] (a typed number,
    :func:`ui.widgets.field_input`), with errors under them."""
    box = where or st
    sc = get_scenario()
    st.session_state[TOGGLE_KEY] = sc.cluster.size_by == "power"
    box.toggle(  # type: ignore[attr-defined]
        "Plan from power",
        key=TOGGLE_KEY,
        on_change=_on_toggle,
        args=(result,),
        help=Cluster.model_fields["size_by"].description,
    )
    field_input(
        ENVELOPE,
        "IT power available [MW]",
        fmt="%.2f",
        container=box,
        disabled=sc.cluster.size_by != "power",
        placeholder="e.g. 10",
    )
    error = field_errors().get(SIZE_BY)
    if error:
        box.error(plain(humanize(error)))  # type: ignore[attr-defined]


SIZED_KEY = "power.sized_gpus"


def gpus_input(label: str = "GPUs in the cluster") -> Any:
    """The GPU count: a field for a plan sized by GPUs; for one sized by power a place for the count found, filled by
    :func:`show_sized_gpus` once the plan is evaluated (returned; None for a count plan)."""
    if get_scenario().cluster.size_by != "power":
        field_input("cluster.gpus", label)
        return None
    return st.empty()


def show_sized_gpus(where: Any, result: Result | None, label: str = "GPUs in the cluster") -> None:
    """The count a power plan was sized to, in ``where`` (from :func:`gpus_input`), as a field that cannot be typed."""
    if where is None:
        return
    st.session_state[SIZED_KEY] = f"{result.gpus:,}" if result is not None else ""
    where.text_input(
        label,
        disabled=True,
        key=SIZED_KEY,
        help="Sized by power: the largest design whose peak IT load fits the IT power available (Overview, Plan "
        "from power). Switch that off to set the count yourself.",
    )
