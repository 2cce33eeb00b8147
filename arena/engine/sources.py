"""Where each preset's parameter values come from: its source text, or our choice.

``NOTES[preset][param]`` is a short note; a note starting with ``chosen:`` marks a
value the source does not settle, picked by the project (docs/rules.md explains each).
"""

from __future__ import annotations

SOURCES = {
    "paulista": "the online Truco Paulista rules of 7funcards",
    "inteligente": "the Truco Inteligente app's rules",
    "solver": "the rules a truco solver's engine plays",
    "tradicional": "traditional table rules for two pairs, with the queda",
    "megajogos": "the two-pair rules of MegaJogos",
}

SUMMARIES = {
    "paulista": "online Truco Paulista: 1x1 to 4x4, covered cards, folding the hand, "
    "blind 11x11 (mao de ferro)",
    "inteligente": "1x1 app rules; manilha nova or velha, deck std40 or sujo52",
    "solver": "exact 1x1 variant of a truco solver: every tie defined, open 11x11 worth 3",
    "tradicional": "two pairs; mao de dez at 10 points; a match (queda) is best of 3 games",
    "megajogos": "two pairs; a raise in the hand of 11 loses the match; blind 11x11",
}

_COMMON = {
    "lead_after_tie": "source: the leader of the tied round leads again",
    "score_cap": "source: the game is won at 12 and the score shows at most 12",
    "stake_cap": "source: the ladder goes up to 12 whatever the score",
}

_ONE_ON_ONE = {  # the parameters about partners, in the presets of one player a side
    "partner_tie_lead": "chosen: no partners in 1x1; the common default",
    "covered_after_partner": "chosen: no partners in 1x1; the common default",
    "raise_answer": "chosen: no partners in 1x1; the common default",
}

_PAIRS = {  # the same, where the source has partners but does not settle these
    "partner_tie_lead": "chosen: the source is silent; the first of the partners to play leads",
    "covered_after_partner": "chosen: the source does not forbid it; allowed",
}

NOTES: dict[str, dict[str, str]] = {
    "paulista": {
        **_PAIRS,
        "team_size": "source: 1x1, 2x2, 3x3 or 4x4; 1 by default",
        "deck": "source: 40 cards, no 8 9 10",
        "manilha": "source: the rank after the vira",
        "partner_top_tie": "source: top cards of partners win the round for their team",
        "all_tied": "chosen: the source settles only 11x11 (nobody scores); used for all hands",
        "covered": "source: from round 2, not in the mao de ferro",
        "raise_answer": "chosen: the source is silent; the opponent after the requester answers",
        "fold_hand": "source: on your turn, no request pending; pays the current value",
        "special_at": "source: 11",
        "special_partner_view": "source: the team at 11 sees its partners' cards all hand",
        "special_raise": "source: no raising in the hand of 11 or the mao de ferro",
        "both_at_special": "source: mao de ferro, played blind",
        "both_at_special_value": "source: worth 1",
        "games_per_match": "source: one game, no queda",
    },
    "inteligente": {
        **_ONE_ON_ONE,
        "lead_after_tie": "chosen: the source is silent; the tied round's leader leads again",
        "team_size": "source: 1x1 app",
        "deck": "source: baralho limpo (std40) by default; sujo52 is an option",
        "manilha": "source: nova by default; velha is an option",
        "partner_top_tie": "chosen: no partners in 1x1; the common default",
        "all_tied": "source: the players agree: replay (default) or suit",
        "covered": "source: any round, never as the round's first card",
        "fold_hand": "source: no folding of the hand",
        "special_at": "source: 11",
        "special_partner_view": "chosen: no partners in 1x1; the common default",
        "special_raise": "source: no truco in the hand of 11",
        "both_at_special": "source: 11x11 played in the dark",
        "both_at_special_value": "chosen: the source does not say; worth 1",
        "games_per_match": "source: first to 12",
    },
    "solver": {
        **_ONE_ON_ONE,
        "team_size": "source: 1x1",
        "deck": "source: 40 cards",
        "manilha": "source: the rank after the vira",
        "partner_top_tie": "chosen: no partners in 1x1; the common default",
        "all_tied": "source: the leader of round 1 (a mao) takes the hand",
        "covered": "source: from round 2",
        "fold_hand": "source: entregar, legal on any turn, pays what a fold would",
        "special_at": "source: 11",
        "special_partner_view": "chosen: no partners in 1x1; the common default",
        "special_raise": "source: the ladder is locked for both sides",
        "both_at_special": "source: 11x11 dealt and seen normally",
        "both_at_special_value": "source: worth 3 automatically",
        "games_per_match": "source: first to 12",
    },
    "tradicional": {
        **_PAIRS,
        "lead_after_tie": "chosen: the source is silent; the tied round's leader leads again",
        "team_size": "source: two pairs",
        "deck": "source: 40 cards; short24 (no 4 5 6 7) is an option",
        "manilha": "source: the rank after the turned card",
        "partner_top_tie": "chosen: the source is silent; partners' tied top cards win",
        "all_tied": "source: the team opposite the dealer takes the hand",
        "covered": "source: no covered cards",
        "raise_answer": "chosen: the source lets either partner answer; one answer settles it",
        "fold_hand": "source: no folding of the hand",
        "special_at": "source: mao de dez at 10 points",
        "special_partner_view": "source: the pair at 10 may show each other their cards",
        "special_raise": "source: by the pair at 10 it loses the hand (+3 to the others); "
        "by the other pair the pair at 10 wins",
        "both_at_special": "chosen: the source is silent on 10x10; open",
        "both_at_special_value": "chosen: worth 3, no raise",
        "games_per_match": "source: a queda is best of three games",
    },
    "megajogos": {
        **_PAIRS,
        "lead_after_tie": "chosen: the source is silent; the tied round's leader leads again",
        "team_size": "source: two pairs",
        "deck": "source: 40 cards",
        "manilha": "source: the rank after the vira",
        "partner_top_tie": "chosen: the source is silent; partners' tied top cards win",
        "all_tied": "source: nobody scores and a new hand is dealt",
        "covered": "chosen: the glossary has covered cards; allowed from round 2",
        "raise_answer": "chosen: the source has the pair decide; one seat answers for it",
        "fold_hand": "source: no folding of the hand",
        "special_at": "source: 11",
        "special_partner_view": "source: no sharing of cards is mentioned",
        "special_raise": "source: a truco in the hand of 11 gives the other pair the match",
        "both_at_special": "source: mao de ferro, played in the dark",
        "both_at_special_value": "chosen: the hand of 11 is worth 3; so is this one",
        "games_per_match": "source: first to 12",
    },
}

for _notes in NOTES.values():
    for _key, _note in _COMMON.items():
        _notes.setdefault(_key, _note)
