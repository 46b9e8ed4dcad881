"""One page object per Stack Overflow page type, and a default that reports the verdict."""

from __future__ import annotations

from typing import Any

import attrs
from web_poet import WebPage, field

from pagesim_scrapy.poet import PageSimVerdict


class QuestionPage(WebPage[dict[str, Any]]):
    @field
    def layout(self) -> str:
        return "question"

    @field
    def title(self) -> str | None:
        return self.css("#question-header h1 a::text").get()


class UsersPage(WebPage[dict[str, Any]]):
    @field
    def layout(self) -> str:
        return "users"

    @field
    def users(self) -> int:
        return len(self.css(".user-details"))


class TagsPage(WebPage[dict[str, Any]]):
    @field
    def layout(self) -> str:
        return "tags"

    @field
    def tags(self) -> list[str]:
        return self.css(".post-tag::text").getall()


@attrs.define
class OtherPage(WebPage[dict[str, Any]]):
    """Pages of no mapped label: what pagesim said about them, from the injected verdict."""

    verdict: PageSimVerdict

    @field
    def layout(self) -> str:
        return "other"

    @field
    def label(self) -> str | None:
        return self.verdict.label

    @field
    def classified(self) -> bool:
        return self.verdict.classified

    @field
    def reason(self) -> str:
        return self.verdict.reason
