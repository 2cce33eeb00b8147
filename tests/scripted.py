"""Helpers for tests that script deals: a match with given cards, actions from text."""

from arena.engine import Action, Card, Match, Rules

HANDS2 = ["3C 2H 6S", "QD KH 7C"]
HANDS4 = ["3C 2H 6S", "QD KH 7C", "JS AC 6D", "KS 7D QC"]
VIRA = "4H"  # the 5s are manilhas; none of the cards above is one


def C(text: str) -> Card:
    return Card.parse(text)


def cards(text: str) -> set[Card]:
    return {C(t) for t in text.split()}


def new_match(rules="paulista", hands=None, vira=VIRA, dealer=None, **kwargs) -> Match:
    """A match without seed, with one scripted deal."""
    r = Rules.parse(rules)
    if hands is None:
        hands = HANDS2 if r.seats == 2 else HANDS4
    m = Match(r, **kwargs)
    dealt = [[C(t) for t in h.split()] for h in hands]
    m.deal(dealt, None if vira is None else C(vira), r.seats - 1 if dealer is None else dealer)
    return m


def act(m: Match, *steps: str) -> None:
    for step in steps:
        m.apply(Action.parse(step))


def play_round(m: Match, by_seat: dict[int, str]) -> None:
    """Every seat plays its card, in whatever order the engine asks for them."""
    for _ in by_seat:
        m.apply(Action.parse("play " + by_seat[m.to_act]))


def legal(m: Match) -> set[str]:
    return {str(a) for a in m.legal_actions()}


def points(m: Match) -> tuple[int, int]:
    return m.hands[-1].result.points
