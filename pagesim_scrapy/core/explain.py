"""Why a page got its verdict: scores, thresholds and the structure behind them.

The site-aware score of a page against a label is a weighted Jaccard over parent -> child pairs
of node labels, weighted by how rare each pair is on the site (:mod:`pagesim_scrapy.core.site`).
An explanation therefore lists, for the label the page came nearest to, the pairs that weigh on
the site and that the page shares with the label's nearest template (what makes it that type),
the ones the template has and the page lacks, and the ones only the page has. Pairs on at least
half of the site's pages are its chrome: they are counted, not listed, since they weigh next to
nothing. Pairs are listed by weight times the number of the site's pages carrying them, so the
structure a group of pages shares comes before one-off rarities.

Node labels are hashes; :func:`readable_codes` turns them back into ``div.price#main[itemprop=x]``
by walking the page and the templates again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from pagesim_scrapy.core.cutrules import CUT_RULES
from pagesim_scrapy.core.decide import Decision, PageDecider
from pagesim_scrapy.core.site import Features, structural_features
from pagesim_scrapy.core.siteaware import SiteAwareClassifier
from pagesim_scrapy.core.sitepolicy import DEFAULT_POLICY, SitePolicy
from pagesim_scrapy.core.summary import (
    PageSummary,
    SummaryOptions,
    code_char,
    csr_label,
)

#: Pairs found on at least this share of the site's pages are reported as the site's chrome.
CHROME_SHARE = 0.5


def _readable(label: str) -> str:
    """``div\\x1fclass=a b\\x1fid=x\\x1fhref=`` -> ``div.a.b#x[href]``."""
    tag, *parts = label.split("\x1f")
    text = tag
    rest = []
    for part in parts:
        name, _, value = part.partition("=")
        if name == "class" and value:
            text += "".join(f".{token}" for token in value.split())
        elif name == "id" and value:
            text += f"#{value}"
        else:
            rest.append(f"[{name}={value}]" if value else f"[{name}]")
    return text + "".join(rest)


def readable_codes(roots: Iterable[Any], options: SummaryOptions) -> dict[str, str]:
    """Node code -> readable node label, for every element of the given lxml trees."""
    out: dict[str, str] = {}
    skip = options.skip_tags
    for root in roots:
        for element in root.iter():
            tag = element.tag
            if not isinstance(tag, str) or tag in skip:
                continue
            attrs = {name.lower(): value or "" for name, value in element.items()}
            label = csr_label(tag, attrs, options) if attrs else tag
            out.setdefault(code_char(label), _readable(label))
    return out


@dataclass
class FeatureNote:
    """One parent -> child pair of node labels and its weight on the site."""

    text: str
    weight: float
    pages: int  # pages of the site it is on

    def as_dict(self) -> dict[str, Any]:
        return {"pair": self.text, "weight": round(self.weight, 4), "site_pages": self.pages}


@dataclass
class LabelNote:
    """A label's score on the page, its threshold on the site and how that was set."""

    label: str
    score: float
    threshold: float
    source: str
    how: str
    rule: str = ""  # the rule that set the threshold (see rule_name)

    def as_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "score": round(self.score, 4),
            "threshold": round(self.threshold, 4),
            "threshold_source": self.source,
            "rule": self.rule,
            "how": self.how,
        }


@dataclass
class Explanation:
    verdict: Decision
    labels: list[LabelNote]
    site_pages: int
    nearest_label: str
    nearest_template: int  # index among the label's templates
    page_features: int
    chrome_features: int
    core_pairs: int = 0  # pairs of the nearest label's core (see siteaware.holds_the_core)
    core_held: int = 0  # of them on the page
    core_share: float = 0.0  # share of the site's kept pages holding the whole core
    anchor_floor: float = DEFAULT_POLICY.anchor_floor  # the core rule's floor (the policy's)
    matching: list[FeatureNote] = field(default_factory=list)
    missing: list[FeatureNote] = field(default_factory=list)
    extra: list[FeatureNote] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict.verdict_meta(),
            "labels": [note.as_dict() for note in self.labels],
            "site_pages": self.site_pages,
            "nearest": {"label": self.nearest_label, "template": self.nearest_template},
            "core": {
                "pairs": self.core_pairs,
                "on_page": self.core_held,
                "site_share": round(self.core_share, 4),
            },
            "page_pairs": self.page_features,
            "chrome_pairs": self.chrome_features,
            "matching": [note.as_dict() for note in self.matching],
            "missing": [note.as_dict() for note in self.missing],
            "only_on_page": [note.as_dict() for note in self.extra],
        }

    def render(self) -> str:
        """The explanation as text for a terminal."""
        verdict = self.verdict
        decided = verdict.label if verdict.label is not None else "none of these"
        confidence = "" if verdict.confidence is None else f" (confidence {verdict.confidence:.2f})"
        lines = [f"verdict: {decided}{confidence}", ""]
        width = max(len(note.label) for note in self.labels)
        lines.append(f"  {'label':{width}}  score  threshold  how the threshold was set")
        for note in self.labels:
            rule = f"[{note.rule}] " if note.rule else ""
            lines.append(
                f"  {note.label:{width}}  {note.score:.3f}  {note.threshold:9.3f}  {rule}{note.how}"
            )
        lines += [
            "",
            f"site: {self.site_pages} pages; {self.chrome_features} of this page's "
            f"{self.page_features} parent > child pairs are on at least half of them "
            "(the site's chrome, weighing next to nothing)",
            f"nearest: template {self.nearest_template + 1} of label {self.nearest_label!r}",
        ]
        lines.append(self._core_line())
        if verdict.filled is not None:
            lines.append(self._filled_line(verdict.filled))
        lines.append("node pairs beyond the chrome (weight, pages of the site with the pair):")
        for title, notes in (
            ("shared with the template", self.matching),
            ("in the template, missing from this page", self.missing),
            ("on this page only", self.extra),
        ):
            lines.append(f"{title}:")
            if not notes:
                lines.append("  (none)")
            lines += [f"  {note.weight:5.2f} {note.pages:6d}  {note.text}" for note in notes]
        return "\n".join(lines)

    def _filled_line(self, filled: Mapping[str, Any]) -> str:
        steps = int(filled.get("steps", 1))
        chain = "has it" if steps <= 1 else f"leads to it through {steps - 1} more page(s)"
        return (
            f"filled: no label's cut took the page, but its most similar page of the site "
            f"(similarity {float(filled.get('score', 0.0)):.3f}) {chain}, and the labels "
            f"describe the site (most of its kept pages chain to a label): a crawl gives it "
            f"{self.verdict.label!r}"
        )

    def _core_line(self) -> str:
        label = repr(self.nearest_label)
        if not self.core_pairs:
            return f"core: none (label {label} has one template, or its templates share no pair)"
        held = (
            f"core: the page holds {self.core_held} of the {self.core_pairs} pairs all "
            f"templates of {label} share ({self.core_share:.0%} of the site's pages hold them all)"
        )
        if self.verdict.core:
            return (
                f"{held}: under the cut, it is given the label for holding them all (a core "
                f"that fewer than half of the site holds is the type's, not the site's, and "
                f"the page reaches {self.anchor_floor:g} x its templates' similarity to each other)"
            )
        return held


def _describe_pair(feature: str, names: Mapping[str, str]) -> str:
    if len(feature) == 1:
        return f"{names.get(feature, '?')} (start element)"
    return f"{names.get(feature[0], '?')} > {names.get(feature[1], '?')}"


def rule_name(policy: SitePolicy, info: Mapping[str, Any]) -> str:
    """The name of the rule that set a label's threshold on the site, from its ``describe()``
    entry (with the site's ``coverage``): "given", "prior", "nearest", "wide_gap" (a cut kept
    by labels that cover the site) or the cut rule (a key of CUT_RULES)."""
    source = info["threshold_source"]
    if source != "distribution":
        return str(source)
    if info["background"] is not None and info.get("coverage", 0.0) >= policy.covering_share:
        return "wide_gap"
    return str(info.get("cut_rule") or "gap")


def _how(classifier: SiteAwareClassifier, label: str, info: Mapping[str, Any]) -> str:
    policy = classifier.policy
    source = info["threshold_source"]
    if source == "given":
        return "given"
    if source == "distribution":
        rule = CUT_RULES.get(info.get("cut_rule", ""), CUT_RULES["gap"])
        how = f"its own cut on the site's {info['pages_scored']} kept pages: {rule}"
        if info.get("cut_rule") == "early":
            how = (
                f"the site's own split of its {info['pages_scored']} kept pages, before the "
                f"{classifier.min_pages} its cut needs: at least "
                f"{policy.early_cut_share:.0%} of them are above it (a large type), so it "
                f"lowers the prior, not under "
                f"{policy.anchor_floor:g} x its templates' similarity to each other"
            )
        if info["background"] is not None and info.get("coverage", 0.0) >= policy.covering_share:
            how = (
                f"the labels cover {info['coverage']:.0%} of the site, but its cut on the "
                f"site's {info['pages_scored']} kept pages sits in a gap at least "
                f"{policy.wide_gap:g} wide, a clear boundary: the pages at its lower edge and "
                f"below are of another "
                f"type, a page inside it is still the nearest label's"
            )
        return how
    if source == "nearest":
        floor = (
            f" and {policy.nearest_floor:g} x its templates' similarity to each other "
            f"({info['within']:.3f})"
            if info["within"] is not None
            else ""
        )
        return (
            f"the labels cover {info['coverage']:.0%} of the site, so the nearest label decides "
            f"above the most its templates score against other labels' "
            f"({info['background']:.3f}){floor}"
        )
    if info["background"] is not None:
        return (
            f"prior: the most its templates score against other labels' templates "
            f"({info['background']:.3f}), until the site's own cut has enough pages "
            f"({info['pages_scored']} so far)"
        )
    within = info["within"]
    anchor = f"{within:.3f}" if within is not None else "1 (one template)"
    return (
        f"prior: {classifier.prior_weight} x its templates' similarity to each other ({anchor}); "
        f"the site's own cut needs {classifier.min_pages} pages, {info['pages_scored']} so far"
    )


def _filled_as_in_a_crawl(
    classifier: SiteAwareClassifier, verdict: Decision, features: Features, site: str | None
) -> Decision:
    """The decision with the crawl's neighbour fill, so the explanation says why a page left
    with none by every cut got a label in the crawl."""
    if verdict.label is not None:
        return verdict
    filled = classifier.neighbour_fill(features, verdict.scores, site)
    if filled is None:
        return verdict
    return replace(verdict, label=filled.label, filled=filled.as_meta())


def explain_page(
    classifier: SiteAwareClassifier,
    page: PageSummary,
    *,
    site: str | None = None,
    names: Mapping[str, str] | None = None,
    top: int = 10,
) -> Explanation:
    """Explain ``page``'s verdict on ``site`` as it stands (the page is not learned again):
    decided by the core's one decision step, then taken apart."""
    names = names or {}
    features = structural_features(page)
    scores = classifier.scores(page, site=site)
    verdict = PageDecider(classifier).decide_scores(scores, site=site, features=features)
    verdict = _filled_as_in_a_crawl(classifier, verdict, features, site)
    described = classifier.describe(site)
    coverage = described.get("site", {}).get("coverage", 0.0)
    notes = []
    for label, score in sorted(scores.items(), key=lambda item: -item[1]):
        info = {**described["labels"][label], "coverage": coverage}
        notes.append(
            LabelNote(
                label,
                score,
                info["threshold"],
                info["threshold_source"],
                _how(classifier, label, info),
                rule_name(classifier.policy, info),
            )
        )
    model = classifier.site_model(site)
    nearest_label = max(scores, key=scores.__getitem__)
    templates = classifier.template_features(nearest_label)
    weights = model.weights(features.union(*templates))
    per_template = classifier.template_scores(page, site=site)[nearest_label]
    index = max(range(len(templates)), key=per_template.__getitem__)
    template: Features = templates[index]
    chrome_df = CHROME_SHARE * model.pages
    chrome = sum(model.df.get(f, 0) >= chrome_df for f in features)
    core, core_share = classifier.core(nearest_label, site)

    def ranked(pairs: Iterable[str]) -> list[FeatureNote]:
        # Ranked by weight x pages: structure a group of the site's pages share (a page type)
        # comes before a rare one-off (a random sidebar link), which weighs more on its own.
        df = model.df.get
        kept = [f for f in pairs if weights[f] > 0.0 and df(f, 0) < chrome_df]
        kept.sort(key=lambda f: (-weights[f] * df(f, 0), _describe_pair(f, names)))
        return [FeatureNote(_describe_pair(f, names), weights[f], df(f, 0)) for f in kept[:top]]

    return Explanation(
        verdict=verdict,
        labels=notes,
        site_pages=model.pages,
        nearest_label=nearest_label,
        nearest_template=index,
        page_features=len(features),
        chrome_features=chrome,
        core_pairs=len(core),
        core_held=len(core & features),
        core_share=core_share,
        anchor_floor=classifier.policy.anchor_floor,
        matching=ranked(features & template),
        missing=ranked(template - features),
        extra=ranked(features - template),
    )
