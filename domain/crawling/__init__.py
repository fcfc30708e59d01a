"""Crawling a site: which pages belong to it, what its robots rules allow, and where a
crawl stands (pure rules; the crawl itself is `application.crawling`)."""
