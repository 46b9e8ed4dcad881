"""A small Scrapy project with scrapy-poet and pagesim, crawled by tests/test_poet.py."""
