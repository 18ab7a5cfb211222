"""A page's links to the other conferences: every conference's link less its own, in the store's
order, made once per list of conferences and root, whatever the number of pages asked for, and
compared by the list's digest, not link by link."""

from __future__ import annotations

from datetime import date

from feeds.model import Conference
from server.links import NO_OTHERS, ConferenceLink, ConferenceLinks, Site
from server.snapshot.api import conferences_representation
from server.snapshot.live import Served
from server.store.report import ConferenceSummary

ROOT = Site.of("https://cal.example.org/")


def summary(slug: str, name: str) -> ConferenceSummary:
    conference = Conference(
        name=name, timezone="Europe/Paris", start_date=date(2026, 4, 7), end_date=date(2026, 4, 8), slug=slug
    )
    return ConferenceSummary(conference, sessions=3, first_version=1, version=1)


THREE = (summary("alpha", "Alpha Conf"), summary("beta", "Beta Conf"), summary("gamma", "Gamma Conf"))


def test_the_links_are_every_conference_but_this_one_in_the_stores_order() -> None:
    links = ConferenceLinks.of(THREE, ROOT)

    others = links.others("beta")

    assert tuple(others) == (ConferenceLink("Alpha Conf", "/c/alpha/"), ConferenceLink("Gamma Conf", "/c/gamma/"))


def test_the_root_page_and_an_unknown_slug_link_to_every_conference() -> None:
    links = ConferenceLinks.of(THREE, ROOT)

    assert links.others(None).links == links.others("delta").links == links.links
    assert [link.path for link in links.links] == ["/c/alpha/", "/c/beta/", "/c/gamma/"]


def test_a_conference_alone_links_to_none() -> None:
    links = ConferenceLinks.of(THREE[:1], ROOT)

    assert (links.others("alpha").links, links.others(None).links, len(NO_OTHERS)) == ((), (), 0)


def test_the_links_keep_the_roots_path() -> None:
    links = ConferenceLinks.of(THREE, Site.of("https://example.org/cal"))

    assert links.others("alpha").links[0] == ConferenceLink("Beta Conf", "/cal/c/beta/")


def test_links_made_apart_from_the_same_conferences_are_equal_and_hash_alike() -> None:
    first, second = ConferenceLinks.of(THREE, ROOT), ConferenceLinks.of(THREE, ROOT)

    assert first.others("beta") == second.others("beta")
    assert hash(first.others("beta")) == hash(second.others("beta"))
    assert first.others("beta") != first.others("gamma")


def test_a_renamed_conference_or_another_root_makes_other_links() -> None:
    renamed = (summary("alpha", "Alpha Conf 2026"), *THREE[1:])

    plain = ConferenceLinks.of(THREE, ROOT).others("beta")

    assert ConferenceLinks.of(renamed, ROOT).others("beta") != plain
    assert ConferenceLinks.of(THREE, Site.of("https://cal.example.org/x")).others("beta") != plain
    assert ConferenceLinks.of(THREE[::-1], ROOT).others("beta") != plain


def test_a_served_list_makes_each_link_once_for_every_page_under_a_root() -> None:
    served = Served({}, THREE, "alpha")

    first, second = served.others("alpha", ROOT), served.others("gamma", ROOT)

    assert first.links == ConferenceLinks.of(THREE, ROOT).others("alpha").links
    assert second.links == ConferenceLinks.of(THREE, ROOT).others("gamma").links
    assert first.every is second.every


def test_a_served_list_answers_every_root_a_client_names() -> None:
    served = Served({}, THREE, "alpha")
    roots = [Site.of(f"http://host-{n}.example/p{n}") for n in range(20)]

    answered = [served.others("beta", root).links for root in roots + roots[:1]]

    assert answered == [ConferenceLinks.of(THREE, root).others("beta").links for root in roots + roots[:1]]
    assert answered[-1][0].path == "/p0/c/alpha/"


def test_a_served_list_makes_the_conferences_api_once_per_root() -> None:
    served = Served({}, THREE, "alpha")

    first, again = served.conferences(ROOT), served.conferences(ROOT)

    assert first is again
    assert first.body == conferences_representation(THREE, ROOT).body
    assert served.conferences(Site.of("https://example.org/cal")).body != first.body
