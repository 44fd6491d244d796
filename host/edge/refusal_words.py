"""The host's own refusals (not the engine's) said in a player's language, by their reason.

The English sentence a refusal carries names exact figures (seat 2, event
41); what a player needs to read is what happened and what to do, which the
reason alone says. These sentences are extracted into the same catalogue as
the engine's (``make messages``); a reason with none here keeps its English
sentence only.
"""

from __future__ import annotations

from scala40_net.refusals import N_, translations

BY_REASON: dict[str, str] = {
    "NOT_YOUR_TURN": N_("it is not your turn"),
    "NO_DEAL": N_("no deal is being played now"),
    "NOT_IN_DEAL": N_("you do not play this deal"),
    "STALE_VIEW": N_("the table changed meanwhile: look again and decide"),
    "MATCH_STARTED": N_("the match has already started"),
    "NOT_ENOUGH_PLAYERS": N_("not enough players to start"),
    "NO_RIENTRO": N_("no buy-back is on offer now"),
    "WRONG_DEAL": N_("that deal is not in its fair-deal exchange now"),
    "WRONG_STEP": N_("the fair-deal exchange is at another step"),
    "NOT_COMMITTED": N_("your commitment did not arrive in time: you sit this deal out"),
    "BAD_REVEAL": N_("your seed does not match your commitment: it is left out of the mix"),
    "FAIR_DEAL_OUT_OF_ORDER": N_("a fair-deal message out of order"),
    "ALREADY_COMMITTED": N_("your commitment is already in"),
    "ALREADY_REVEALED": N_("your seed is already revealed"),
    "BAD_TOKEN": N_("this seat's token is not known here"),
    "SPECTATOR": N_("a spectator cannot play"),
    "OTHER_TABLE": N_("this token is for another table"),
    "BAD_PASSWORD": N_("this table needs its password, and that is not it"),
    "NO_SUCH_TABLE": N_("there is no such table"),
    "NO_SUCH_SEAT": N_("there is no such seat"),
    "NO_SUCH_RECORD": N_("that deal has no record yet"),
    "SEAT_TAKEN": N_("that seat is taken"),
    "TABLE_FULL": N_("every seat of this table is taken"),
    "TOO_MANY_TABLES": N_("this host has no room for another table"),
    "FELL_BEHIND": N_("the connection fell behind the table: it catches up by itself"),
    "NOT_ABSENT": N_("that player is here: only an absent seat is decided for"),
    "NO_MORE_TIME": N_("that seat has had all the extra time it may have this deal"),
    "NOT_THE_DECIDER": N_("only the table's first player may do that"),
    "TOO_MANY_SEAT_CHANGES": N_("too many seat changes at this table: wait a little"),
    "NOT_SERVED": N_("this host does not offer that call"),
    "NAME_HELD": N_(
        "at this host that name belongs to another player's key: choose another name, or "
        "ask the host's owner to free it"
    ),
    "STALE_CHALLENGE": N_("the join's challenge is used or expired: join again"),
    "BAD_KEY_PROOF": N_("your player key's signature does not match this join"),
    "NOT_INVITED": N_("this table is open only to the player keys invited to it"),
    "NO_SUCH_MATCH": N_("this host keeps no such finished match"),
    "MALFORMED_REQUEST": N_("the request is not well formed (the program's mistake): nothing done"),
    "NOT_SAVED": N_("the host could not save this move: nothing of it was done, try again"),
    "RULE_VIOLATION": N_("the host refuses that move: make another"),
    "BAD_RULESET": N_("those rules cannot be played at this table"),
    "TABLE_DAMAGED": N_("this table was damaged and set aside by the host"),
    "NO_TURN": N_("no turn is being played now"),
    "ALREADY_AWAY": N_("a bot already plays that seat"),
    "NOT_AWAY": N_("nobody plays that seat for its player"),
    "NOT_A_PLAYER": N_("that seat has no player in the match"),
    "LEFT_TABLE": N_("that seat's player has left the table"),
    "MATCH_NOT_OVER": N_("another match can be agreed once this one is over"),
    "NAME_TAKEN": N_("somebody at this table has that name already: choose another"),
    "TOO_MANY_SPECTATORS": N_("this table has all the spectators it takes"),
    "TOO_MANY_STREAMS": N_("too many event streams open: close one first"),
    "TOO_MANY_REQUESTS": N_("too many requests at once: slow down"),
    "TOO_MANY_WRONG_GUESSES": N_("too many wrong tokens or passwords: wait a minute"),
    "TOO_MANY_NEW_TABLES": N_("too many new tables at once: wait a little"),
    "TOO_MUCH_CHAT": N_("too many chat lines: wait a little"),
    # A private table (docs/PRIVATE_TABLES.md).
    "PRIVATE_MESSAGE_REFUSED": N_(
        "the host refuses that private-table message: its signature, its place or its proof "
        "does not hold"
    ),
    "NOT_PRIVATE": N_("this table is not a private table"),
    "STAND_IN": N_("you handed this seat to a stand-in: the host's bot plays it now"),
    "KEY_MISMATCH": N_("that key is not this seat's"),
    "KEYS_NOT_KEPT": N_("the host could not keep the seat's keys: the seat is still yours"),
    "SIGNING_KEY_NEEDED": N_("a private table needs a signing key for your seat"),
    "POSITION_NOT_OPENED": N_(
        "that card of your hand is not opened yet: its shares are still on their way"
    ),
    "SHUFFLE_PENDING": N_("the new stock is still being shuffled by every seat: draw once it is"),
    "DISCARD_ATTACHES": N_(
        "that discard could be attached to a meld on the table: at a private table it goes "
        "only with the rest of your hand opened"
    ),
}

# Sentences a refusal names itself (``Refusal.words``), where its reason alone says too
# little or is shared: an out-of-range setting, a token never sent.
SETTING_RANGE = N_("{name} takes {low} to {high} seconds")
SETTING_RANGE_OR_OFF = N_("{name} takes {low} to {high} seconds, or 0 for none")
NO_TOKEN = N_("this call needs a seat token, and none was sent")


def said(
    reason: str,
    rule: str | None,
    lang: str,
    words: tuple[str, dict[str, object]] | None = None,
) -> str | None:
    """The refusal of ``reason`` in ``lang``, with its rule; None when it has no sentence here.
    ``words``: the refusal's own sentence (one of those above) and its fields, instead."""
    english = words[0] if words is not None else BY_REASON.get(reason)
    if english is None:
        return None
    sentence = translations(lang).gettext(english)
    if words is not None:
        sentence = sentence.format(**words[1])
    return f"{rule}: {sentence}" if rule else sentence
