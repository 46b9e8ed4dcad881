"""Sample Scrapy project: a crawl of a bundled offline demo shop with pagesim enabled."""
