"""Cards, decks, card strength, and reading cards, actions and rules from text, checked
against docs/rules.md.

Every expected value here comes from docs/rules.md ("What every preset shares", the
parameter table, the examples the sources work through, and "Match records" for the card
and action notation), never from running the engine. Play itself is tested in test_hands.py.
"""

import itertools
import json

import pytest

from arena.engine import (
    ACCEPT,
    ALL_CARDS,
    FOLD,
    RAISE,
    Action,
    Card,
    Deck,
    IllegalAction,
    MalformedAction,
    Manilha,
    Rules,
    RulesError,
    strength_table,
)

PLAIN_ORDER_40 = ["4", "5", "6", "7", "Q", "J", "K", "A", "2", "3"]
PLAIN_ORDER_52 = ["4", "5", "6", "7", "8", "9", "10", "Q", "J", "K", "A", "2", "3"]
SUITS_WEAK_TO_STRONG = ["D", "S", "H", "C"]  # ouros < espadas < copas < paus


def C(text: str) -> Card:
    return Card.parse(text)


def strength_of(vira: str | None, deck: Deck = Deck.STD40, manilha: Manilha = Manilha.NOVA):
    table = strength_table(deck, manilha, None if vira is None else C(vira))
    return lambda text: table[C(text).index]


# ---- card text ----------------------------------------------------------------------


def test_all_52_cards_round_trip_through_text():
    texts = [r + s for r in PLAIN_ORDER_52 for s in "CHSD"]
    assert len(set(texts)) == 52
    assert {str(c) for c in ALL_CARDS} == set(texts)
    for text in texts:
        assert str(Card.parse(text)) == text


def test_lower_case_is_parsed_and_output_is_upper_case():
    for card in ALL_CARDS:
        assert Card.parse(str(card).lower()) == card
    assert str(Card.parse("10h")) == "10H"
    assert str(Card.parse("qs")) == "QS"
    assert Card.parse("aD") == Card.parse("AD")


def test_repr_reads_as_code():
    for card in ALL_CARDS:
        assert eval(repr(card), {"Card": Card}) == card


@pytest.mark.parametrize("text", ["11X", "1C", "10", "C4", "", "4CC", "4X", "8 C", "ZC"])
def test_unreadable_card_is_malformed(text):
    with pytest.raises(MalformedAction):
        Card.parse(text)


def test_malformed_action_is_a_value_error():
    with pytest.raises(ValueError):
        Card.parse("11X")


# ---- decks ------------------------------------------------------------------------


def test_deck_contents():
    def ranks(deck):
        return {str(c)[:-1] for c in deck.cards}

    assert len(Deck.STD40.cards) == 40
    assert ranks(Deck.STD40) == set(PLAIN_ORDER_40)
    assert len(Deck.SUJO52.cards) == 52
    assert ranks(Deck.SUJO52) == set(PLAIN_ORDER_52)
    assert len(Deck.SHORT24.cards) == 24
    assert ranks(Deck.SHORT24) == {"Q", "J", "K", "A", "2", "3"}


# ---- common ground: plain order, ties, manilhas ---------------------------------------


@pytest.mark.parametrize("vira_rank", PLAIN_ORDER_40)
def test_plain_ranks_keep_their_order_and_suits_never_break_plain_ties(vira_rank):
    manilha_rank = PLAIN_ORDER_40[(PLAIN_ORDER_40.index(vira_rank) + 1) % 10]
    s = strength_of(vira_rank + "H")
    plain = [r for r in PLAIN_ORDER_40 if r != manilha_rank]
    for weaker, stronger in itertools.pairwise(plain):
        assert s(weaker + "C") < s(stronger + "D")
    for rank in plain:
        assert len({s(rank + suit) for suit in "CHSD"}) == 1


@pytest.mark.parametrize("vira_rank", PLAIN_ORDER_40)
def test_manilhas_beat_every_plain_card_and_never_tie(vira_rank):
    manilha_rank = PLAIN_ORDER_40[(PLAIN_ORDER_40.index(vira_rank) + 1) % 10]
    s = strength_of(vira_rank + "S")
    manilhas = [manilha_rank + suit for suit in SUITS_WEAK_TO_STRONG]
    values = [s(m) for m in manilhas]
    assert values == sorted(values) and len(set(values)) == 4
    strongest_plain = max(s(str(c)) for c in Deck.STD40.cards if str(c) not in manilhas)
    assert values[0] > strongest_plain


# ---- worked examples from the rule sources (docs/rules.md) ---------------------------------


@pytest.mark.parametrize(
    ("vira", "manilha_rank"),
    [("4", "5"), ("3", "4"), ("2", "3")],
    ids=["vira4-fives", "vira3-fours", "vira2-threes"],
)
@pytest.mark.parametrize("vira_suit", ["C", "H", "S", "D"])
def test_worked_example_manilha_order_for_vira(vira, manilha_rank, vira_suit):
    # Vira 4 -> the 5s; 5C > 5H > 5S > 5D > any 3. Vira 3 -> the 4s. Vira 2 -> the 3s.
    s = strength_of(vira + vira_suit)
    zap, copas, espadilha, ouros = (manilha_rank + x for x in "CHSD")
    assert s(zap) > s(copas) > s(espadilha) > s(ouros)
    others = [str(c) for c in Deck.STD40.cards if str(c)[:-1] != manilha_rank]
    assert all(s(ouros) > s(card) for card in others)
    if manilha_rank != "3":
        assert all(s(ouros) > s("3" + suit) for suit in "CHSD")


def test_worked_example_vira4_3c_ties_3d():
    s = strength_of("4H")
    assert s("3C") == s("3D")
    assert s("3C") == s("3H") == s("3S")


def test_worked_example_manilha_velha_order():
    # 4C > 7H > AS > 7D > 3S; 7S is a plain 7.
    s = strength_of(None, manilha=Manilha.VELHA)
    assert s("4C") > s("7H") > s("AS") > s("7D") > s("3S")
    assert s("7S") == s("7C")  # a plain 7: ties the other plain 7
    assert s("6C") < s("7S") < s("QD")
    assert s("4D") < s("5D")  # the other 4s are plain, the weakest rank
    assert s("AH") == s("AD") < s("2C")  # the other aces are plain


def test_worked_example_sujo52_order():
    # Deck sujo52: 7 < 8 < 9 < 10 < Q (vira K: the manilhas are the aces, out of the way).
    s = strength_of("KH", deck=Deck.SUJO52)
    assert s("7C") < s("8C") < s("9C") < s("10C") < s("QC")
    for weaker, stronger in itertools.pairwise(PLAIN_ORDER_52):
        if "A" not in (weaker, stronger):
            assert s(weaker + "D") < s(stronger + "S")


def test_sujo52_manilha_is_the_rank_after_the_vira_in_that_deck():
    # With 8 9 10 between 7 and Q, the rank after a 7 is the 8 (sujo52) or Q (std40).
    sujo = strength_of("7H", deck=Deck.SUJO52)
    assert sujo("8D") > sujo("3C") and sujo("QD") < sujo("3C")
    std = strength_of("7H")
    assert std("QD") > std("3C")
    after_ten = strength_of("10H", deck=Deck.SUJO52)
    assert after_ten("QD") > after_ten("3C")


# ---- actions from text ----------------------------------------------------------------


def test_action_parse():
    assert Action.parse("play 5C") == Action.play(C("5C"))
    assert Action.parse("play 2d covered") == Action.play(C("2D"), covered=True)
    assert Action.parse("play 10h") == Action.play(C("10H"))
    assert Action.parse("raise") == RAISE
    assert Action.parse("accept") == ACCEPT
    assert Action.parse("fold") == FOLD
    assert Action.parse("play slot 1").slot == 1
    for text in ("play 5C", "play 2D covered", "play slot 2", "raise", "accept", "fold"):
        assert str(Action.parse(text)) == text


@pytest.mark.parametrize(
    "text",
    ["dance", "", "play", "play 11X", "play 5C face-down", "raise now", "accept 5C", "truco"],
)
def test_unreadable_action_is_malformed_not_illegal(text):
    with pytest.raises(MalformedAction) as caught:
        Action.parse(text)
    assert not isinstance(caught.value, IllegalAction)


# ---- rules from text ------------------------------------------------------------------

PRESETS = ["paulista", "inteligente", "solver", "tradicional", "megajogos"]


@pytest.mark.parametrize(
    ("name", "team_size", "deck", "special_at", "games", "fold_hand"),
    [
        ("paulista", 1, "std40", 11, 1, True),
        ("inteligente", 1, "std40", 11, 1, False),
        ("solver", 1, "std40", 11, 1, True),
        ("tradicional", 2, "std40", 10, 3, False),
        ("megajogos", 2, "std40", 11, 1, False),
    ],
)
def test_preset_values_from_the_table(name, team_size, deck, special_at, games, fold_hand):
    rules = Rules.preset(name)
    assert rules.team_size == team_size
    assert rules.deck == Deck(deck) and rules.manilha == Manilha.NOVA
    assert rules.special_at == special_at
    assert rules.games_per_match == games
    assert rules.fold_hand is fold_hand
    assert rules.score_cap == 12


def test_special_partner_view_by_preset():
    assert Rules.preset("paulista").special_partner_view is True
    assert Rules.preset("tradicional").special_partner_view is True
    assert Rules.preset("megajogos").special_partner_view is False


def test_default_preset_is_paulista():
    assert Rules() == Rules.preset("paulista")
    assert Rules.parse("") == Rules.preset("paulista")


def test_override_changes_only_that_parameter():
    base = Rules.preset("paulista")
    rules = Rules.parse("paulista:team_size=2")
    assert rules.team_size == 2 and rules.seats == 4
    assert {k: v for k, v in rules.parameters().items() if k != "team_size"} == {
        k: v for k, v in base.parameters().items() if k != "team_size"
    }


@pytest.mark.parametrize(
    "text",
    [
        *PRESETS,
        "paulista:team_size=2",
        "paulista:team_size=4",
        "inteligente:deck=sujo52,manilha=velha",
        "inteligente:all_tied=suit",
        "tradicional:deck=short24",
        "tradicional:deck=short24,team_size=3",
        "megajogos:covered=off,fold_hand=true",
        "solver:special_at=10,games_per_match=3",
        "paulista:both_at_special=open,both_at_special_value=3",
        "tradicional:partner_tie_lead=lower_seat",
        "megajogos:covered_after_partner=banned",
        "paulista:team_size=2,raise_answer=any_accepts",
        "solver:stake_cap=trailing_needs",
        "inteligente:raise_answer=any_accepts,stake_cap=trailing_needs,"
        "covered_after_partner=banned,partner_tie_lead=lower_seat",
    ],
)
def test_rules_text_round_trip(text):
    rules = Rules.parse(text)
    assert Rules.parse(str(rules)) == rules
    assert str(Rules.parse(str(rules))) == str(rules)
    assert Rules.from_json(rules.to_json()) == rules
    assert Rules.from_json(json.loads(json.dumps(rules.to_json()))) == rules


def test_the_parameters_of_issue_36_default_to_what_was_played_before():
    # a record's rules written before these parameters existed name none of them
    before = {
        "partner_tie_lead": "first_to_play",
        "covered_after_partner": "allowed",
        "raise_answer": "one_seat",
        "stake_cap": "none",
    }
    for name in PRESETS:
        texts = Rules.from_json({"preset": name, "team_size": 2}).parameter_texts()
        assert {k: texts[k] for k in before} == before
    assert "raise_answer" not in str(Rules.parse("tradicional:raise_answer=one_seat"))


@pytest.mark.parametrize(
    "text",
    [
        "mineiro",
        "paulista:colour=red",
        "paulista:deck=huge",
        "paulista:manilha=nueva",
        "paulista:team_size=0",
        "paulista:team_size=5",
        "paulista:team_size=two",
        "paulista:fold_hand=maybe",
        "paulista:team_size",
        "paulista:special_at=12",
        "tradicional:deck=short24,team_size=4",  # 24 cards: 8 seats x 3 leave no vira
        "inteligente:deck=short24,manilha=velha",  # velha needs 4C, 7H and 7D
        "paulista:partner_tie_lead=higher_seat",
        "paulista:covered_after_partner=true",
        "paulista:raise_answer=both",
        "paulista:stake_cap=9",
    ],
)
def test_bad_rules_are_rejected(text):
    with pytest.raises(RulesError):
        Rules.parse(text)


def test_unknown_preset_is_rejected():
    with pytest.raises(RulesError):
        Rules.preset("mineiro")
    with pytest.raises(ValueError):
        Rules.preset("mineiro")


# ---- long input in error messages -------------------------------------------------------

LONG = "Z" * 50_000
LONG_INPUTS = [
    (lambda: Card.parse(LONG), "is not a card"),
    (lambda: Card.parse([LONG]), "a card must be text"),
    (lambda: Action.parse(LONG), "unknown action type"),
    (lambda: Action.parse("play " + LONG), "is not a card"),
    (lambda: Action.parse("raise " + LONG), "takes nothing after it"),
    (lambda: Action.parse("play 5C " + LONG), "write 'play CARD'"),
    (lambda: Action.from_json({"type": "play", "card": LONG}), "is not a card"),
    (lambda: Action.from_json({"type": LONG}), "unknown action type"),
    (lambda: Action.from_json({"type": "play", "card": "5C", "covered": LONG}), "'covered'"),
    (lambda: Action.from_json({"type": "play", "slot": LONG}), "a slot is 0, 1 or 2"),
    (lambda: Action.from_json([LONG]), "an action must be an object"),
    (lambda: Rules.parse(LONG), "unknown preset"),
    (lambda: Rules.parse("paulista:" + LONG), "write overrides as param=value"),
    (lambda: Rules.parse(f"paulista:{LONG}=1"), "unknown rule parameter"),
    (lambda: Rules.parse(f"paulista:deck={LONG}"), "deck must be one of"),
    (lambda: Rules.parse(f"paulista:fold_hand={LONG}"), "fold_hand must be true or false"),
    (lambda: Rules.parse(f"paulista:team_size={LONG}"), "team_size must be a whole number"),
    (lambda: Rules.from_json([LONG]), "rules must be a preset name or an object"),
    (lambda: Rules.from_json({"preset": "paulista", "team_size": [LONG]}), "team_size"),
]


@pytest.mark.parametrize(("read", "named"), LONG_INPUTS, ids=[n for _, n in LONG_INPUTS])
def test_errors_quote_long_input_cut_short(read, named):
    # a bot's 50 KB card comes back in its rejection: the message names the problem and
    # quotes only the start of what was sent
    with pytest.raises(ValueError) as caught:
        read()
    message = str(caught.value)
    assert named in message and "zzzz" in message.lower()
    assert len(message) < 400, message[:400]  # the cut quote, and at most the known names
