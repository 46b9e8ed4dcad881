"""scrapy-poet with pagesim: the verdict as an input, and a page object per label."""

BOT_NAME = "poet_project"
SPIDER_MODULES = ["poet_project.spiders"]

ADDONS = {
    "scrapy_poet.Addon": 300,
    "pagesim_scrapy.Addon": 400,
    # wires pagesim's verdict provider and the label layouts below into scrapy-poet
    "pagesim_scrapy.poet.PoetAddon": 500,
}

# the layout page object of each pagesim label; pages of any other label (or of none) get
# the default
PAGESIM_POET_LAYOUTS = {
    "question": "poet_project.pages.QuestionPage",
    "users": "poet_project.pages.UsersPage",
    "tags": "poet_project.pages.TagsPage",
}
PAGESIM_POET_DEFAULT_LAYOUT = "poet_project.pages.OtherPage"

ROBOTSTXT_OBEY = False
TELNETCONSOLE_ENABLED = False
RETRY_TIMES = 1
DOWNLOAD_TIMEOUT = 30
FEED_EXPORT_ENCODING = "utf-8"
