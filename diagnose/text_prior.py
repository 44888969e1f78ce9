"""The text prior: whose problem a failure log's words point to, when no rule decides.

A linear model over the words of the corpus' real public reports (``corpus/holdout*/issues.yaml``
and ``corpus/public/``, never the held-out sets kept for judging), written by
``scripts/train-text-prior`` into ``diagnose/data/text_prior.json`` with how it did on reports it was
not trained on.  ``kdiag classify`` asks it only about a log that shows a failure no rule answered,
and answers from it only when its probability reaches :data:`ANSWER_FROM`: the answer says it is the
words' resemblance (rule ``text-prior``), cites the lines whose words weighed most, and keeps the
rules' candidates beside it.  Everything else (``kdiag run``, ``kdiag corpus check``, the calibration)
sees the rules alone.

The terms: the log as the collectors read it (:func:`readable`), lower-cased, with hexadecimal
numbers, digits and the folders of a path folded (another user's paths and addresses are the same
words), then every identifier-like word and every pair of neighbouring words.  Weights:
``(1 + ln tf) * idf``, L2-normalised over the model's terms, then a softmax over
``intercept + weights . coefficients`` — what scikit-learn's ``TfidfVectorizer`` (``sublinear_tf``)
and ``LogisticRegression`` compute, in plain Python here so the parent imports nothing more.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MODEL_FILE = Path(__file__).resolve().parent / "data" / "text_prior.json"
#: the rule id an answer from the prior carries
RULE = "text-prior"
#: answer only from this probability on (the model file's ``measured`` says how often such answers were
#: right on reports it was not trained on: 43 of 44 at 0.9 or more, 62 of 88 between 0.8 and 0.9, and the blind sets
#: since confirmed the lower band's seven in ten, too many wrong owners to answer with; those stay abstentions)
ANSWER_FROM = 0.9
#: a rule's answer below :data:`CONTEST_BELOW` that the prior contradicts with this probability or more is held
#: back (each blind set left out in turn, at first sight: 14 wrong answers held back for 6 right ones)
CONTEST_FROM = 0.7
#: a rule's answer at this confidence or more is never held back by words: such rules read what decides (a
#: driver older than the runtime, a resource against its limit), which a resemblance of words cannot outweigh
CONTEST_BELOW = 0.8
#: how much of a long log is read: its head and its tail (where a failure's lines are)
READ_CHARS = 64 * 1024

_HEX = re.compile(r"0x[0-9a-fA-F]+")
_PATH = re.compile(r"(?:/[\w.\-+@]+)+/([\w.\-+]+)")
_DIGITS = re.compile(r"\d+")
_WORD = re.compile(r"[a-z_][a-z_0-9]+")


def normalise(text: str) -> str:
    """Lower case; hexadecimal numbers one word, a path its file name, every number ``0``."""
    text = _HEX.sub("HEX", text)
    text = _PATH.sub(r" \1 ", text)
    return _DIGITS.sub("0", text).lower()


def readable(text: str) -> str:
    """A log as the collectors read it (``Evidence.log.text``): its head and tail when it is long, a pipeline's
    colours, time stamps and per-line prefixes taken off. ``kdiag classify`` hands the prior that text; the
    training reads its reports through this."""
    from diagnose.collectors import bound_text
    from diagnose.collectors.decorations import undecorate

    return undecorate(bound_text(text)[0])


def terms(text: str) -> list[str]:
    """The model's terms of a (readable) text: its words and every pair of neighbouring words."""
    words = _WORD.findall(normalise(text))
    return words + [f"{a} {b}" for a, b in itertools.pairwise(words)]


@dataclass(frozen=True)
class Model:
    classes: tuple[str, ...]
    intercept: tuple[float, ...]
    weights: Mapping[str, tuple[float, ...]]  # term -> (idf, coefficient per class)
    about: Mapping[str, Any]


@dataclass(frozen=True)
class Prior:
    category: str
    probability: float
    words: tuple[str, ...]  # the terms that weighed most toward the category, heaviest first


def load(path: Path | None = None) -> Model | None:
    """The model file (None when it is absent or unreadable: classify then answers from the rules alone)."""
    return _load(str(path or MODEL_FILE))


@functools.lru_cache(maxsize=4)
def _load(path: str) -> Model | None:
    try:
        data = json.loads(Path(path).read_text())
        classes = tuple(str(c) for c in data["classes"])
        weights = {str(t): tuple(float(x) for x in row) for t, row in data["terms"].items()}
        if any(len(row) != len(classes) + 1 for row in weights.values()):
            return None
        return Model(classes, tuple(float(b) for b in data["intercept"]), weights, data.get("about", {}))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def predict(text: str, model: Model | None = None) -> Prior | None:
    """The category the words of a :func:`readable` text point to, its probability and the words that weighed
    most; None without a model or when none of the text's terms is the model's."""
    model = model or load()
    if model is None:
        return None
    if len(text) > 2 * READ_CHARS:
        text = text[:READ_CHARS] + "\n" + text[-READ_CHARS:]
    counts = Counter(t for t in terms(text) if t in model.weights)
    if not counts:
        return None
    x = {t: (1.0 + math.log(n)) * model.weights[t][0] for t, n in counts.items()}
    norm = math.sqrt(sum(v * v for v in x.values())) or 1.0
    scores = list(model.intercept)
    for t, v in x.items():
        row = model.weights[t]
        for k in range(len(scores)):
            scores[k] += v / norm * row[k + 1]
    top = max(scores)
    exp = [math.exp(s - top) for s in scores]
    total = sum(exp)
    best = max(range(len(scores)), key=lambda k: scores[k])
    pull = sorted(
        ((v / norm * (model.weights[t][best + 1] - max(model.weights[t][k + 1] for k in range(len(scores)) if k != best)), t)
         for t, v in x.items()),
        reverse=True,
    )  # fmt: skip
    return Prior(model.classes[best], exp[best] / total, tuple(t for w, t in pull[:6] if w > 0))


#: the next step for an answer from the prior with no deciding check of its own, by category
NEXT_STEP = {
    "environment": "Compare the versions, libraries and machine the log names with what the code needs: "
    "`kdiag env` prints the driver, toolkit, library and GPU facts of a machine, to set beside the failing one's.",
    "kernel-logic": "Reproduce the failure with the kernel under control (`kdiag run`, with compute-sanitizer for a "
    "memory error) to find the line at fault.",
    "runtime-assumption": "Check what the failing call was given (sizes, shapes, dtypes, devices, alignment, limits) "
    "against what the kernel or the library documents it accepts.",
}


def measured(model: Model, probability: float) -> tuple[int, int, float] | None:
    """(answered, right, threshold) of the measured probability band ``probability`` falls in — from the highest
    threshold it reaches up to the next one — on reports the model was not trained on (the model file's
    ``measured`` counts every answer at or above each threshold: a band is the difference of two rows)."""
    at = ((model.about.get("measured") or {}).get("at")) or {}
    rows = sorted(((float(t), int(r.get("answered", 0)), int(r.get("right", 0))) for t, r in at.items()), reverse=True)
    above = (0, 0)
    for t, answered, right in rows:
        if probability >= t:
            band = (answered - above[0], right - above[1])
            return (band[0], band[1], t) if band[0] > 0 else None
        above = (answered, right)
    return None


def confidence(model: Model, probability: float) -> float:
    """The measured precision of the answer's probability band, shrunk by one right and one wrong answer (a small
    band says less); the probability's own value, capped below the answer threshold, when nothing was measured."""
    got = measured(model, probability)
    if got is None:
        return min(probability, ANSWER_FROM) * 0.9
    answered, right, _ = got
    return round((right + 1) / (answered + 2), 3)


def cited_lines(text: str, words: tuple[str, ...], limit: int = 3) -> list[tuple[int, str]]:
    """The first lines (1-based number, text) that hold the heaviest terms, one line per term, in log order (a term
    is held as a whole word or word pair; a long log's head and tail are searched, as the model reads them)."""
    lines = text.splitlines()
    keep = 5000
    numbered = list(enumerate(lines)) if len(lines) <= 2 * keep else [*enumerate(lines[:keep]),
               *((len(lines) - keep + i, line) for i, line in enumerate(lines[-keep:]))]  # fmt: skip
    held: list[tuple[int, str, set[str]]] = []
    for i, line in numbered:
        ws = _WORD.findall(normalise(line))
        if ws:
            held.append((i, line, {*ws, *(f"{a} {b}" for a, b in itertools.pairwise(ws))}))
    found: dict[int, str] = {}
    for word in words:
        if len(found) >= limit:
            break
        hit = next(((i, line) for i, line, ts in held if word in ts and i + 1 not in found), None)
        if hit is not None:
            found[hit[0] + 1] = hit[1].strip()[:300]
    return sorted(found.items())


def finding(
    prior: Prior,
    model: Model,
    text: str,
    findings: tuple[Any, ...],
    hint: tuple[str | None, tuple[tuple[str, str | None], ...]],
    contested: str | None = None,
) -> Any:
    """The answer from the prior as a finding: its mode the rules' (or the unmatched kind's) candidate of that
    category where one was seen, else ``unattributed``; its lines the ones the weighing words are on.
    ``contested``: the category of the rule's answer it holds back (the finding is then a candidate)."""
    from diagnose.failure_lines import first_failure
    from diagnose.matcher import Cited, Finding

    check, candidates = hint
    # the rules' own candidate of that owner, where they saw one: its mode, the lines it read and its advice (a
    # family's candidate knows its message; the unmatched kind's check knows only the kind of failure)
    same = next((f for f in findings if f.category == prior.category), None)
    own = same if not contested else None  # its texts, where the prior answers (not where it holds a rule back)
    mode = same.failure_mode if same is not None else None
    # the unmatched kind's mode of that owner only where the kind names one (of several, none is the log's)
    kind_modes = {m for c, m in candidates if c == prior.category and m}
    mode = mode or (kind_modes.pop() if len(kind_modes) == 1 else None) or "unattributed"
    got = measured(model, prior.probability)
    cases = int(model.about.get("cases") or 0)
    said = ", ".join(f"'{w}'" for w in prior.words[:4]) or "its words"
    record = (
        f"answers at this probability ({got[2]:.1f} or more) were right {got[1]} times in {got[0]} on reports it had "
        "not been trained on"
        if got
        else "it has no measured figure at this probability"
    )
    return Finding(
        rule=RULE,
        title=f"Worded like the {prior.category} failures of kdiag's corpus (no rule decided)",
        category=prior.category,
        failure_mode=mode,
        confidence=confidence(model, prior.probability),
        priority=0,
        specificity=0,
        evidence=(
            same.evidence
            if same is not None and same.evidence
            else tuple(Cited(n, line, RULE) for n, line in cited_lines(text, prior.words))
        ),
        what=(
            f"A rule answered {contested}, but the log's words ({said}) are those of {prior.category} failures "
            if contested
            else f"No rule decided this failure. Its words ({said}) are those of {prior.category} failures "
        )
        + f"among the {cases:,} real public reports kdiag's corpus holds (probability {prior.probability:.2f})."
        + (f" The rules saw that owner's candidate: {own.title}. {own.what}" if own is not None else ""),
        why=(f"{own.why} " if own is not None else "")
        + f"The text prior weighs every word of the log against those reports ({record}). A resemblance of words "
        "is not a proof: the candidates beside it are what the rules saw.",
        fix=_fix(own, check, prior.category, None if own is not None else first_failure(text)),
        caveats=own.caveats if own is not None else None,
        facts=(("text_prior_probability", f"{prior.probability:.2f}"), ("text_prior_words", said)),
    )


def _fix(own: Any, check: str | None, category: str, stated: str | None = None) -> str:
    """The advice of an answer from the words: the rules' candidate's deciding check first, where it has one, and
    its fix only as what follows if the check confirms it (a resemblance of words proves no fix); else the
    unmatched kind's check, else the owner's next step, after the log's own failure line where no rule saw one
    (what the log states comes before advice for the owner in general)."""
    if own is not None and own.fix and own.caveats:
        return f"Check first: {own.caveats.strip()} If that confirms it ({own.title}): {own.fix.strip()}"
    advice = (own.fix if own is not None else None) or check or NEXT_STEP.get(category, NEXT_STEP["kernel-logic"])
    if stated:
        return (
            f"Start from the failure the log states, `{stated}`: where it names a file, flag, setting or version, "
            f"that is what to change. Where it names none: {advice}"
        )
    return advice


def describe(model: Model | None) -> str:
    """What ``kdiag rules show text-prior`` prints: not a rule file, the model and how it did where it was not
    trained."""
    lines = [
        f"{RULE} — not a rule file: the text prior (diagnose/text_prior.py)",
        f"  answers a failure no rule answered where the words give one owner {ANSWER_FROM} or more; holds back a",
        f"  rule's answer below {CONTEST_BELOW} that they contradict at {CONTEST_FROM} or more",
        f"  model: {MODEL_FILE} (scripts/train-text-prior)",
    ]
    if model is None:
        return "\n".join([*lines, "  the model file is absent or unreadable: kdiag answers from the rules alone", ""])
    about = model.about
    lines.append(f"  trained on: {int(about.get('cases') or 0):,} real public reports, {len(model.weights):,} terms")
    got = about.get("measured") or {}
    if got.get("at"):
        lines.append(f"  measured ({got.get('how')}; {got.get('unanswered')} cases):")
        for t, row in sorted(got["at"].items(), key=lambda kv: float(kv[0])):
            a, r = int(row["answered"]), int(row["right"])
            lines.append(f"    probability >= {t}: {a} answered, {r} right ({r / a:.0%})" if a else f"    >= {t}: none")
    return "\n".join([*lines, ""])
