"""The manual: ``mkdocs build --strict`` from the checkout, its key pages there and current, the tree left clean; and a
README that stays a README.

The site is built once into a temporary folder (about 7 s of CPU: the generated pages evaluate every preset and test
the article's recommendations). Strict mode turns every warning into a failure: a broken link or anchor, a docstring
whose Parameters name an argument the function has not got, a page left out of the navigation.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import neoplan
from neoplan import metrics

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs"))
import gen_pages  # noqa: E402  (docs/gen_pages.py: what the build generates)

GUIDE = {
    "overview.py": "overview",
    "compute_node.py": "compute-node",
    "network.py": "network",
    "storage_site.py": "storage-site",
    "operations.py": "operations",
    "search.py": "search",
    "financing.py": "financing",
    "pricing.py": "pricing",
    "results.py": "results",
    "stress_test.py": "stress-test",
    "scenarios.py": "scenarios",
    "compare.py": "compare",
    "quote_review.py": "quote-review",
    "export.py": "export",
}
"""Each page of the app (``pages/``) → its page of the user guide (``docs/guide/``)."""
KEY_PAGES = (
    "index.html",
    "getting-started/index.html",
    "scenario-files/index.html",
    "cli/index.html",
    "conventions/index.html",
    "price-book/index.html",
    "calibration/index.html",
    "recommendations/index.html",
    "deployment/index.html",
    "architecture/index.html",
    "reference/scenario/index.html",
    "reference/presets/index.html",
    "reference/metrics/index.html",
    "reference/data/index.html",
    "api/model/index.html",
    "api/store/index.html",
)
INTERNAL = re.compile(r"(?i:\bissues? #?\d+)|\b(?:BRIEF|ARCHITECTURE|QUOTES)\.md\b|(?i:\bwave \d\b)")
"""What a reader cannot open: issue numbers, internal design documents, rounds of work."""
README_MAX_LINES = 200


def _git_status() -> str | None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        return None
    done = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT, capture_output=True, text=True
    )
    return done.stdout if done.returncode == 0 else None


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built from the checkout with ``mkdocs build --strict`` into a temporary folder."""
    out = tmp_path_factory.mktemp("site")
    before = _git_status()
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    assert _git_status() == before, "building the docs changed the working tree"
    return out


def _html(site: Path, page: str) -> str:
    return (site / page).read_text(encoding="utf-8")


def test_key_pages_exist(site: Path) -> None:
    missing = [p for p in KEY_PAGES if not (site / p).is_file()]
    assert not missing


def test_every_page_of_the_app_has_its_guide_page(site: Path) -> None:
    assert {p.name for p in (ROOT / "pages").glob("*.py")} == set(GUIDE), "a page of the app without a guide page"
    for page, slug in GUIDE.items():
        html = _html(site, f"guide/{slug}/index.html")
        shot = ROOT / "docs" / "screenshots" / f"{page.removesuffix('.py')}.png"
        assert shot.name in html and shot.is_file(), f"guide/{slug}: no screenshot of {page}"


def test_the_scenario_format_lists_every_field(site: Path) -> None:
    html = _html(site, "reference/scenario/index.html")
    for path, _ in gen_pages.schema_rows(neoplan.Scenario):
        shown = "".join(gen_pages.code(path))
        assert shown in html, path


def test_the_data_pages_show_every_table_and_its_sources(site: Path) -> None:
    for path in gen_pages.data_files():
        group = gen_pages.group_of(path)
        html = _html(site, f"reference/data/{group}/index.html")
        rel = path.relative_to(ROOT).as_posix()
        assert rel in html, rel
    assumptions = _html(site, "reference/data/assumptions/index.html")
    assert "Uptime Institute" in assumptions  # a source column, shown whole (facility.pue's)


def test_presets_and_metrics_are_the_models(site: Path) -> None:
    presets = _html(site, "reference/presets/index.html")
    for name in neoplan.preset_names():
        assert gen_pages.code(name) in presets, name
    optimized = neoplan.evaluate(neoplan.load_scenario("optimized")).to_dict()
    assert metrics.text("capex_usd.total", optimized["capex_usd"]["total"]) in presets
    shown = _html(site, "reference/metrics/index.html")
    for key in metrics.METRICS:
        assert f"<code>{key}</code>" in shown, key


def test_generated_parts_are_filled_and_nothing_internal_is_cited(site: Path) -> None:
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "<!-- neoplan:" not in text, f"{page.relative_to(site)}: a marker left unfilled"
        found = INTERNAL.search(re.sub(r"<[^>]+>", " ", text))
        assert found is None, f"{page.relative_to(site)} cites {found.group(0)!r}"
    calibration = _html(site, "calibration/index.html")
    assert "$256,400" in calibration and "16 / 8" in calibration
    architecture = _html(site, "architecture/index.html")
    assert "import cycles: none" in architecture


def test_the_api_pages_render_the_numpydoc_sections(site: Path) -> None:
    html = _html(site, "api/model/index.html")
    for name in ("neoplan.evaluate", "neoplan.load_scenario", "neoplan.Result", "bom_table", "returns_vs_price"):
        assert name in html, name
    assert "Parameters:" in html and "Returns:" in html and "Examples:" in html
    text = re.sub(r"<[^>]+>", "", html)
    assert "&gt;&gt;&gt; result.node_capex_usd" in text and "256400.0" in text  # the example the doctests run


# --- the generated content, piece by piece ---------------------------------------------------------------------


def test_a_fields_unit_comes_from_its_schema_then_its_name() -> None:
    from neoplan.inputs.scenario import field_of

    assert gen_pages.unit_of("hot_spare_share", field_of("cluster.hot_spare_share")) == "fraction"
    assert gen_pages.unit_of("gpus", field_of("cluster.gpus")) == "count"
    assert gen_pages.unit_of("usable_pb", field_of("storage.usable_pb")) == "PB"
    assert gen_pages.range_text(field_of("cluster.gpus")) == "8 … 1,000,000"
    assert gen_pages.range_text(field_of("pricing.serving_load_factor")) == "> 0 … 1"
    assert gen_pages.type_text(field_of("fabric.nics_per_node").annotation) == "one of <code>4</code>, <code>8</code>"
    assert gen_pages.default_text("facility.pue", field_of("facility.pue")).endswith("(`data/assumptions.csv`)")


def test_a_cell_shows_text_as_written() -> None:
    assert gen_pages.cell("a|b *c* [d] <e>") == r"a\|b \*c\* \[d\] &lt;e&gt;"
    assert gen_pages.code("[0-9]+_x") == "<code>&#91;0-9&#93;+&#95;x</code>"
    assert gen_pages.cell("two\nlines") == "two<br>lines"


def test_data_rows_are_shown_without_pointers_to_internal_notes() -> None:
    """A source names the public document; a pointer to the project's own notes, which a reader cannot open, goes."""
    assert gen_pages.public("Playbook (2024-10-03, BRIEF.md section 3): 4 HGX") == "Playbook (2024-10-03): 4 HGX"
    assert gen_pages.public("Playbook 2024-10-03 (BRIEF.md §2); data/prices/") == "Playbook 2024-10-03; data/prices/"
    assert gen_pages.public("Market check (issue 25): whole servers") == "Market check: whole servers"
    assert gen_pages.public("ordering guides (935-24287); QUOTES.md") == "ordering guides (935-24287)"
    assert gen_pages.public("Fitted (wave 3 re-fit) to the ratios") == "Fitted (re-fit) to the ratios"
    assert gen_pages.public("a $26.8k GPU (quoted)") == "a $26.8k GPU (quoted)"


def test_an_unknown_marker_is_an_error_naming_the_page() -> None:
    with pytest.raises(KeyError, match=re.escape("guide/x.md: unknown marker <!-- neoplan:nothing -->")):
        gen_pages.fill("text <!-- neoplan:nothing --> text", "guide/x.md")
    assert gen_pages.fill("no markers") == "no markers"


def test_every_data_file_has_a_page() -> None:
    grouped = {gen_pages.group_of(p) for p in gen_pages.data_files()}
    assert grouped <= set(gen_pages.DATA_GROUPS)
    assert gen_pages.group_of(ROOT / "data" / "prices" / "2026-11" / "network.csv") == "prices"
    assert gen_pages.group_of(ROOT / "data" / "a_new_table.csv") == "other"


# --- the README ------------------------------------------------------------------------------------------------------


def test_the_readme_is_a_readme() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES, "README over its limit: move the detail to docs/"
    assert INTERNAL.search(text) is None, INTERNAL.search(text)
    start = text.index("## Quick start")
    quick = text[start : text.index("\n## ", start + 1)]
    assert len(re.findall(r"^```bash\n.+\n```$", quick, re.M)) == 2, "the quick start is two commands"
    for image in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text):
        assert (ROOT / image).is_file(), image
    for link in re.findall(r"\]\((docs/[^)#]+)", text):
        assert (ROOT / link).exists(), link
