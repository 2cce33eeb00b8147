"""Random and property-based playouts for every preset and every team size.

Each playout checks, at every step, the invariants a wrong rule would break: matches
end, the winner is right, scores never go down within a game, the stake ladder
alternates, no view shows a card its seat may not see, legal actions are sorted and
exactly the actions ``apply`` accepts, and the record replays to the same result.
The hidden-card checks cover every way a card reaches anyone: the seat views, the
public record and the web replay's steps for a visitor.
"""

from __future__ import annotations

import dataclasses
import io
import itertools
import json
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cli.engine import replay_file
from arena.engine import (
    ALL_CARDS,
    LADDER,
    PRESETS,
    Action,
    ActionType,
    Hand,
    HandKind,
    IllegalAction,
    Match,
    Phase,
    Rules,
    disagreements,
    public_record,
    replay,
    to_record,
    view,
)
from arena.engine.rules import CoveredAfterPartner, PartnerTieLead, RaiseAnswer, StakeCap
from arena.read.replay import replay_hand

CASES = [
    pytest.param(rules.replace(team_size=size), id=f"{name}-{size}x{size}")
    for name, rules in PRESETS.items()
    for size in (1, 2, 3, 4)
]
VARIANTS = {  # every value of the rule parameters issue 36 added that is not the default
    "partner_tie_lead": "lower_seat",
    "covered_after_partner": "banned",
    "raise_answer": "any_accepts",
    "stake_cap": "trailing_needs",
}
VARIANT_CASES = [
    pytest.param(rules.replace(team_size=size, **{key: value}), id=f"{name}-{size}x{size}-{value}")
    for name, rules in PRESETS.items()
    for key, value in VARIANTS.items()
    for size in sorted({rules.team_size, 2, 3})
]
MAX_STEPS = 20_000


def forbidden_cards(match: Match, seat: int) -> set[str]:
    """Card faces ``seat`` must not see now."""
    hand = match.hand
    assert hand is not None
    team = seat & 1
    shown_partners = (
        hand.kind is HandKind.SPECIAL and match.rules.special_partner_view and hand.deciding == team
    )
    hidden = set()
    for s in range(match.n):
        mine = s == seat
        partner_shown = s & 1 == team and shown_partners
        if (mine and hand.blind) or (not mine and not partner_shown):
            hidden.update(hand.held[s])
    played = [p for r in hand.rounds for p in r.plays] + list(hand.table)
    hidden.update(p.card for p in played if p.covered)
    dealt = {c for cards in hand.dealt for c in cards} | {hand.vira}
    hidden.update(c for c in ALL_CARDS if c not in dealt)
    return {str(c) for c in hidden}


def check_views(match: Match) -> None:
    finished = [h for h in match.hands if h.result is not None]
    for seat in range(match.n):
        seen = view(match, seat)
        if finished:  # the last finished hand: its open plays, never a covered face
            last = finished[-1]
            assert seen.last_hand is not None
            shown = [p for r in seen.last_hand.rounds for p in r.plays]
            played = [p for r in last.rounds for p in r.plays]
            assert [(p.seat, p.card) for p in shown] == [
                (p.seat, None if p.covered else p.card) for p in played
            ]
        seen = dataclasses.replace(seen, last_hand=None)  # the current hand, from here on
        forbidden = forbidden_cards(match, seat)
        leaked = {str(c) for c in seen.visible_cards()} & forbidden
        assert not leaked, f"seat {seat} sees {leaked}"
        words = set(CARD_WORD.findall(json.dumps(seen.to_json())))
        assert not words & forbidden, f"seat {seat}'s JSON view shows {words & forbidden}"
        assert (seen.legal != ()) == (match.to_act == seat)


CARD_WORD = re.compile(r'"(10[CHSD]|[2-9QJKA][CHSD])"')


def check_public(match: Match) -> None:
    """The public record and a visitor's replay of each hand show no card that was not
    played face up in that hand (the vira aside), and no seed."""
    record = json.loads(json.dumps(to_record(match)))
    public = public_record(record)
    assert "seed" not in public
    for number, hand in enumerate(match.hands):
        open_faces = {str(p.card) for r in hand.rounds for p in r.plays if not p.covered}
        open_faces |= {str(p.card) for p in hand.table if not p.covered}
        allowed = open_faces | {str(hand.vira)}
        shown = set(CARD_WORD.findall(json.dumps(public["hands"][number])))
        assert shown <= allowed, f"the public record of hand {number} shows {shown - allowed}"
        steps = replay_hand(record, number, organizer=False).steps
        shown = set(CARD_WORD.findall(json.dumps(steps)))
        assert shown <= allowed, f"a visitor's replay of hand {number} shows {shown - allowed}"
    every = set(CARD_WORD.findall(json.dumps(replay_hand(record, 0, organizer=True).steps)))
    assert {str(c) for cards in match.hands[0].dealt for c in cards} <= every, "organizer"


def check_owners(match: Match) -> None:
    """Each seat's owner, in its record and its replay of each hand, sees the cards that
    seat saw (its own hand unless blind, its covered cards, its partners' when the rules
    showed them) and those played face up, never another; its own hand whole."""
    record = json.loads(json.dumps(to_record(match)))
    rules = match.rules
    for seat in range(match.n):
        owned = public_record(record, [seat])
        assert "seed" not in owned
        for number, hand in enumerate(match.hands):
            plays = [p for r in hand.rounds for p in r.plays] + list(hand.table)
            allowed = {str(p.card) for p in plays if not p.covered} | {str(hand.vira)}
            team = [seat]
            if (
                hand.kind is HandKind.SPECIAL
                and rules.special_partner_view
                and hand.deciding == seat & 1
                and rules.team_size > 1
            ):
                team = list(range(seat & 1, match.n, 2))
            if not hand.blind:
                allowed |= {str(c) for s in team for c in hand.dealt[s]}
                assert owned["hands"][number]["cards"][seat] == [str(c) for c in hand.dealt[seat]]
            shown = set(CARD_WORD.findall(json.dumps(owned["hands"][number])))
            assert shown <= allowed, f"seat {seat}'s owner's record shows {shown - allowed}"
            steps = replay_hand(record, number, organizer=False, own=(seat,)).steps
            shown = set(CARD_WORD.findall(json.dumps(steps)))
            assert shown <= allowed, f"seat {seat}'s owner's replay shows {shown - allowed}"


def candidate_actions(match: Match) -> list[Action]:
    """Every action that could be meant now, legal or not."""
    hand = match.hand
    assert hand is not None
    seat = hand.turn
    cards = list(hand.dealt[seat])
    out = [Action.play(c) for c in cards] + [Action.play(c, covered=True) for c in cards]
    out += [Action.play_slot(i) for i in range(3)]
    return out + [Action.parse(w) for w in ("raise", "accept", "fold")]


def check_legal_is_exact(match: Match, legal: list[Action]) -> None:
    """What legal_actions() lists is exactly what apply() accepts (slots aside)."""
    hand = match.hand
    assert hand is not None
    for action in candidate_actions(match):
        trial = match.clone()
        by_slot = action.card is None and action.type is ActionType.PLAY
        before = to_record(match)
        try:
            trial.apply(action)
            accepted = True
        except IllegalAction:
            accepted = False
        assert to_record(match) == before, "acting on a clone changed the original"
        if by_slot and not hand.blind:
            # a slot names a dealt card, so it is accepted exactly when that card is
            card = hand.dealt[hand.turn][action.slot or 0]
            assert accepted == (Action.play(card) in legal), action
        else:
            assert accepted == (action in legal), (action, legal)


def play_out(rules: Rules, seed: int, deep_checks: bool = False) -> Match:
    match = Match(rules, seed=seed)
    choose = random.Random(seed)
    history: list[tuple[tuple[int, int], tuple[int, int]]] = []
    for _ in range(MAX_STEPS):
        if match.is_over:
            break
        hand = match.hand
        assert hand is not None and hand.result is None
        legal = match.legal_actions()
        assert legal, "a seat to act always has a legal action"
        assert legal == sorted(legal, key=lambda a: a.sort_key)
        assert legal == match.legal_actions()
        assert hand.stake in LADDER and (hand.pending == 0 or hand.pending in LADDER)
        if hand.phase is Phase.ANSWER:
            check_asked(match)
        if deep_checks:
            check_views(match)
            check_legal_is_exact(match, legal)
        hands_before = len(match.hands)
        match.apply(choose.choice(legal))
        if len(match.hands) > hands_before or match.is_over:
            history.append((tuple(match.games), tuple(match.score)))  # type: ignore[arg-type]
    else:
        pytest.fail(f"no end after {MAX_STEPS} steps")
    check_finished(match, history)
    return match


def check_asked(match: Match) -> None:
    """The seat asked to answer is the opponent after the requester, or (any_accepts) the
    next of its partners in play order that has not refused."""
    hand = match.hand
    assert hand is not None
    n = match.n
    answering = [(hand.requester + k) % n for k in range(1, n, 2)]
    refused = view(match, hand.requester).refused
    assert refused == tuple(sorted(answering[: len(refused)]))
    assert match.to_act == answering[len(refused)]
    if match.rules.raise_answer is RaiseAnswer.ONE_SEAT or match.rules.team_size == 1:
        assert refused == ()


def check_rounds(match: Match, hand: Hand) -> None:
    """What the rule parameters of issue 36 say of each finished round."""
    rules = match.rules
    for before, after in itertools.pairwise([*hand.rounds, None]):
        if rules.covered_after_partner is CoveredAfterPartner.BANNED:
            for team in (0, 1):
                assert sum(p.covered for p in before.plays if p.seat & 1 == team) <= 1
        if after is not None and before.winner is not None:
            strength = hand.strength
            power = [-1 if p.covered else strength[p.card.index] for p in before.plays]
            best = max(power)
            tops = [p.seat for p, s in zip(before.plays, power, strict=True) if s == best >= 0]
            lower = rules.partner_tie_lead is PartnerTieLead.LOWER_SEAT
            if tops:  # the round's winner leads the next
                assert after.plays[0].seat == (min(tops) if lower else tops[0])


def check_finished(match: Match, history: list[tuple[tuple[int, int], tuple[int, int]]]) -> None:
    rules = match.rules
    outcome = match.outcome
    assert outcome is not None
    winner = outcome.winner
    assert match.games[winner] == rules.games_to_win
    assert match.games[1 - winner] < rules.games_to_win
    assert match.score[winner] == rules.score_cap > match.score[1 - winner]
    for (games_a, score_a), (games_b, score_b) in itertools.pairwise(history):
        if games_a == games_b:
            assert score_b[0] >= score_a[0] and score_b[1] >= score_a[1], "a score went down"
    last = match.hands[-1].result
    assert last is not None and last.score == tuple(match.score)
    cap = rules.score_cap
    games_ended = sum(max(h.result.score) == cap for h in match.hands if h.result)
    assert games_ended == sum(match.games) - sum(match.start_games), "a game end per 12"
    for hand in match.hands:
        raisers = [seat & 1 for seat, a in hand.actions if a.type is ActionType.RAISE]
        if hand.kind is HandKind.NORMAL:
            assert all(a != b for a, b in itertools.pairwise(raisers))
            assert len(raisers) <= len(LADDER) - 1
        points = hand.result.points if hand.result else (0, 0)
        assert min(points) == 0, "only one team scores in a hand"
        check_rounds(match, hand)
        check_refusals(match, hand)
    check_stake_caps(match)


def check_refusals(match: Match, hand: Hand) -> None:
    """A request is refused by one fold, or (any_accepts) by one fold per seat of the team."""
    if hand.kind is not HandKind.NORMAL:
        return
    rules = match.rules
    needed = rules.team_size if rules.raise_answer is RaiseAnswer.ANY_ACCEPTS else 1
    kinds = [a.type for _, a in hand.actions]
    folds = next((i for i, k in enumerate(reversed(kinds)) if k is not ActionType.FOLD), 0)
    if folds and kinds[-folds - 1] is ActionType.RAISE:
        assert folds == needed, kinds


def check_stake_caps(match: Match) -> None:
    """With stake_cap trailing_needs, no raise asks more than the trailing team needs to
    win at the hand's start, rounded up to a multiple of 3."""
    rules = match.rules
    if rules.stake_cap is StakeCap.NONE:
        return
    score = match.start_score
    for hand in match.hands:
        cap = -(-(rules.score_cap - min(score)) // 3) * 3
        raises = sum(a.type is ActionType.RAISE for _, a in hand.actions)
        if hand.kind is HandKind.NORMAL:
            assert LADDER[raises] <= cap, (score, raises)
        assert hand.result is not None
        score = (0, 0) if max(hand.result.score) == rules.score_cap else hand.result.score


def check_replays(match: Match) -> None:
    record = json.loads(json.dumps(to_record(match)))
    again = replay(record)
    assert disagreements(record, again) == []
    assert to_record(again) == {k: v for k, v in record.items() if k != "seed"}


@pytest.mark.parametrize("rules", CASES + VARIANT_CASES)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_random_playouts_keep_the_invariants(rules: Rules, seed: int) -> None:
    match = play_out(rules, seed)
    check_replays(match)


@pytest.mark.parametrize("rules", CASES + VARIANT_CASES)
def test_views_and_legal_actions_at_every_step(rules: Rules) -> None:
    for seed in range(3):
        played = play_out(rules, seed, deep_checks=True)
        check_public(played)
        check_owners(played)


@pytest.mark.parametrize("name", list(PRESETS))
def test_many_seeded_matches_replay_through_the_command(name: str) -> None:
    for seed in range(40):
        match = play_out(PRESETS[name], seed)
        out, err = io.StringIO(), io.StringIO()
        code = replay_file("-", io.StringIO(json.dumps(to_record(match))), out, err)
        assert (code, err.getvalue()) == (0, "")
        printed = json.loads(out.getvalue())
        assert printed["result"]["winner"] == match.outcome.winner  # type: ignore[union-attr]
        assert "next" not in printed


def test_the_same_seed_deals_the_same_cards() -> None:
    a, b = Match(seed=99), Match(seed=99)
    assert a.hand is not None and b.hand is not None
    assert (a.hand.dealt, a.hand.vira, a.hand.dealer) == (b.hand.dealt, b.hand.vira, b.hand.dealer)
    dealers = {Match(seed=s).hand.dealer for s in range(40)}  # type: ignore[union-attr]
    assert dealers == {0, 1}, "the first dealer is drawn from the seed"


@pytest.mark.parametrize(
    "rules", [*PRESETS.values(), Rules.parse("paulista:team_size=4,deck=sujo52")]
)
def test_the_fast_draw_deals_what_random_sample_deals(rules: Rules) -> None:
    """The engine deals with its own copy of ``random.sample`` (arena.engine.match._draw):
    for the same generator state it draws the same cards in the same order, so a seed
    deals what it always dealt."""
    from arena.engine.match import _draw

    k = 3 * rules.seats + 1
    for seed in range(300):
        ours, theirs = random.Random(seed), random.Random(seed)
        assert _draw(ours, rules.deck.cards, k) == theirs.sample(rules.deck.cards, k)
        assert ours.getstate() == theirs.getstate()
