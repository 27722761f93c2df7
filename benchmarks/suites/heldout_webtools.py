"""Held-out suite: a tool-using software and web agent working through a day of jobs, and questions.

The agent (called Ada) fixes bugs from a bug tracker (runs the test suite, reads the failure,
looks the error up, edits files, commits, pushes, waits for the build server), buys things in a web
shop (signs in, searches, adds to the cart, checks out; cards get declined, pages time out, it
retries), calls a JSON API (rate limits, back-off, refunds), moves money in an online bank, edits
its profile, and researches in a search portal. Everything is simulated here with a seeded RNG.

Records use this suite's own words: events ``look up``, ``browse``, ``press``, ``type into``,
``hit endpoint``, ``run suite``, ``modify``, ``check in``, ``push``, ``run into``, ``try again``,
``sign in``, ``sign out``, ``spend``, ``receive``, ``save link``, ``add to cart``, ``land on``,
``pipeline``, ``claim ticket``, ``resolve ticket``, ``back off``, ``read mail``, ``send mail``;
state ``tests passed`` (int), ``tests failing`` (int), ``build status`` (text), ``logged in`` (bool),
``balance`` (float), ``open tabs`` (int), ``branch`` (text), ``job`` (text); the region is the
site, app or repo area the agent is in. Seeds 7200-7299.

>>> data = build(7200)  # doctest: +SKIP
>>> sorted(data)  # doctest: +SKIP
['episodes', 'questions']
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from benchmarks.suites._heldout_core import (
    Builder,
    Lexicon,
    Match,
    self_check,
    subjects,
)
from graphmem.records import Event, Location, Relation, Step

SUITE = "heldout_webtools"
SEEDS = range(7200, 7300)

REGIONS = ["search portal", "reference docs", "storefront", "checkout", "online bank", "profile settings",
           "bug tracker", "editor", "shell", "build server", "api playground", "inbox"]
PRODUCTS = ["usb-c cable", "mechanical keyboard", "coffee beans", "notebook", "desk lamp", "hdmi adapter", "headphones"]
PRICES = {"usb-c cable": 12.5, "mechanical keyboard": 89.0, "coffee beans": 14.25, "notebook": 6.75, "desk lamp": 34.9,
          "hdmi adapter": 19.99, "headphones": 59.5}
FILES = ["src/dates.py", "src/parser.py", "src/cache.py", "src/api/client.py", "src/models/order.py", "tests/test_dates.py",
         "tests/test_parser.py", "README.md"]
QUERIES = ["python timezone parsing", "pytest parametrize ids", "http 429 retry after", "lru_cache invalidation",
           "requests session timeout", "dataclass frozen hash", "git rebase onto", "json schema date format"]
ERRORS_TEST = ["AssertionError", "ImportError", "TypeError", "KeyError"]
RECIPIENTS = ["landlord", "electric company", "Sam", "savings account"]
MAILS = [("invoice from the shop", "billing"), ("standup notes", "team"), ("password reset", "support"),
         ("build failed on main", "ci-bot")]


@dataclass
class Desk:
    """Everything the simulated tools remember between steps."""

    rng: random.Random
    region: str = "inbox"
    screen: str = "inbox list"
    logged_in: bool = False
    balance: float = 0.0
    tabs: int = 1
    branch: str = "main"
    tests_passed: int = 0
    tests_failing: int = 0
    build: str = "not built"
    job: str = "read the morning mail"
    cart: dict[str, int] = field(default_factory=dict)
    kept: dict[str, int] = field(default_factory=dict)  # bookmarks, api tokens, unpushed commits
    suite_size: int = 0


@dataclass(frozen=True)
class Act:
    """One step of a job: the action text, what it shows, and the events it produces."""

    action: str
    screen: str
    region: str
    events: tuple[Event, ...] = ()


class Worker:
    """The scripted agent: each job is a generator of actions, and the desk state changes as they run."""

    def __init__(self, desk: Desk, rng: random.Random) -> None:
        self.d = desk
        self.rng = rng
        self.tickets = 230

    # ---------------------------------------------------------------- building blocks

    def go(self, region: str, screen: str, how: str) -> Iterator[Act]:
        if self.d.region != region:
            if self.d.tabs >= 6 and self.rng.random() < 0.5:
                self.d.tabs = 1
                yield Act("close other tabs", self.d.screen, self.d.region, (Event("close other tabs"),))
            self.d.tabs += 1 if self.rng.random() < 0.6 else 0
            yield Act(how, screen, region)

    def sign_in(self, site: str) -> Iterator[Act]:
        if self.d.logged_in:
            return
        yield Act('type email="ada@example.com"', "login form", site, (Event("type into", "email field"),))
        yield Act('type password="********"', "login form", site, (Event("type into", "password field"),))
        if self.rng.random() < 0.25:
            yield Act('click "Log in"', "login form", site, (Event("press", "log in"), Event("run into", "wrong password")))
            yield Act('type password="********"', "login form", site, (Event("type into", "password field"),))
            self.d.logged_in = True
            yield Act('click "Log in"', "account dashboard", site,
                      (Event("press", "log in"), Event("try again", "login"), Event("sign in", site)))
            return
        self.d.logged_in = True
        yield Act('click "Log in"', "account dashboard", site, (Event("press", "log in"), Event("sign in", site)))

    def sign_out(self, site: str, region: str) -> Iterator[Act]:
        if self.d.logged_in:
            self.d.logged_in = False
            yield Act('click "Sign out"', "signed-out page", region, (Event("press", "sign out"), Event("sign out", site)))

    def research(self, query: str) -> Iterator[Act]:
        yield from self.go("search portal", "search box", "open new tab: search portal")
        yield Act(f'search "{query}"', "search results", "search portal", (Event("look up", query),))
        for i in range(self.rng.randint(1, 3)):
            page = f"result {i + 1} for {query}"
            self.d.tabs += 1
            if self.rng.random() < 0.15:
                yield Act(f"open {page}", "error page", "reference docs", (Event("browse", page), Event("run into", "404 not found")))
                self.d.tabs -= 1
                continue
            yield Act(f"open {page}", "article", "reference docs", (Event("browse", page),))
            if self.rng.random() < 0.4:
                self.d.kept["bookmark"] = self.d.kept.get("bookmark", 0) + 1
                yield Act(f"bookmark {page}", "article", "reference docs", (Event("save link", page),))
        for _ in range(self.rng.randint(0, 2)):
            if self.d.tabs > 1:
                self.d.tabs -= 1
                yield Act("close tab", "article", "reference docs", (Event("close tab"),))

    def run_tests(self, suite: str, failing: int, error: str) -> Iterator[Act]:
        """Switch to the shell and run a suite; ``failing`` tests fail (with ``error``) on this run."""
        yield from self.go("shell", "terminal prompt", "switch to shell")
        cmd = "pytest tests/unit -q" if suite == "unit tests" else "pytest tests/integration -q"
        self.d.tests_failing, self.d.tests_passed = failing, self.d.suite_size - failing
        extra = (Event("run into", error),) if failing else ()
        yield Act(f"run {cmd}", "test report", "shell", (Event("run suite", suite), *extra))

    # ---------------------------------------------------------------- jobs

    def fix_bug(self) -> Iterator[Act]:
        rng, d = self.rng, self.d
        self.tickets += rng.randint(1, 9)
        ticket = f"BUG-{self.tickets}"
        d.job = f"fix {ticket}"
        yield from self.go("bug tracker", "ticket list", "open bug tracker")
        yield Act(f"open ticket {ticket}", "ticket page", "bug tracker", (Event("browse", f"ticket {ticket}"),))
        yield Act('click "Assign to me"', "ticket page", "bug tracker", (Event("press", "assign to me"), Event("claim ticket", ticket)))
        yield from self.go("shell", "terminal prompt", "switch to shell")
        d.branch = f"fix/{ticket.lower()}"
        yield Act(f"git checkout -b {d.branch}", "terminal prompt", "shell", (Event("new branch", d.branch),))
        d.suite_size = rng.randint(40, 160)
        failing = rng.randint(1, 4)
        suite = rng.choice(["unit tests", "unit tests", "integration tests"])
        error = rng.choice(ERRORS_TEST)
        yield from self.run_tests(suite, failing, error)
        if rng.random() < 0.6:
            yield from self.research(rng.choice(QUERIES))
        target = rng.choice(FILES[:5])
        attempts = rng.randint(1, 3)
        for attempt in range(attempts):
            yield from self.go("editor", f"editor: {target}", f"open {target} in editor")
            for _ in range(rng.randint(1, 2)):
                edited = target if rng.random() < 0.7 else rng.choice(FILES)
                yield Act(f"edit {edited} (lines {rng.randint(10, 200)}-{rng.randint(201, 260)})", f"editor: {edited}", "editor",
                          (Event("modify", edited),))
            if rng.random() < 0.3:
                yield Act("save all", f"editor: {target}", "editor", (Event("press", "save all"),))
            last = attempt == attempts - 1
            yield from self.run_tests(suite, 0 if last else max(1, failing - attempt - 1), error)
            if not last and rng.random() < 0.5:
                yield Act(f"run pytest -q -x tests/test_{target.rsplit('/', 1)[-1]}", "test report", "shell",
                          (Event("run suite", suite), Event("try again", "tests"), Event("run into", error)))
        yield from self.commit_and_push(ticket)
        yield from self.go("bug tracker", "ticket page", "open bug tracker")
        yield Act('click "Resolve"', "ticket page", "bug tracker", (Event("press", "resolve"), Event("resolve ticket", ticket)))

    def commit_and_push(self, ticket: str) -> Iterator[Act]:
        rng, d = self.rng, self.d
        yield from self.go("shell", "terminal prompt", "switch to shell")
        d.kept["unpushed commit"] = d.kept.get("unpushed commit", 0) + 1
        yield Act(f'git commit -am "Fix {ticket}"', "terminal prompt", "shell", (Event("check in"),))
        if rng.random() < 0.2:
            yield Act(f"git push origin {d.branch}", "terminal prompt", "shell", (Event("run into", "merge conflict"),))
            yield Act("git pull --rebase", "terminal prompt", "shell", (Event("rebase"),))
        d.kept.pop("unpushed commit", None)
        d.build = "building"
        yield Act(f"git push origin {d.branch}", "terminal prompt", "shell", (Event("push", d.branch), Event("pipeline", "started")))
        yield from self.go("build server", "pipeline page", "open build server")
        for _ in range(rng.randint(0, 2)):
            yield Act("refresh pipeline page", "pipeline page", "build server", ())
        if rng.random() < 0.3:
            d.build = "failing"
            yield Act("refresh pipeline page", "build log", "build server", (Event("pipeline", "failed"),))
            yield Act("open build log", "build log", "build server", (Event("browse", "build log"), Event("run into", "lint error")))
            target = rng.choice(FILES[:5])
            yield from self.go("editor", f"editor: {target}", f"open {target} in editor")
            yield Act(f"edit {target} (format)", f"editor: {target}", "editor", (Event("modify", target),))
            yield from self.go("shell", "terminal prompt", "switch to shell")
            d.kept["unpushed commit"] = 1
            yield Act('git commit -am "Fix lint"', "terminal prompt", "shell", (Event("check in"),))
            d.kept.pop("unpushed commit", None)
            d.build = "building"
            yield Act(f"git push origin {d.branch}", "terminal prompt", "shell", (Event("push", d.branch), Event("pipeline", "started")))
            yield from self.go("build server", "pipeline page", "open build server")
        d.build = "passing"
        yield Act("refresh pipeline page", "pipeline page", "build server", (Event("pipeline", "passed"),))

    def shop(self) -> Iterator[Act]:
        rng, d = self.rng, self.d
        items = rng.sample(PRODUCTS, rng.randint(1, 3))
        d.job = f"buy {', '.join(items)}"
        yield from self.go("storefront", "shop home", "open storefront")
        yield from self.sign_in("storefront")
        for item in items:
            yield Act(f'type search="{item}"', "search box", "storefront", (Event("type into", "shop search box"),))
            yield Act('click "Search"', "search results", "storefront", (Event("press", "search"),))
            yield Act(f"open product page {item}", "product page", "storefront", (Event("browse", f"product page {item}"),))
            qty = 2 if rng.random() < 0.25 else 1
            for _ in range(qty):
                d.cart[item] = d.cart.get(item, 0) + 1
                yield Act('click "Add to cart"', "product page", "storefront", (Event("press", "add to cart"), Event("add to cart", item)))
        if rng.random() < 0.3:
            yield from self.go("inbox", "inbox list", "open inbox")
            d.kept["coupon code"] = d.kept.get("coupon code", 0) + 1
            yield Act("open mail 'Your 10% coupon'", "email thread", "inbox", (Event("read mail", "your 10% coupon"),))
        yield from self.go("checkout", "cart", "open checkout")
        yield Act('type address="12 Elm St"', "checkout form", "checkout", (Event("type into", "shipping address"),))
        yield Act('type card="**** 4242"', "checkout form", "checkout", (Event("type into", "card number"),))
        if d.kept.get("coupon code"):
            d.kept.pop("coupon code")
            yield Act('type coupon="SAVE10"', "checkout form", "checkout", (Event("type into", "coupon field"),))
        total = round(sum(PRICES[i] * n for i, n in d.cart.items()), 2)
        yield Act('click "Place order"', "checkout form", "checkout", (Event("press", "place order"),))
        while rng.random() < 0.35:
            problem = rng.choice(["card declined", "timeout", "HTTP 500"])
            yield Act("read error message", "error page", "checkout", (Event("run into", problem),))
            yield Act('click "Place order"', "checkout form", "checkout", (Event("press", "place order"), Event("try again", "payment")))
        d.balance = round(d.balance - total, 2)
        d.cart.clear()
        yield Act("wait for confirmation", "order confirmation", "checkout", (Event("spend", "storefront"),))
        if rng.random() < 0.5:
            yield from self.sign_out("storefront", "checkout")

    def api_job(self) -> Iterator[Act]:
        rng, d = self.rng, self.d
        d.job = "refund a damaged order through the API"
        yield from self.go("api playground", "request builder", "open api playground")
        if not d.kept.get("api token"):
            d.kept["api token"] = 1
            yield Act('click "Generate token"', "token page", "api playground", (Event("press", "generate token"),))
        yield Act("call GET /v2/orders?status=damaged", "api response", "api playground", (Event("hit endpoint", "GET /v2/orders"),))
        if rng.random() < 0.3:
            yield Act("call GET /v2/orders/8812", "api response", "api playground", (Event("hit endpoint", "GET /v2/orders/{id}"),))
        yield Act("call POST /v2/refunds", "api response", "api playground", (Event("hit endpoint", "POST /v2/refunds"),))
        for _ in range(rng.randint(0, 2)):
            yield Act("read 429 response", "api response", "api playground", (Event("run into", "rate limit"),))
            yield Act("wait 30s", "api response", "api playground", (Event("back off"),))
            yield Act("call POST /v2/refunds", "api response", "api playground",
                      (Event("hit endpoint", "POST /v2/refunds"), Event("try again", "api call")))
        amount = round(rng.uniform(5, 80), 2)
        d.balance = round(d.balance + amount, 2)
        yield Act("read 201 response", "api response", "api playground", (Event("receive", "refund"),))
        if rng.random() < 0.4:
            d.kept.pop("api token", None)
            yield Act('click "Revoke token"', "token page", "api playground", (Event("press", "revoke token"),))

    def bank_job(self) -> Iterator[Act]:
        rng, d = self.rng, self.d
        to = rng.choice(RECIPIENTS)
        d.job = f"pay the {to}" if to != "Sam" else "send money to Sam"
        yield from self.go("online bank", "bank login", "open online bank")
        yield from self.sign_in("online bank")
        amount = round(rng.uniform(20, 400), 2)
        yield Act(f'type recipient="{to}"', "transfer form", "online bank", (Event("type into", "recipient field"),))
        yield Act(f'type amount="{amount:.2f}"', "transfer form", "online bank", (Event("type into", "amount field"),))
        yield Act('click "Transfer"', "transfer form", "online bank", (Event("press", "transfer"),))
        if rng.random() < 0.3:
            d.logged_in = False
            yield Act("read session warning", "bank login", "online bank", (Event("run into", "session expired"),))
            yield from self.sign_in("online bank")
            yield Act('click "Transfer"', "transfer form", "online bank", (Event("press", "transfer"), Event("try again", "transfer")))
        d.balance = round(d.balance - amount, 2)
        yield Act("wait for receipt", "transfer receipt", "online bank", (Event("spend", to),))
        if rng.random() < 0.6:
            yield from self.sign_out("online bank", "online bank")

    def profile_job(self) -> Iterator[Act]:
        rng, d = self.rng, self.d
        d.job = "update the profile"
        yield from self.go("profile settings", "settings form", "open profile settings")
        yield from self.sign_in("profile settings")
        for fld in rng.sample(["display name", "phone number", "time zone", "avatar"], rng.randint(1, 3)):
            yield Act(f'type {fld.replace(" ", "_")}="..."', "settings form", "profile settings", (Event("type into", f"{fld} field"),))
        yield Act('click "Save changes"', "settings form", "profile settings", (Event("press", "save changes"),))
        if rng.random() < 0.3:
            yield Act("read error toast", "settings form", "profile settings", (Event("run into", "HTTP 500"),))
            yield Act('click "Save changes"', "settings form", "profile settings", (Event("press", "save changes"), Event("try again", "save")))

    def mail_job(self) -> Iterator[Act]:
        rng, d = self.rng, self.d
        subject, sender = rng.choice(MAILS)
        d.job = f"answer the mail '{subject}'"
        yield from self.go("inbox", "inbox list", "open inbox")
        yield Act(f"open mail '{subject}'", "email thread", "inbox", (Event("read mail", subject),))
        yield Act("type reply", "reply box", "inbox", (Event("type into", "reply box"),))
        yield Act('click "Send"', "email thread", "inbox", (Event("press", "send"), Event("send mail", sender)))

    def research_job(self) -> Iterator[Act]:
        query = self.rng.choice(QUERIES)
        self.d.job = f"read up on {query}"
        yield from self.research(query)


def rollout(seed: int) -> list[Step]:
    rng = random.Random(seed)
    desk = Desk(rng, balance=round(rng.uniform(900, 2500), 2))
    worker = Worker(desk, rng)
    target = rng.randint(360, 1000)
    steps: list[Step] = []
    jobs = [worker.fix_bug, worker.fix_bug, worker.shop, worker.api_job, worker.bank_job, worker.profile_job,
            worker.mail_job, worker.research_job]
    region = desk.region  # the day starts in the inbox
    while len(steps) < target:
        job = rng.choice(jobs)
        # Lazily: a job changes the desk just before yielding the act that causes the change, so each
        # step is recorded with the state right after it.
        for act in job():
            if len(steps) >= 1450:
                break
            events = list(act.events)
            if act.region != region:
                region = act.region
                events.insert(0, Event("land on", region))
            desk.region, desk.screen = act.region, act.screen
            steps.append(record(len(steps), act, events, desk))
    return steps


def record(t: int, act: Act, events: list[Event], d: Desk) -> Step:
    state: dict[str, int | float | str | bool] = {
        "tests passed": d.tests_passed, "tests failing": d.tests_failing, "build status": d.build, "logged in": d.logged_in,
        "balance": d.balance, "open tabs": d.tabs, "branch": d.branch, "job": d.job,
    }
    inventory = {**d.cart, **d.kept}
    said = "; ".join(f"{e.kind} {e.obj}".strip() for e in events)
    return Step(
        t=t, action=act.action, summary=f"{act.action} ({act.screen} in {act.region})" + (f": {said}" if said else ""),
        objects=(act.screen,), events=tuple(events), relations=(Relation("agent", "facing", act.screen),),
        inventory=tuple(sorted((k, v) for k, v in inventory.items() if v > 0)), state=tuple(sorted(state.items())),
        location=Location(region=act.region), observation=f"{act.screen} is shown",
    )


# --------------------------------------------------------------------------------------------------
# Words and templates
# --------------------------------------------------------------------------------------------------


def _a(noun: str) -> str:
    """The noun with its indefinite article: "an AssertionError", "an HTTP 500 error", "a usb-c cable"."""
    first = noun.split()[0]
    vowel = first[0].lower() in "aeio" or (first[0].lower() == "u" and not first.lower().startswith("us"))
    spelled = first.isupper() and first[0] in "FHLMNRSX" or first.lower() == "hdmi"
    return f"{'an' if vowel or spelled else 'a'} {noun}"


def lexicon(steps: list[Step]) -> Lexicon:
    seen: dict[str, set[str]] = {}
    for s in steps:
        for e in s.events:
            seen.setdefault(e.kind, set()).add(e.obj)
    events: dict[tuple[str, str | None], list[str]] = {
        ("look up", None): ["search the web", "do a web search", "google something", "run a search"],
        ("press", None): ["click a button", "press a button", "hit a button"],
        ("type into", None): ["fill in a field", "type into a form", "enter text in a field"],
        ("hit endpoint", None): ["call the API", "make an API request", "send an API call"],
        ("run suite", None): ["run the tests", "run the test suite", "kick off the tests", "execute the tests"],
        ("modify", None): ["edit a file", "change a file", "make a code change", "touch a source file"],
        ("check in", None): ["commit", "make a commit", "commit changes", "record a git commit"],
        ("push", None): ["push", "push code", "push to the remote", "push a branch"],
        ("run into", None): ["get an error", "hit an error", "see an error", "run into a problem"],
        ("try again", None): ["retry", "try again", "give it another go", "have another attempt"],
        ("sign in", None): ["log in", "sign in", "log on"],
        ("sign out", None): ["log out", "sign out", "log off"],
        ("spend", None): ["pay for something", "spend money", "make a payment", "send a payment"],
        ("receive", "refund"): ["get a refund", "receive a refund", "get money back"],
        ("save link", None): ["bookmark a page", "save a link", "save a bookmark"],
        ("add to cart", None): ["add something to the cart", "put an item in the basket", "add an item to the cart"],
        ("land on", None): ["switch to another app", "move to a different site", "change to another tool"],
        ("pipeline", "started"): ["start a build", "trigger the pipeline", "kick off a build"],
        ("pipeline", "passed"): ["get a green build", "see the pipeline pass", "get a passing build"],
        ("pipeline", "failed"): ["get a red build", "see the pipeline fail", "get a failing build"],
        ("claim ticket", None): ["take a ticket", "grab a bug ticket", "claim a ticket", "pick up a bug ticket"],
        ("resolve ticket", None): ["close a ticket", "resolve a ticket", "mark a bug as fixed"],
        ("back off", None): ["wait out a rate limit", "back off", "pause before retrying"],
        ("read mail", None): ["read an email", "open a mail", "read a message"],
        ("send mail", None): ["send an email", "reply to a mail", "send a reply"],
        ("new branch", None): ["create a branch", "start a new branch", "check out a new branch"],
        ("close tab", None): ["close a tab", "shut a browser tab", "close a single browser tab"],
        ("close other tabs", None): ["close all the other tabs", "clean up the browser tabs", "close every other tab"],
        ("rebase", None): ["rebase", "pull with rebase", "rebase the branch"],
    }
    for q in sorted(seen.get("look up", set())):
        events[("look up", q)] = [f"search for '{q}'", f"look up '{q}'", f"google '{q}'", f"search the web for '{q}'"]
    for button in sorted(seen.get("press", set())):
        events[("press", button)] = [f"click '{button}'", f"press the '{button}' button", f"hit '{button}'", f"click the {button} button"]
    for fld in sorted(seen.get("type into", set())):
        events[("type into", fld)] = [f"fill in the {fld}", f"type into the {fld}", f"enter something in the {fld}"]
    for ep in sorted(seen.get("hit endpoint", set())):
        events[("hit endpoint", ep)] = [f"call {ep}", f"send a request to {ep}", f"hit {ep}", f"query {ep}"]
    for suite in ("unit tests", "integration tests"):
        events[("run suite", suite)] = [f"run the {suite}", f"kick off the {suite}", f"execute the {suite}", f"launch the {suite}"]
    for f in FILES:
        events[("modify", f)] = [f"edit {f}", f"change {f}", f"modify {f}", f"touch {f}"]
    for err in ["AssertionError", "ImportError", "TypeError", "KeyError", "wrong password", "404 not found", "merge conflict",
                "lint error", "card declined", "timeout", "HTTP 500", "rate limit", "session expired"]:
        named = err if "error" in err.lower() else f"{err} error"
        events[("run into", err)] = [f"get {_a(named)}", f"hit {_a(named)}", f"run into {_a(named)}", f"see {_a(named)}"]
    for what in sorted(seen.get("try again", set())):
        events[("try again", what)] = [f"retry the {what}", f"try the {what} again", f"redo the {what}"]
    for site in ("storefront", "online bank", "profile settings"):
        events[("sign in", site)] = [f"log in to the {site}", f"sign in to the {site}", f"log on to the {site}"]
        events[("sign out", site)] = [f"log out of the {site}", f"sign out of the {site}"]
    for payee in ["storefront", *RECIPIENTS]:
        events[("spend", payee)] = [f"pay the {payee}" if payee != "Sam" else "pay Sam", f"send money to the {payee}" if payee != "Sam"
                                    else "send money to Sam", f"make a payment to the {payee}" if payee != "Sam" else "make a payment to Sam"]
    for item in PRODUCTS:
        one = {"coffee beans": "a bag of coffee beans", "headphones": "a pair of headphones"}.get(item, _a(item))
        events[("add to cart", item)] = [f"add {one} to the cart", f"put {one} in the basket", f"add the {item} to the cart"]
    for region in REGIONS:
        events[("land on", region)] = [f"switch to the {region}", f"go to the {region}", f"open the {region}", f"move over to the {region}"]
    for ticket in sorted(seen.get("claim ticket", set())):
        events[("claim ticket", ticket)] = [f"take ticket {ticket}", f"claim {ticket}", f"assign {ticket}"]
        events[("resolve ticket", ticket)] = [f"resolve {ticket}", f"close ticket {ticket}", f"mark {ticket} fixed"]
    for page in sorted(p for p in seen.get("browse", set()) if p.startswith(("ticket", "build", "product"))):
        if page.startswith("product page "):
            page_words = f"product page for the {page[len('product page '):]}"
        else:
            page_words = page
        events[("browse", page)] = [f"open the {page_words}", f"visit the {page_words}", f"load the {page_words}"]
    for subject, sender in MAILS:
        events[("read mail", subject)] = [f"read the '{subject}' mail", f"open the email '{subject}'"]
        events[("send mail", sender)] = [f"send a mail to {sender}", f"reply to {sender}", f"email {sender}"]
    for branch in sorted(seen.get("new branch", set())):
        events[("new branch", branch)] = [f"create the branch {branch}", f"check out {branch} as a new branch"]
        events[("push", branch)] = [f"push {branch}", f"push the branch {branch}", f"push to {branch}"]
    nouns: dict[tuple[str, str | None], list[str]] = {
        ("run suite", None): ["test run", "run of the test suite"], ("check in", None): ["commit"],
        ("run into", None): ["error", "failure"], ("try again", None): ["retry"], ("push", None): ["push"],
        ("look up", None): ["web search"], ("modify", None): ["file edit", "edit"], ("sign in", None): ["login"],
        ("spend", None): ["payment"], ("pipeline", "passed"): ["green build"], ("pipeline", "failed"): ["red build"],
        ("save link", None): ["bookmark"], ("back off", None): ["back-off pause"],
    }
    state_q = {
        "tests passed": ["how many tests were passing", "how many tests passed", "what was {poss} passing-test count",
                         "how many tests were green"],
        "tests failing": ["how many tests were failing", "how many tests failed", "how many red tests were there"],
        "build status": ["what was the build status", "what state was the build in", "how did the build look", "what did the CI say"],
        "logged in": ["{was} {S} logged in", "{was} {S} signed in", "did {S} have an active session"],
        "balance": ["what was {poss} account balance", "how much money did {S} have", "what was the bank balance",
                    "how much was in {poss} account"],
        "open tabs": ["how many tabs did {S} have open", "how many browser tabs were open", "what was {poss} tab count"],
        "branch": ["which branch {was} {S} on", "what git branch was checked out", "what branch {was} {S} working on"],
        "job": ["what job {was} {S} doing", "what was {poss} current job", "what {was} {S} working on", "which assignment {was} {S} on"],
    }
    states = {"tests passed": ["passing-test count", "number of passing tests"], "tests failing": ["failing-test count", "number of failing tests"],
              "build status": ["build status", "CI status"], "logged in": ["session"], "open tabs": ["tab count", "number of open tabs"],
              "branch": ["branch", "checked-out branch"], "job": ["current job", "assignment"], "balance": ["balance", "account balance"]}
    slot_q = {
        "action": ["what did {S} do", "what command did {S} run", "which action did {S} take", "what exactly did {S} do"],
        "location": ["where {was} {S}", "which site or app {was} {S} in", "what area {was} {S} working in", "which tool {was} {S} using"],
        "inventory": ["what {was} {S} holding", "what was in {poss} cart and stash", "what did {S} have saved (cart, tokens, bookmarks)",
                      "what items did {S} have"],
        "item": ["how many {P} did {S} have", "how many {P} were there", "what was {poss} count of {P}", "how many {P} had {S} got"],
        "facing": ["what was on {poss} screen", "what {was} {S} looking at", "which screen was open", "what did {S} have on screen"],
        "events": ["what happened", "what events occurred", "which events were logged", "what went on"],
    }
    items = {"bookmark": ["bookmarks", "saved links"], "api token": ["API tokens", "access tokens"],
             "unpushed commit": ["unpushed commits", "local commits not yet pushed"], "coupon code": ["coupon codes", "coupons"],
             **{p: [f"{p}s" if not p.endswith(("s", "h")) else p, f"{p} units"] for p in PRODUCTS}}
    items["coffee beans"] = ["bags of coffee beans", "coffee bean bags"]
    items["headphones"] = ["pairs of headphones"]
    return Lexicon(events=events, items=items, states=states, state_q=state_q, slot_q=slot_q,
                   subjects=subjects("Ada", "she"), nouns=nouns,
                   kind_verbs={"look up": ["search for", "look up"], "modify": ["edit", "change"], "run into": ["run into"],
                               "press": ["click", "press"], "type into": ["fill in", "type into"], "add to cart": ["add to the cart"],
                               "land on": ["switch to", "visit"], "hit endpoint": ["call"], "spend": ["pay"]},
                   bools={"logged in": ("logged in", "logged out")},
                   cond_items=["bookmark", "unpushed commit", "api token"])


TEMPLATES: dict[str, list[str]] = {
    "f1": ["{Q} at step {N}?", "At step {N}, {Q}?", "{Q} in step {N}?", "Right at step {N}: {Q}?", "{Q} when the log hit step {N}?",
           "For step {N}, {Q}?"],
    "f2": ["{Q} {W}?", "{W}, {Q}?", "{Q}, {W}?", "Remind me: {Q} {W}?"],
    "f2_step": ["When {D}?", "At which step {D}?", "Which step was it {W}?", "At what step number {D}?", "In which step {D}?"],
    "f3": ["{Q} {W}?", "{W}, {Q}?", "{Q}, {W}?", "Remind me, {Q} {W}?"],
    "f3_step": ["When {D}?", "At which step {D}?", "Which step was it {W}?", "Step index, please: when {D}?"],
    "f4": ["{Q} {W}?", "{W}, {Q}?", "{Q}, {W}?", "{Q} — {W}?"],
    "f4_step": ["When {D}?", "At which step {D}?", "What step {D}?", "At what step number {D}?"],
    "f5": ["{Q} {W}?", "{W}, {Q}?", "{Q}, {W}?", "{Q} — {W}?"],
    "f6": ["{Q} {W}?", "{W}, {Q}?", "{Q}, {W}?", "About {W}: {Q}?"],
    "f6_step": ["When {D}?", "At which step {D}?", "Which step was it {W}?", "At what step number {D}?"],
    "f7": ["How many times did {S} {X} {WIN}?", "{WIN}, how many times did {S} {X}?", "How often did {S} {X} {WIN}?",
           "How many times had {S} {XPP} {WIN}?", "Count how often {S} {XP} {WIN}.", "What's the count of times {S} {XP} {WIN}?"],
    "f7_list": ["What did {S} {V} {WIN}?", "Which things did {S} {V} {WIN}?", "List everything {S} {VP} {WIN}.",
                "{WIN}, what did {S} {V}?"],
    "f8": ["Which came first: {A} or {B}?", "Which was earlier, {A} or {B}?", "What happened first — {A} or {B}?",
           "{A} or {B}: which one came first?", "Did {A} or {B} come first?"],
    "f9": ["How many steps were there between {A} and {B}?", "How many steps passed from {A} to {B}?", "How long after {AW} did {S} {BD}?",
           "How many steps after {AW} did {S} {BD}?", "What's the step gap between {A} and {B}?"],
    "f10": ["Did {S} ever {X} {WIN}?", "{WIN}, did {S} {X}?", "Had {S} {XPP} {WIN}?", "Was there any time {WIN} that {S} {XP}?",
            "Did {S} {X} at all {WIN}?", "Is there a record of {S} having {XPP} {WIN}?", "{has} {S} ever {XPP} {WIN}?"],
}


def build(seed: int) -> dict[str, Any]:
    """One work-day episode of seed ``seed`` and 40-80 questions about it, each answered by the reference evaluator.

    >>> data = build(7200)  # doctest: +SKIP
    >>> len(data["questions"]) >= 40  # doctest: +SKIP
    True
    """
    steps = rollout(seed)
    episode = f"webtools-{seed}"
    lex = lexicon(steps)
    matches = [Match(kind, obj) for kind, obj in lex.events]
    builder = Builder(episode, steps, lex, TEMPLATES, random.Random(seed * 7 + 3), matches)
    return {"episodes": {episode: steps}, "questions": builder.build(per_family=6)}


if __name__ == "__main__":
    self_check(build, [7200, 7201])
