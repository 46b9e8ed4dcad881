"""``python -m pagesim_scrapy …`` runs the command line."""

from pagesim_scrapy.cli import main

raise SystemExit(main())
