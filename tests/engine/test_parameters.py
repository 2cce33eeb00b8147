"""Each parameter that differs between presets, shown in play: the same scripted
situation under two presets (or a preset and an override) gives what docs/rules.md's table
says for each.
"""

import enum
from pathlib import Path

import pytest

from arena.engine import (
    ACCEPT,
    FOLD,
    NOTES,
    PRESET_NAMES,
    PRESETS,
    RAISE,
    Action,
    ActionType,
    IllegalAction,
    Match,
    RecordError,
    Rules,
    Termination,
    view,
)
from tests.scripted import HANDS4, VIRA, C, act, cards, legal, new_match, play_round, points

# ---- team_size ------------------------------------------------------------------------


def test_team_size_sets_the_seats():
    assert Match(Rules.preset("paulista")).n == 2
    assert Match(Rules.preset("inteligente")).n == 2
    assert Match(Rules.preset("tradicional")).n == 4
    assert Match(Rules.preset("megajogos")).n == 4
    assert Match(Rules.parse("paulista:team_size=4")).n == 8
    with pytest.raises(RecordError):
        Match(Rules.preset("paulista"), seats=["a", "b", "c", "d"])


def test_team_size_2_plays_four_cards_a_round_for_alternating_teams():
    m = new_match("tradicional")  # dealer 3: seats 0, 1, 2, 3 in order
    for seat, card in [(0, "6S"), (1, "QD"), (2, "AC")]:
        assert m.to_act == seat
        act(m, "play " + card)
    assert view(m, 0).rounds == ()  # two cards do not end a round of four seats
    act(m, "play KS")
    assert view(m, 0).rounds[0].winner == 0  # AC by seat 2, team 0
    assert m.to_act == 2

    m = new_match("paulista")
    act(m, "play 6S", "play QD")
    assert view(m, 0).rounds[0].winner == 1


def test_the_leader_of_a_tied_round_leads_the_next():
    hands = ["6S 2H QC", "3D KH 7C", "3C AC 6D", "KS 7D JS"]
    m = new_match("tradicional", hands=hands)
    act(m, "play 6S", "play 3D", "play 3C", "play KS")  # 3D (team 1) ties 3C (team 0)
    assert view(m, 0).rounds[0].winner is None
    assert m.to_act == 0


def test_partner_top_tie_goes_to_the_team():
    hands = ["3C 2H 6S", "QD KH 7C", "3S AC 6D", "KS 7D QC"]
    m = new_match("tradicional", hands=hands)
    act(m, "play 3C", "play QD", "play 3S", "play KS")
    assert view(m, 0).rounds[0].winner == 0
    assert m.to_act == 0  # the first of the partners to play that rank


# ---- deck and manilha ----------------------------------------------------------------


def test_deck_sujo52_deals_and_ranks_8_9_10():
    hands = ["9D 3C QS", "8C 10H 2D"]
    with pytest.raises(RecordError):
        new_match("inteligente", hands=hands, vira="KH")
    m = new_match("inteligente:deck=sujo52", hands=hands, vira="KH")
    act(m, "play 9D", "play 8C")
    assert view(m, 0).rounds[0].winner == 0
    act(m, "play QS", "play 10H")
    assert points(m) == (1, 0)


def test_deck_short24_has_no_4_to_7():
    high = ["QC JC KC", "QD JD KD", "QH JH KH", "QS JS KS"]
    new_match("tradicional", hands=high, vira="AC")  # a short24 deal is a std40 deal too
    new_match("tradicional:deck=short24", hands=high, vira="AC")
    new_match("tradicional", hands=HANDS4)
    with pytest.raises(RecordError):
        new_match("tradicional:deck=short24", hands=HANDS4)


def test_manilha_velha_against_nova():
    hands = ["4C QS JS", "3D KH 2C"]
    nova = new_match("inteligente", hands=hands, vira="KD")  # the aces are manilhas
    act(nova, "play 4C", "play 3D")
    assert view(nova, 0).rounds[0].winner == 1
    velha = new_match("inteligente:manilha=velha", hands=hands, vira=None)
    act(velha, "play 4C", "play 3D")  # 4C is the zap
    assert view(velha, 0).rounds[0].winner == 0
    with pytest.raises(RecordError):
        new_match("inteligente:manilha=velha", hands=hands, vira="KD")
    with pytest.raises(RecordError):
        new_match("inteligente", hands=hands, vira=None)


# ---- all_tied -------------------------------------------------------------------------

ALL_TIED = ["3C 2C KD", "3D 2D KC", "3H 2H KS", "3S 2S KH"]  # KC, the top suit, is seat 1's


@pytest.mark.parametrize(
    ("rules", "expected", "next_dealer"),
    [
        ("paulista", (0, 0), 0),  # nobody scores; the deal passes on as after every hand
        ("inteligente", (0, 0), None),  # replay: nobody scores, deal again
        ("inteligente:all_tied=suit", (0, 1), 0),
        ("solver", (1, 0), 0),  # the leader of round 1 (seat 0)
        ("tradicional", (1, 0), 2),  # the team opposite the dealer (seat 1)
        ("paulista:all_tied=dealer_opponent", (1, 0), 0),
        ("megajogos", (0, 0), 2),
    ],
)
def test_all_tied(rules, expected, next_dealer):
    n = Rules.parse(rules).seats
    hands = ALL_TIED[:n]
    m = new_match(rules, hands=hands, dealer=1)
    for r in range(3):
        play_round(m, {s: hands[s].split()[r] for s in range(n)})
    assert [x.winner for x in view(m, 0).rounds] == [None, None, None]
    assert points(m) == expected
    assert m.outcome is None and m.needs_deal
    if next_dealer is not None:  # docs/rules.md does not say who deals the replay
        m.deal([[C(t) for t in h.split()] for h in hands], C(VIRA))
        assert m.hand.dealer == next_dealer


# ---- covered ------------------------------------------------------------------------

F, T = False, True


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        ("paulista", [F, F, T, T]),
        ("inteligente", [F, T, F, T]),
        ("solver", [F, F, T, T]),
        ("tradicional", [F, F, F, F]),
        ("megajogos", [F, F, T, T]),
        ("paulista:covered=off", [F, F, F, F]),
    ],
)
def test_covered_offered_by_round_and_position(rules, expected):
    # [round 1 first card, round 1 second card, round 2 first card, round 2 second card]
    m = new_match(rules)
    seen = []
    for _round in range(2):
        for position in range(m.n):
            offered = any(a.covered for a in m.legal_actions())
            if position < 2:
                seen.append(offered)
            if not offered:
                some = next(a for a in m.legal_actions() if a.type is ActionType.PLAY)
                with pytest.raises(IllegalAction):
                    m.apply(Action.play(some.card, covered=True))
            m.apply(next(a for a in m.legal_actions() if a.type is ActionType.PLAY))
    assert seen == expected


def test_covered_card_is_hidden_from_every_view():
    m = new_match("inteligente")
    act(m, "play 3C", "play QD covered")
    for seat in (0, 1):
        plays = view(m, seat).rounds[0].plays
        assert plays[1].covered and plays[1].card is None
        assert C("QD") not in view(m, seat).visible_cards()
    assert view(m, 0).rounds[0].winner == 0


# ---- fold_hand ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "allowed"),
    [
        ("paulista", True),
        ("inteligente", False),
        ("solver", True),
        ("tradicional", False),
        ("megajogos", False),
        ("paulista:fold_hand=false", False),
        ("inteligente:fold_hand=true", True),
    ],
)
def test_fold_hand_on_own_turn(rules, allowed):
    m = new_match(rules)
    assert ("fold" in legal(m)) is allowed
    if allowed:
        m.apply(FOLD)
        assert points(m) == (0, 1)
    else:
        with pytest.raises(IllegalAction):
            m.apply(FOLD)


def test_fold_hand_pays_the_accepted_value():
    m = new_match("paulista")
    act(m, "raise", "accept", "play 3C")
    assert "fold" in legal(m)
    act(m, "fold")  # seat 1 gives up a hand worth 3
    assert points(m) == (3, 0)


def test_solver_folds_on_any_turn():
    m = new_match("solver")
    act(m, "play 3C")
    assert "fold" in legal(m)  # the second card of round 1


# ---- special_at and the special-hand decision ------------------------------------------


@pytest.mark.parametrize(
    ("rules", "special"),
    [
        ("tradicional", True),
        ("tradicional:special_at=11", False),
        ("paulista", False),
        ("paulista:special_at=10", True),
    ],
)
def test_special_at(rules, special):
    m = new_match(rules, start_score=(10, 3))
    if special:
        assert legal(m) == {"accept", "fold"}
    else:
        assert "raise" in legal(m) and "play 3C" in legal(m)


def test_special_hand_fold_gives_the_opponents_1():
    m = new_match("paulista", start_score=(11, 4))
    assert legal(m) == {"accept", "fold"}
    act(m, "fold")
    assert points(m) == (0, 1)
    assert m.score == [11, 5] and m.outcome is None


def test_special_hand_accept_makes_it_worth_3():
    m = new_match("paulista", hands=["3C 3D 2S", "5C 5S 6D"], start_score=(11, 4))
    act(m, "accept")
    assert view(m, 0).stake == 3
    act(m, "play 3C", "play 5C", "play 5S", "play 3D")
    assert points(m) == (0, 3)
    assert m.score == [11, 7]


def test_special_hand_is_decided_by_the_team_at_11_from_any_seat():
    m = new_match("paulista:team_size=2", start_score=(4, 11))  # seat 0 (team 0) leads
    assert m.to_act % 2 == 1
    with pytest.raises(IllegalAction):
        m.apply(ACCEPT, seat=0)
    m.apply(ACCEPT, seat=3)
    assert view(m, 0).stake == 3
    assert m.to_act == 0


def test_folding_the_hand_of_11_after_choosing_to_play_pays_3():
    m = new_match("paulista", start_score=(11, 4))
    act(m, "accept", "fold")
    assert points(m) == (0, 3)


def test_solver_special_hand_decided_by_the_player_with_11():
    m = new_match("solver", start_score=(4, 11))
    assert m.to_act == 1
    act(m, "accept")
    assert m.to_act == 0


# ---- special_partner_view ------------------------------------------------------------

SPECIAL4 = ["5C 6D 7S", "3C 3D 2S", "QH JH KH", "AC AD 2C"]


def test_a_normal_hand_shows_only_your_own_cards():
    m = new_match("paulista:team_size=2")
    for seat in range(4):
        assert view(m, seat).partners == ()
        assert view(m, seat).visible_cards() == cards(HANDS4[seat]) | {C(VIRA)}


@pytest.mark.parametrize(
    ("rules", "shown"),
    [("paulista:team_size=2", True), ("tradicional", True), ("megajogos", False)],
)
def test_special_partner_view(rules, shown):
    at = Rules.parse(rules).special_at
    m = new_match(rules, hands=SPECIAL4, start_score=(at, 4))
    for seat, partner in [(0, 2), (2, 0)]:
        v = view(m, seat)
        expected = {partner: cards(SPECIAL4[partner])} if shown else {}
        assert {s: set(cs) for s, cs in v.partners} == expected
        assert not v.visible_cards() & (cards(SPECIAL4[1]) | cards(SPECIAL4[3]))
    for seat in (1, 3):  # the other team never sees its partners' cards here
        assert view(m, seat).partners == ()
        assert view(m, seat).visible_cards() == cards(SPECIAL4[seat]) | {C(VIRA)}
    act(m, "accept")
    play_round(m, {0: "5C", 1: "3C", 2: "QH", 3: "AC"})
    expected = {2: cards("JH KH")} if shown else {}
    assert {s: set(cs) for s, cs in view(m, 0).partners} == expected  # the whole hand


# ---- special_raise ------------------------------------------------------------------


@pytest.mark.parametrize("rules", ["paulista", "solver"])
def test_special_raise_illegal(rules):
    m = new_match(rules, start_score=(11, 4))
    act(m, "accept")
    for _ in range(2):  # both sides
        assert "raise" not in legal(m)
        with pytest.raises(IllegalAction):
            m.apply(RAISE)
        m.apply(next(a for a in m.legal_actions() if a.type is ActionType.PLAY))


@pytest.mark.parametrize("raiser", [0, 1])
def test_megajogos_raise_in_hand_of_11_loses_the_match(raiser):
    m = new_match("megajogos", hands=SPECIAL4, start_score=(11, 4))
    act(m, "accept")
    if raiser == 1:
        act(m, "play 5C")
    assert "raise" in legal(m)
    act(m, "raise")
    assert m.outcome.winner == 1 - raiser
    assert m.outcome.termination is Termination.PENALTY
    assert m.hands[-1].result.reason


def test_tradicional_raise_by_the_team_at_10_loses_the_hand():
    m = new_match("tradicional", hands=SPECIAL4, start_score=(10, 4))
    act(m, "accept", "raise")
    assert points(m) == (0, 3)
    assert m.score == [10, 7] and m.outcome is None


def test_tradicional_raise_by_the_other_team_gives_the_team_at_10_the_win():
    # start_games (1, 0): winning this game also wins the best-of-3 match.
    m = new_match("tradicional", hands=SPECIAL4, start_score=(10, 4), start_games=(1, 0))
    act(m, "accept", "play 5C", "raise")
    assert m.outcome.winner == 0
    assert m.outcome.termination is Termination.PENALTY
    assert m.hands[-1].result.reason


# ---- both_at_special --------------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "blind", "value"),
    [
        ("paulista", True, 1),
        ("inteligente", True, 1),
        ("solver", False, 3),
        ("tradicional:team_size=1", False, 3),
        ("megajogos:team_size=1", True, 3),
        ("paulista:both_at_special=open,both_at_special_value=3", False, 3),
    ],
)
def test_both_at_special(rules, blind, value):
    at = Rules.parse(rules).special_at
    m = new_match(rules, hands=["5C 6D 7S", "3C 3D 2S"], start_score=(at, at))
    v = view(m, 0)
    assert "raise" not in legal(m) and "accept" not in legal(m)
    if blind:
        assert v.cards == () and v.slots == (0, 1, 2)
        assert legal(m) == {"play slot 0", "play slot 1", "play slot 2"}
        with pytest.raises(IllegalAction):
            act(m, "play 5C")  # the card is unseen: a blind play names a slot
        act(m, "play slot 0")
        assert view(m, 1).table[0].card == C("5C")  # seen as it falls on the table
        act(m, "play slot 0")
        assert view(m, 0).rounds[0].winner == 0
        assert legal(m) == {"play slot 1", "play slot 2"}  # still no covered, no fold
        with pytest.raises(IllegalAction):
            act(m, "play slot 0")
        act(m, "play slot 1", "play slot 1", "play slot 2", "play slot 2")
    else:
        assert set(v.cards) == cards("5C 6D 7S")
        assert not any(a.slot is not None for a in m.legal_actions())
        act(m, "play 5C", "play 3C", "play 6D", "play 3D", "play 2S", "play 7S")
    assert points(m) == (0, value)


@pytest.mark.parametrize("rules", ["megajogos", "paulista:team_size=2"])
def test_blind_hand_shows_no_cards_not_even_partners(rules):
    m = new_match(rules, hands=SPECIAL4, start_score=(11, 11))
    for seat in range(4):
        v = view(m, seat)
        assert v.cards == () and v.partners == ()
        assert v.visible_cards() == {C(VIRA)}


# ---- games_per_match ----------------------------------------------------------------


def _score_3_for_team_0(m: Match) -> None:
    act(m, "play 6S", "raise", "raise", "fold")  # seat 1 asks 3, seat 2 asks 6, seat 3 folds


def test_tradicional_match_is_best_of_three_games():
    m = new_match("tradicional", start_score=(9, 0))
    _score_3_for_team_0(m)
    assert points(m) == (3, 0)
    assert m.games == [1, 0] and m.score == [0, 0]
    assert m.outcome is None and m.needs_deal

    m = new_match("tradicional", start_score=(9, 0), start_games=(1, 0))
    _score_3_for_team_0(m)
    assert m.outcome.winner == 0


@pytest.mark.parametrize("rules", ["tradicional:games_per_match=1", "paulista:team_size=2"])
def test_single_game_match_ends_at_12(rules):
    m = new_match(rules, start_score=(9, 0))
    _score_3_for_team_0(m)
    assert m.outcome.winner == 0 and m.outcome.termination is Termination.SCORE


# ---- partner_tie_lead ------------------------------------------------------------------

# dealer 0, so seat 1 leads: seat 2's 3C is played before seat 0's 3S, the tied top cards
TIE_HANDS = ["3S 2H 6S", "QD KH 7C", "3C AC 6D", "KS 7D QC"]


@pytest.mark.parametrize(
    ("rules", "leads"),
    [
        ("tradicional", 2),
        ("tradicional:partner_tie_lead=first_to_play", 2),
        ("tradicional:partner_tie_lead=lower_seat", 0),
        ("paulista:team_size=2,partner_tie_lead=lower_seat", 0),
        ("paulista:team_size=2,partner_tie_lead=lower_seat,partner_top_tie=tie", 1),
    ],
)
def test_partner_tie_lead(rules, leads):
    m = new_match(rules, hands=TIE_HANDS, dealer=0)
    act(m, "play QD", "play 3C", "play KS", "play 3S")
    tied = Rules.parse(rules).partner_top_tie.value == "tie"
    assert view(m, 0).rounds[0].winner == (None if tied else 0)
    assert m.to_act == leads  # a tied round (partner_top_tie=tie): its leader leads again


def test_partner_tie_lead_changes_nothing_without_a_partner_tie():
    m = new_match("tradicional:partner_tie_lead=lower_seat", hands=TIE_HANDS, dealer=0)
    act(m, "play QD", "play AC", "play KS", "play 3S")  # seat 0's 3S alone on top
    assert m.to_act == 0
    m = new_match("tradicional:partner_tie_lead=lower_seat", hands=TIE_HANDS, dealer=0)
    act(m, "play QD", "play 3C", "play KS", "play 6S")  # seat 2's 3C alone on top
    assert m.to_act == 2


# ---- covered_after_partner --------------------------------------------------------------


def test_covered_after_partner_banned_in_the_same_round_only():
    m = new_match("paulista:team_size=2,covered_after_partner=banned")
    act(m, "play 3C", "play QD", "play JS", "play KS")  # team 0 takes round 1; seat 0 leads
    act(m, "play 6S", "play KH covered")
    assert any(a.covered for a in m.legal_actions()), "an opponent covered, not a partner"
    act(m, "play AC covered")
    assert m.to_act == 3 and not any(a.covered for a in m.legal_actions())
    with pytest.raises(IllegalAction, match="partner has already played a covered card"):
        act(m, "play 7D covered")
    act(m, "play 7D")  # team 1 takes round 2 (7D over 6S); seat 3 leads round 3
    assert any(a.covered for a in m.legal_actions()), "a new round, nothing covered yet"
    act(m, "play QC covered", "play 2H covered")
    assert m.to_act == 1 and not any(a.covered for a in m.legal_actions())


def test_covered_after_partner_allowed_by_default():
    m = new_match("paulista:team_size=2")
    act(m, "play 3C", "play QD", "play JS", "play KS", "play 2H covered", "play KH")
    act(m, "play AC covered")
    assert view(m, 0).table[-1].covered


# ---- raise_answer ------------------------------------------------------------------------


def test_raise_answer_one_seat_a_refusal_ends_the_hand():
    m = new_match("tradicional")
    act(m, "raise", "fold")
    assert points(m) == (1, 0)


def test_raise_answer_any_accepts_asks_the_partner_after_a_refusal():
    m = new_match("tradicional:raise_answer=any_accepts")
    act(m, "raise")
    assert m.to_act == 1
    act(m, "fold")
    assert m.hand.result is None and m.to_act == 3  # seat 1 refused: its partner is asked
    seen = view(m, 3)
    assert (seen.phase.value, seen.pending, seen.requester, seen.refused) == ("answer", 3, 0, (1,))
    assert legal(m) == {"raise", "accept", "fold"}
    assert view(m, 0).refused == (1,) and view(m, 1).legal == ()
    with pytest.raises(IllegalAction, match="seat 1 has already refused"):
        m.apply(ACCEPT, seat=1)
    act(m, "accept")
    assert view(m, 0).stake == 3 and view(m, 0).refused == () and m.to_act == 0


def test_raise_answer_any_accepts_refused_only_when_both_refuse():
    m = new_match("tradicional:raise_answer=any_accepts")
    act(m, "raise", "fold", "fold")
    assert points(m) == (1, 0)


def test_raise_answer_any_accepts_the_partner_may_raise_again():
    m = new_match("tradicional:raise_answer=any_accepts")
    act(m, "raise", "fold", "raise")
    assert view(m, 0).requester == 3 and view(m, 0).pending == 6 and m.to_act == 0
    act(m, "fold")  # seat 0 refuses six: seat 2 is asked, and refuses too
    assert m.to_act == 2
    act(m, "fold")
    assert points(m) == (0, 3)


def test_raise_answer_any_accepts_asks_every_seat_of_a_larger_team():
    hands = ["3C 2H 6S", "QD KH 7C", "JS AC 6D", "KS 7D QC", "4C 5D 6H", "7H QH JH"]
    m = new_match("paulista:team_size=3,raise_answer=any_accepts", hands=hands)
    act(m, "raise")
    asked = []
    while m.hand.result is None:
        asked.append(m.to_act)
        act(m, "fold")
    assert asked == [1, 3, 5] and points(m) == (1, 0)


def test_raise_answer_any_accepts_in_1x1_changes_nothing():
    m = new_match("paulista:raise_answer=any_accepts")
    act(m, "raise", "fold")
    assert points(m) == (1, 0)


def test_raise_answer_any_accepts_timeout_of_the_partner_folds():
    m = new_match("tradicional:raise_answer=any_accepts")
    act(m, "raise", "fold")
    assert m.default_action() == FOLD


# ---- stake_cap ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("score", "cap"),
    [
        ((0, 0), 12),
        ((6, 4), 9),
        ((9, 3), 9),
        ((10, 8), 6),
        ((3, 9), 9),
        ((10, 10), 3),
        ((2, 10), 12),
    ],
)
def test_stake_cap_trailing_needs(score, cap):
    m = new_match("paulista:stake_cap=trailing_needs", start_score=score)
    asked = []
    while "raise" in legal(m):
        act(m, "raise")
        asked.append(m.hand.pending)
    assert max(asked) == cap
    with pytest.raises(IllegalAction, match="trailing team needs" if cap < 12 else "for 12"):
        act(m, "raise")
    assert legal(m) == {"accept", "fold"}


def test_stake_cap_none_by_default():
    m = new_match("paulista", start_score=(10, 8))
    act(m, "raise", "raise", "raise", "raise")
    assert m.hand.pending == 12


def test_stake_cap_bars_a_raise_on_your_turn_at_the_cap():
    m = new_match("paulista:stake_cap=trailing_needs", start_score=(10, 8))  # cap 6
    act(m, "raise", "raise", "accept")
    assert view(m, 0).stake == 6 and "raise" not in legal(m)
    act(m, "play 3C")
    assert "raise" not in legal(m)
    with pytest.raises(IllegalAction, match="the hand is already for 6, the cap"):
        act(m, "raise")


# ---- docs/rules.md ---------------------------------------------------------------------


def table_rows(text: str, header: str) -> dict[str, list[str]]:
    """The rows of the markdown table under ``header`` (its first line), by first cell."""
    lines = text.split(header, 1)[1].splitlines()[2:]
    rows = {}
    for line in lines:
        if not line.startswith("|"):
            break
        cells = [c.strip().strip("`") for c in line.strip("|").split("|")]
        rows[cells[0]] = cells[1:]
    return rows


def test_docs_rules_tables_list_every_parameter_and_preset_value():
    text = (Path(__file__).parents[2] / "docs" / "rules.md").read_text(encoding="utf-8")
    params = table_rows(text, "| parameter | values | meaning |")
    assert list(params) == list(Rules().parameters())
    for name, (values, _meaning) in params.items():
        kind = type(getattr(Rules(), name))
        if issubclass(kind, enum.Enum):
            assert [v.strip("` ") for v in values.split(",")] == [m.value for m in kind], name
    presets = table_rows(text, "| parameter | " + " | ".join(PRESET_NAMES) + " |")
    assert list(presets) == [p for p in Rules().parameters() if p != "score_cap"]
    for name, cells in presets.items():
        shown = [c.rstrip("*") for c in cells]
        assert shown == [PRESETS[p].parameter_texts()[name] for p in PRESET_NAMES], name


def test_every_preset_says_where_each_parameter_comes_from():
    # what `arena rules show` prints beside each value
    for name in PRESET_NAMES:
        notes = NOTES[name]
        assert set(notes) == set(Rules().parameters()), name
        for param in ("partner_tie_lead", "covered_after_partner", "raise_answer"):
            assert notes[param].startswith("chosen:"), (name, param)
    for name in ("inteligente", "solver"):
        assert "no partners in 1x1" in NOTES[name]["raise_answer"]


def test_raise_answer_any_accepts_a_record_may_give_the_answers_in_either_order():
    for answers, stake in [
        ([(3, "fold"), (1, "accept")], 3),  # the partner refused first
        ([(3, "accept")], 3),  # the partner answered for both
        ([(1, "accept")], 3),
        ([(3, "fold"), (1, "fold")], None),  # refused by both, the hand over
    ]:
        m = new_match("tradicional:raise_answer=any_accepts")
        act(m, "raise")
        for seat, word in answers:
            m.apply(Action.parse(word), seat=seat)
        if stake is None:
            assert points(m) == (1, 0)
        else:
            assert view(m, 0).stake == stake and m.to_act == 0
