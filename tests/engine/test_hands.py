"""Hands played through scripted deals: the worked examples of docs/rules.md, the common
ground of every preset, the stake ladder, illegal actions and the timeout default.

Every expected value comes from docs/rules.md (and its "Match records" for notation), never from
running the engine. Unless a test says otherwise the dealer is the last seat, so seat 0
leads round 1.
"""

import pytest

from arena.engine import (
    ACCEPT,
    FOLD,
    RAISE,
    Action,
    IllegalAction,
    MalformedAction,
    view,
)
from tests.scripted import HANDS4, VIRA, C, act, cards, legal, new_match, play_round, points

# ---- worked examples from docs/rules.md -------------------------------------------------


def test_worked_example_vira4_3c_ties_3d_and_round_2_decides():
    m = new_match(hands=["3C 2H 6S", "3D KH 7C"], vira="4D")
    act(m, "play 3C", "play 3D")
    assert view(m, 0).rounds[0].winner is None
    assert m.to_act == 0  # the leader of the tied round leads again
    act(m, "play 2H", "play KH")
    assert points(m) == (1, 0)
    assert len(view(m, 0).rounds) == 2


def test_worked_example_vira4_manilha_5d_beats_a_3():
    m = new_match(hands=["3C 2H 6S", "5D KH 7C"], vira="4S")
    act(m, "play 3C", "play 5D")
    assert view(m, 0).rounds[0].winner == 1


def test_worked_example_round2_covered_3d_loses_to_open_4s():
    m = new_match(hands=["2C 3D QH", "JC 4S KD"], vira="KH")  # the aces are manilhas
    act(m, "play 2C", "play JC")
    assert m.to_act == 0
    act(m, "play 3D covered", "play 4S")
    seen = view(m, 1).rounds[1]
    assert seen.winner == 1
    assert seen.plays[0].card is None and seen.plays[0].covered  # never revealed
    assert m.to_act == 1
    act(m, "play KD", "play QH")
    assert points(m) == (0, 1)


def test_worked_example_two_covered_cards_tie():
    m = new_match(hands=["2C 3D QH", "JC 4S KD"], vira="KH")
    act(m, "play 2C", "play JC", "play 3D covered", "play 4S covered")
    assert view(m, 0).rounds[1].winner is None
    assert points(m) == (1, 0)  # won round 1, tied round 2: team 0 takes the hand
    assert len(view(m, 0).rounds) == 2


def test_worked_example_stake_6_ask_9_fold_scores_6():
    m = new_match(hands=["3C 2H 6S", "QD KH 7C"])
    act(m, "raise", "accept", "play 3C")  # stake 3
    act(m, "raise", "accept", "play QD")  # team 1 asked 6: stake 6; team 0 won round 1
    assert view(m, 0).stake == 6
    act(m, "raise")  # team 0 asks 9
    assert view(m, 1).pending == 9
    act(m, "fold")
    assert points(m) == (6, 0)
    assert m.score == [6, 0]


@pytest.mark.parametrize(("request_value", "pays"), [(3, 1), (6, 3), (9, 6), (12, 9)])
def test_worked_example_fold_pays_the_value_before_the_request(request_value, pays):
    m = new_match()
    raises = [3, 6, 9, 12].index(request_value) + 1
    for _ in range(raises):  # seats 0 and 1 raise over each other's request
        m.apply(RAISE)
    asker = (raises - 1) % 2
    assert view(m, 0).pending == request_value
    m.apply(FOLD)
    assert points(m)[asker] == pays and points(m)[1 - asker] == 0


def test_worked_example_score_cap_11_plus_3_shows_12():
    m = new_match(hands=["5C 5S 6D", "3C 3D 2S"], start_score=(11, 4))
    act(m, "accept", "play 5C", "play 3C", "play 5S", "play 3D")
    assert points(m) == (3, 0)  # the hand's full value
    assert m.score == [12, 4]
    assert m.outcome.winner == 0


def test_score_cap_after_an_accepted_truco():
    m = new_match(hands=["5C 5S 6D", "3C 3D 2S"], start_score=(10, 0))
    act(m, "raise", "accept", "play 5C", "play 3C", "play 5S", "play 3D")
    assert points(m) == (3, 0)
    assert m.score == [12, 0]


# ---- common ground: turns, teams, ties ----------------------------------------------


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_seat_after_the_dealer_leads_and_the_deal_passes_on(dealer):
    m = new_match("tradicional", dealer=dealer)
    assert m.to_act == (dealer + 1) % 4
    act(m, "raise", "fold")
    m.deal([[C(t) for t in h.split()] for h in HANDS4], C(VIRA))
    assert m.hand.dealer == (dealer + 1) % 4


@pytest.mark.parametrize(
    ("hands", "rounds", "expected"),
    [
        (["3C 6S 7D", "QD 6H KH"], [("3C", "QD"), ("6S", "6H")], (1, 0)),  # win, tie
        (["QC 3C 7D", "KD 2H 7S"], [("QC", "KD"), ("3C", "2H"), ("7D", "7S")], (0, 1)),
        (["3C 2C KC", "3D 2D AD"], [("3C", "3D"), ("2C", "2D"), ("KC", "AD")], (0, 1)),
    ],
    ids=["win-then-tie", "1-1-then-tie", "tie-tie-win"],
)
def test_tie_patterns(hands, rounds, expected):
    m = new_match(hands=hands)
    for mine, theirs in rounds:
        play_round(m, {0: mine, 1: theirs})
    assert points(m) == expected
    assert len(view(m, 0).rounds) == len(rounds)


# ---- the stake ladder ---------------------------------------------------------------


def test_a_team_cannot_raise_over_its_own_request():
    m = new_match("paulista")
    act(m, "raise", "accept")
    assert m.to_act == 0  # back to the requester's turn: it raised before its card
    assert "raise" not in legal(m)
    with pytest.raises(IllegalAction, match="seat 0 cannot raise over its own request"):
        m.apply(RAISE)
    act(m, "play 3C")
    assert "raise" in legal(m)  # the other team may ask 6
    act(m, "raise")
    assert view(m, 0).pending == 6


def test_a_partner_cannot_raise_over_its_teams_request():
    m = new_match("paulista:team_size=2")
    act(m, "raise", "accept", "play 3C", "play QD")
    assert m.to_act == 2 and "raise" not in legal(m)
    with pytest.raises(IllegalAction, match="cannot raise over"):
        m.apply(RAISE)
    act(m, "play JS")
    assert "raise" in legal(m)  # seat 3, team 1


def test_raise_over_a_pending_request():
    m = new_match("paulista")
    act(m, "raise")
    assert m.to_act == 1 and legal(m) == {"raise", "accept", "fold"}
    act(m, "raise")  # accepts 3 and asks 6
    v = view(m, 0)
    assert (v.stake, v.pending, v.requester) == (3, 6, 1)
    assert m.to_act == 0 and legal(m) == {"raise", "accept", "fold"}
    act(m, "accept")
    assert view(m, 0).stake == 6 and view(m, 0).pending == 0
    assert m.to_act == 0  # seat 0 still has its card to play


def test_no_raise_at_12():
    m = new_match("paulista")
    for _ in range(4):
        m.apply(RAISE)
    assert view(m, 0).pending == 12
    assert legal(m) == {"accept", "fold"}
    with pytest.raises(IllegalAction):
        m.apply(RAISE)
    act(m, "accept")
    assert view(m, 0).stake == 12
    assert m.to_act == 0 and "raise" not in legal(m)  # team 0 did not ask 12, yet no raise
    with pytest.raises(IllegalAction):
        m.apply(RAISE)


def test_raise_only_on_your_own_turn():
    m = new_match("paulista:team_size=2")
    for seat in (1, 2, 3):
        with pytest.raises(IllegalAction):
            m.apply(RAISE, seat=seat)


def test_the_asked_seat_is_the_opponent_after_the_requester():
    m = new_match("paulista:team_size=2", dealer=2)  # seat 3 leads
    act(m, "raise")
    assert m.to_act == 0
    m.apply(RAISE, seat=2)  # seat 0's partner answers by asking 6
    assert view(m, 0).requester == 2 and m.to_act == 3
    m.apply(ACCEPT, seat=1)
    assert view(m, 0).stake == 6
    assert m.to_act == 3


def test_any_seat_of_the_asked_team_may_answer():
    m = new_match("paulista:team_size=2")
    act(m, "raise")
    assert m.to_act == 1
    for seat in (0, 2):  # the requesting team cannot answer
        with pytest.raises(IllegalAction):
            m.apply(ACCEPT, seat=seat)
    m.apply(ACCEPT, seat=3)
    assert view(m, 0).stake == 3 and m.to_act == 0
    with pytest.raises(IllegalAction):
        m.apply(Action.parse("play QD"), seat=1)  # plays are by the seat in turn only


# ---- illegal actions --------------------------------------------------------------


def test_playing_a_card_not_held():
    m = new_match("paulista")
    with pytest.raises(IllegalAction, match="5C"):
        act(m, "play 5C")
    with pytest.raises(IllegalAction, match="QD"):
        act(m, "play QD")  # the opponent's card


def test_playing_a_card_twice():
    m = new_match("paulista")
    act(m, "play 3C", "play QD")
    with pytest.raises(IllegalAction, match="3C"):
        act(m, "play 3C")


def test_accepting_with_nothing_pending():
    m = new_match("paulista")
    with pytest.raises(IllegalAction, match=r"(?i)nothing to accept|no request"):
        m.apply(ACCEPT)


def test_playing_while_a_request_waits():
    m = new_match("paulista")
    act(m, "raise")
    with pytest.raises(IllegalAction):
        act(m, "play QD")


def test_acting_before_the_special_decision():
    m = new_match("paulista", start_score=(11, 0))
    for step in ("play 3C", "raise"):
        with pytest.raises(IllegalAction):
            act(m, step)


def test_acting_after_the_hand_is_over():
    m = new_match("paulista")
    act(m, "raise", "fold")
    assert m.legal_actions() == []
    with pytest.raises(IllegalAction):
        act(m, "play 3C")
    with pytest.raises(IllegalAction):
        m.default_action()


def test_illegal_and_malformed_are_different_value_errors():
    m = new_match("paulista")
    with pytest.raises(MalformedAction):
        m.apply(Action.parse("dance"))
    with pytest.raises(IllegalAction) as caught:
        act(m, "play 5C")
    assert isinstance(caught.value, ValueError)
    assert not isinstance(caught.value, MalformedAction)


# ---- default_action ---------------------------------------------------------------


def test_default_plays_the_weakest_open_card():
    m = new_match("paulista", hands=["5D 6C 3S", "QD KH 7C"])  # vira 4: 5D is a manilha
    assert m.default_action() == Action.play(C("6C"))
    act(m, "play 6C", "play 7C")
    assert m.to_act == 1  # round 2: covered cards are allowed now, the default stays open
    assert any(a.covered for a in m.legal_actions())
    assert m.default_action() == Action.play(C("QD"))


def test_default_folds_a_pending_request():
    m = new_match("paulista")
    act(m, "raise")
    assert m.default_action() == FOLD
    m.apply(m.default_action())
    assert points(m) == (1, 0)


def test_default_plays_the_special_hand():
    m = new_match("paulista", start_score=(11, 4))
    assert m.default_action() == ACCEPT
    m.apply(m.default_action())
    assert view(m, 0).stake == 3


def test_default_in_the_blind_hand_is_a_legal_slot():
    m = new_match("paulista", start_score=(11, 11))
    assert m.default_action() in m.legal_actions()
    assert m.default_action().slot is not None


def test_a_view_shows_the_cards_in_the_order_dealt_not_sorted():
    """The order carries nothing (the deal is random), but a bot that plays "my first
    card" plays the first dealt here as anywhere else: a view's cards are in the order
    dealt, before and after one of them is played. The legal actions keep Card's order."""
    m = new_match(hands=["6S 3C 2H", "QD KH 7C"])  # dealer 1: seat 0 leads
    order = [str(c) for c in view(m, 0).cards]
    assert order == ["6S", "3C", "2H"]
    assert order != [str(c) for c in sorted(view(m, 0).cards, key=lambda c: c.index)]
    plays = [str(a) for a in m.legal_actions() if a.card is not None]
    assert plays == [f"play {c}" for c in sorted(cards("6S 3C 2H"), key=lambda c: c.index)]
    act(m, "play 3C")
    assert [str(c) for c in view(m, 1).cards] == ["QD", "KH", "7C"]
    act(m, "play KH")
    assert [str(c) for c in view(m, 0).cards] == ["6S", "2H"]
    assert [str(c) for c in view(m, 1).cards] == ["QD", "7C"]
