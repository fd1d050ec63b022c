"""samples.fonts: the handwriting-font source (training and benchmarks only)."""

from __future__ import annotations

import numpy as np
import pytest
from escalero.samples import fonts
from escalero.samples import handwriting as hw


def test_no_reserved_evaluation_font_is_listed() -> None:
    for family in fonts.FAMILIES:
        assert not any(name in family for name in fonts.RESERVED_NAMES), family


def test_families_split_by_family_one_in_five_for_evaluation() -> None:
    train, evals = set(fonts.families("train")), set(fonts.families("eval"))
    assert not train & evals
    assert train | evals == set(fonts.FAMILIES)
    assert abs(len(evals) - len(fonts.FAMILIES) / 5) <= 1


def test_without_npm_the_fetch_says_what_to_install(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("ESCALERO_FONT_CACHE", str(tmp_path))
    monkeypatch.setattr(fonts.shutil, "which", lambda name: None)
    with pytest.raises(fonts.FontsUnavailable, match="npm"):
        fonts.fetch(("caveat",), quiet=True)
    assert not (tmp_path / "caveat").exists()  # nothing half-fetched is left as done


def _cached() -> bool:
    return all((fonts.cache_dir() / f).is_dir() for f in fonts.FAMILIES)


@pytest.mark.skipif(not _cached(), reason="needs the fonts: python -m escalero.samples.fonts")
def test_a_font_writer_writes_with_one_family_and_never_an_eval_one_in_training() -> None:
    eval_pool = {g.tobytes() for g in fonts.font_pool("eval")[7]}
    assert not any(g.tobytes() in eval_pool for g in fonts.font_pool("train")[7])
    rng = np.random.default_rng(4)
    for _ in range(5):
        w = hw.make_writer(rng, "eval", source="fonts")
        assert w.source == "fonts"
        assert len({i // fonts.VARIANTS for g in w.glyphs for i in g}) == 1
        mask = hw._number_mask(47, w, 110, rng)
        assert mask.max() > 0.9 and mask.shape[0] > 40


@pytest.mark.skipif(not _cached(), reason="needs the fonts: python -m escalero.samples.fonts")
def test_all_draws_every_source() -> None:
    rng = np.random.default_rng(0)
    sources = {hw.make_writer(rng, "train", source="all").source for _ in range(30)}
    assert sources == {"mnist", "strokes", "fonts"}
