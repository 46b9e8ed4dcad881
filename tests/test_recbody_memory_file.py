"""The signature memory as a state file: what is saved is read back, the file stays bounded,
and a hostile or foreign file is refused with a format error, never misread."""

from __future__ import annotations

import json

import pytest

from pagesim_scrapy.core.record.signatures import SignatureMemory, memory_text, parse_memory
from pagesim_scrapy.core.statefile import StateFormatError

PREP = "^div.recipe-times/span.recipe-prep-time[0]"
COOK = "^div.recipe-times/span.recipe-cook-time[0]"


def _taught() -> SignatureMemory:
    memory = SignatureMemory(min_sites=2)
    for site in ("a.example", "b.example", "c.example"):
        memory.learn(site, "recipe", {"prep_time": [PREP], "cook_time": [COOK]})
    memory.learn("d.example", "recipe", {"prep_time": [PREP]})
    return memory


def test_a_saved_memory_names_what_the_taught_one_names() -> None:
    memory = _taught()
    again = parse_memory(memory_text(memory))
    assert again.to_dict() == memory.to_dict()
    assert again.signatures("recipe", "prep_time", "e.example") == [PREP]
    # a site's own vote still does not count for itself after the round trip
    assert again.signatures("recipe", "cook_time", "a.example") == [COOK]
    assert memory_text(again) == memory_text(memory)


def test_the_saved_memory_is_bounded() -> None:
    memory = _taught()
    assert len(json.loads(memory_text(memory))["votes"]) == 2
    document = json.loads(memory_text(memory, max_votes=1, max_sites=3))
    assert len(document["votes"]) == 1
    page_type, key, name, sites = document["votes"][0]
    assert page_type == "recipe"
    assert (key, name) == (PREP, "prep_time") and len(sites) == 3  # the most backed vote


@pytest.mark.parametrize(
    "document",
    [
        {"format": "pagesim-sites", "version": 1, "votes": []},
        {"format": "pagesim-signatures", "version": 99, "votes": []},
        {"format": "pagesim-signatures", "version": 1, "votes": {"a": 1}},
        {"format": "pagesim-signatures", "version": 1, "votes": [["recipe", PREP, "x"]]},
        {"format": "pagesim-signatures", "version": 1, "votes": [["recipe", PREP, 3, ["a"]]]},
        {"format": "pagesim-signatures", "version": 1, "votes": [["recipe", PREP, "x", "a"]]},
        {"format": "pagesim-signatures", "version": 1, "min_sites": 0, "votes": []},
    ],
)
def test_a_foreign_or_broken_file_is_refused(document: object) -> None:
    with pytest.raises(StateFormatError):
        parse_memory(json.dumps(document))


def test_text_that_is_no_json_object_is_refused() -> None:
    for text in ("", "[]", "{", "1e999999"):
        with pytest.raises((StateFormatError, ValueError)):
            parse_memory(text)
