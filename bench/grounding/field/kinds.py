"""All kinds of app and their sites (see kbase.py for the format). Kinds are spread over a few
modules only to keep files readable; their order here fixes the sites' order and splits."""

from kbase import KINDS, build_sites  # noqa: F401
import kbase  # noqa: F401  (shop)
import k2  # noqa: F401  (mail, calendar, travel)
import k3  # noqa: F401  (settings, form, table, dashboard, docs)
import k4  # noqa: F401  (search, banking, food, social, files, jobs, news)
import k5  # noqa: F401  (music, video, crm, health, realestate, chat, issues)

SITES = build_sites()
