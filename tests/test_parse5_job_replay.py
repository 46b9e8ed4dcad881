"""The main job's worker replay (``bench_induction_cpu.py --job``): the pages it hands the
pipeline are the demo shop's product pages under URLs that are the same in every checkout,
and the records it digests do not depend on the order the pages arrive in (issue 31, goal 5),
so the digest of two versions of the code can be compared."""

from __future__ import annotations

from tests.conftest import load_benchmark


def test_job_pages_are_the_demo_products_under_checkout_free_urls() -> None:
    bench = load_benchmark("bench_induction_cpu")
    pages = bench.job_pages()
    assert len(pages) == 170
    assert all(url.startswith(bench.JOB_BASE) and url.endswith(".html") for _, url in pages)
    assert len({url for _, url in pages}) == 170


def test_job_records_do_not_depend_on_the_arrival_order() -> None:
    bench = load_benchmark("bench_induction_cpu")
    first = bench.job_pages(seed=0)[:12]
    wanted = {url for _, url in first}
    other = [page for page in bench.job_pages(seed=1) if page[1] in wanted]
    assert [url for _, url in other] != [url for _, url in first]
    phases, digest = bench._job_run(first, None)
    assert set(phases) == {"take", "settle", "extraction and record"}
    assert bench._job_run(other, None)[1] == digest
