"""Every sentence the terminal client shows, by key, in English; marked for extraction.

``M(key, english)`` names a message: Babel (``make messages``) extracts each with its key
as the message context into ``client/locale/scala40_client.pot``; the Italian is in
``client/locale/it/LC_MESSAGES/scala40_client.po``. The English text glosses the game's
Italian terms the first time a player is likely to meet them; both languages of a
message take the same ``str.format`` fields (a test holds them to it).
"""

from __future__ import annotations


def M(key: str, english: str) -> tuple[str, str]:
    """A message: its key (the catalogues' context) and its English text."""
    return key, english


ENGLISH: dict[str, str] = dict(
    [
        M("app_title", "Scala 40"),
        M("panel_hand", "Your hand"),
        M("panel_log", "Log"),
        M("panel_chat", "Chat"),
        M("panel_help", "Help"),
        M("panel_deal_end", "End of deal {deal} (smazzata)"),
        M("table_title", "{table} · deal {deal} · dealer (mazziere) {dealer}"),
        M("table_title_waiting", "{table} · waiting"),
        M("spectator", "spectator"),
        M("private_table", "private table"),
        M("private_code", "table code {code}: compare it aloud with the others"),
        M("private_host_reads", "the host can read the hands of {names}"),
        M("host_reads_hand", "host reads"),
        M("you", "you"),
        M("seat_free", "free seat"),
        M("bot", "bot"),
        M("cards_in_hand", "{n} cards"),
        M("one_card_in_hand", "1 card"),
        M("opened", "opened"),
        M("not_opened", "not opened"),
        M("points", "{n} pts"),
        M("deals_won", "{n} won"),
        M("busted", "bust (sballato)"),
        M("gone", "left the match"),
        M("connected", "connected"),
        M("disconnected", "disconnected"),
        M("not_in_deal", "sits out"),
        M("connection_unknown", "? (reconnecting)"),
        M("reconnecting", "reconnecting…"),
        M("col_player", "player"),
        M("col_cards", "cards"),
        M("col_opened", "opened"),
        M("col_penalty", "penalty/bust at {limit}"),
        M("col_deals_won", "deals won"),
        M("no_melds", "No melds on the table yet."),
        M("discard_pile", "Discard pile (pozzo): {top} ({n})"),
        M("discard_pile_empty", "Discard pile (pozzo): empty"),
        M("stock", "Stock (tallone): {n}"),
        M("discard_under", "below:"),
        M("pile_takes", "taken: {takes}"),
        M("more_melds", "… {n} more: F3"),
        M("panel_melds", "Melds on the table"),
        M("melds_close", "Esc or F3 closes."),
        M("hand_empty", "No cards in hand."),
        M("hand_spectator", "Spectating: no hand."),
        M("sorted_by_suit", "by suit"),
        M("sorted_by_rank", "by rank"),
        M("status_your_draw", "Your turn: draw from the stock (draw) or take the discard (take)."),
        M("status_your_play", "Your turn: meld, attach, swap a joker, then discard."),
        M("status_wait_turn", "{name} to move."),
        M("status_wait_commit", "Deal {deal}: fair-deal commitments…"),
        M("status_wait_reveal", "Deal {deal}: seeds are being revealed…"),
        M("status_between_deals", "Waiting for the next deal."),
        M("status_waiting_players", "Waiting for players (start to begin)."),
        M("status_match_over", "The match is over."),
        M("status_reconnecting", "Connection lost: reconnecting… (attempt {n})"),
        M(
            "status_cut_prompt",
            "You cut the deck: type 1 to {max} and Enter, or just Enter to cut at random "
            "({secs} s).",
        ),
        M(
            "status_rientro_offer",
            "BUST! Buy back in (rientro) for {fee} chips → total {total} · {secs} s · "
            "rientro yes | no",
        ),
        M(
            "rientro_offer_mine",
            "You are bust. You may buy back in (rientro) for {fee} chips (you have {chips}): "
            "your total becomes {total}, that of the worst-placed player still in. Answer "
            "within {secs} s with 'rientro yes' (or 'buyback') or 'rientro no' (or "
            "'retire'); no answer retires you.",
        ),
        M("rientro_offer_other", "{name} may buy back in for {fee} chips: waiting for the answer."),
        M("rientro_sent_yes", "Buy-back sent: waiting for the host."),
        M("rientro_sent_no", "You retire from the match."),
        M("status_refused", "Refused — {reason}"),
        M("status_error", "Error: {reason}"),
        M("fingerprint", "host {fp}"),
        M("fingerprint_new", "host {fp} (new: remembered)"),
        M("fingerprint_changed", "WARNING: the host's fingerprint changed! was {old}, now {new}"),
        M("fd_announced", "deal {deal}: host commitment received"),
        M("fd_committed", "deal {deal}: your seed is committed"),
        M("fd_revealed", "deal {deal}: your seed is revealed"),
        M("fd_in_mix", "deal {deal}: your seed is in"),
        M("fd_verifying", "deal {deal}: verifying…"),
        M("fd_verified", "deal {deal}: your seed is in — verified ✔"),
        M("fd_verified_sat_out", "deal {deal}: you sat it out; checked as a third party ✔"),
        M("fd_verified_spectator", "deal {deal}: verified ✔"),
        M("fd_failed", "DEAL {deal}: VERIFICATION FAILED ✘ — {reason}"),
        # Which check failed (scala40_net.fairdeal.verify.CHECKS); the detail is in the log.
        M("fd_failed_signature", "DEAL {deal}: VERIFICATION FAILED ✘ — the host's signature"),
        M("fd_failed_chain", "DEAL {deal}: VERIFICATION FAILED ✘ — the chain of events"),
        M("fd_failed_commitment", "DEAL {deal}: VERIFICATION FAILED ✘ — a seed and its commitment"),
        M("fd_failed_mix", "DEAL {deal}: VERIFICATION FAILED ✘ — the seeds in the mix"),
        M("fd_failed_deck", "DEAL {deal}: VERIFICATION FAILED ✘ — the deck"),
        M("fd_failed_cut", "DEAL {deal}: VERIFICATION FAILED ✘ — the cut"),
        M("fd_failed_deal", "DEAL {deal}: VERIFICATION FAILED ✘ — the cards dealt"),
        M("fd_failed_draw", "DEAL {deal}: VERIFICATION FAILED ✘ — a card drawn"),
        M("fd_failed_rebuild", "DEAL {deal}: VERIFICATION FAILED ✘ — a rebuilt stock"),
        M("fd_failed_replay", "DEAL {deal}: VERIFICATION FAILED ✘ — a move against the rules"),
        M("fd_failed_private", "DEAL {deal}: VERIFICATION FAILED ✘ — the private deal's audit"),
        M(
            "fd_verified_host_played",
            "deal {deal}: verified ✔ (you were away: the host made your seed)",
        ),
        M(
            "fd_abandoned",
            "DEAL {deal} ABANDONED BY THE HOST: host seed published, check the record",
        ),
        M("fd_left_out", "WARNING: {name}'s seed left out of the mix ({why})"),
        M("fd_my_seed_left_out", "WARNING: YOUR seed is left out of the mix ({why})"),
        M(
            "fd_commit_mismatch",
            "WARNING: your commitment is not among those published: seed not revealed",
        ),
        M("fd_record_saved", "record saved to {path}"),
        M("fd_unavailable", "deal {deal}: verification unavailable ({reason})"),
        M("why_no_commitment", "no commitment"),
        M("why_no_reveal", "no reveal"),
        M("why_bad_reveal", "bad reveal"),
        M("why_unknown", "unknown reason"),
        M("log_match_started", "The match starts: first dealer {name} (drawn by the host)."),
        M("log_deal_announced", "Deal {deal}: dealer {dealer}, {cutter} cuts."),
        M("log_commitments", "Commitments published: {n}."),
        M("log_reveals", "Seeds revealed: {n}."),
        M("log_deal_started", "Cards dealt. First discard {card}; {name} plays first."),
        M("log_drew_stock", "{name} draws from the stock."),
        M("log_you_drew_stock", "You draw {card}."),
        M("log_took_discard", "{name} takes {card} from the discard pile."),
        M("log_opened", "{name} opens (apertura) with {points} points."),
        M("log_new_meld", "{name} lays down {cards}."),
        M("log_attach", "{name} attaches {cards} to meld {meld}."),
        M("log_swap", "{name} swaps the joker of meld {meld} for {card}."),
        M("log_discard", "{name} discards {card}."),
        M("log_went_out", "{name} goes out (chiude)!"),
        M(
            "log_discard_returned",
            "{name} puts {card} back on the discard pile; now draws from the stock.",
        ),
        M(
            "status_draw_after_return",
            "You put {card} back on the discard pile: now draw from the stock (draw).",
        ),
        M("log_chat", "{name}: {text}"),
        M("log_stock_rebuilt", "The discard pile becomes the new stock ({n} cards)."),
        M("log_deal_ended_out", "Deal {deal} over: {name} went out."),
        M(
            "log_deal_ended_in_hand",
            "Deal {deal} over: {name} went out in one turn (chiusura in mano)! Double points.",
        ),
        M("log_deal_void", "Deal {deal} void (stall): no score; the next dealer deals."),
        M("log_deal_abandoned", "Deal {deal} abandoned by the host."),
        M("log_host_seed", "The host reveals its seed."),
        M("log_deal_signed", "Deal {deal} record signed."),
        M(
            "log_missed_deal_verified",
            "Deal {deal}, which ended while you were away: record verified with your seed ✔",
        ),
        M(
            "log_missed_deal_failed",
            "Deal {deal}, which ended while you were away: VERIFICATION FAILED ✘",
        ),
        M("log_match_update", "Scores updated."),
        M("log_busted", "{name} busts (sballa)."),
        M(
            "log_gone",
            "{name} leaves the match: the private deal could not go on without them (R10.3).",
        ),
        M("log_rientro_offered", "{name} may buy back in for {fee} chips (rientro)."),
        M("log_bought_back", "{name} buys back in (rientro) with {total} points."),
        M("log_retired", "{name} retires from the match."),
        M("log_match_over", "Match over: {names} wins!"),
        M("log_seat_taken", "{name} takes seat {seat}."),
        M("log_seat_left", "Seat {seat} is free."),
        M("log_seat_connected", "{name} is connected."),
        M("log_seat_disconnected", "{name} disconnected."),
        M("log_snapshot", "Table view received."),
        M("log_hint", "Hint: {text}"),
        M("log_refused", "Refused — {reason}"),
        M("end_went_out", "{name}: went out → {penalty}"),
        M("end_total", "total {total}"),
        M("end_continue", "The next deal starts by itself."),
        M("end_went_out_in_hand", "{name}: went out in one turn (chiusura in mano) → {penalty}"),
        M("end_total_of", "total {total}/{limit}"),
        M("end_deals_won", "{n} won"),
        M("why_unopened", "not opened: 100 flat"),
        M("why_unopened_double", "not opened: hand ×2"),
        M("why_lone_ace", "lone ace: 1"),
        M("why_lone_ace_double", "lone ace: 1, ×2 chiusura in mano"),
        M("why_one_ace", "the hand's only ace: 1"),
        M("why_one_ace_double", "the hand's only ace: 1, ×2 chiusura in mano"),
        M("why_in_hand_double", "×2: chiusura in mano"),
        M(
            "end_press_ready",
            "Enter (or 'ready') when you have read this · next deal in {secs} s · F2 scores",
        ),
        M(
            "end_out_read",
            "You are out of the match: it goes on without you · Enter when you have read this "
            "· F2 scores",
        ),
        M("end_waiting_for", "Waiting for {names} · next deal in {secs} s · F2 scores"),
        M("end_next_deal_in", "Next deal in {secs} s · F2 scores"),
        M("standing_row", "{place}. {name}  {total}"),
        M("log_scrolled", "↓ {n} newer below · PgDn or End"),
        M("end_last_play", "   last play: {play}"),
        M("end_play_meld", "{cards}"),
        M("end_play_attach", "{cards} on meld {meld}"),
        M("end_play_swap", "{card} for the joker of meld {meld}"),
        M("end_play_discard", "discard {card}"),
        M("end_new_match", "F2 (or 'scores') shows the score sheet."),
        M(
            "end_rematch",
            "F2 (or 'scores') the score sheet · F5 (or 'new') another match, same seats · "
            "quit to leave.",
        ),
        M("rematch_sent", "Another match agreed: it starts once everyone at the table agrees."),
        M("log_rematch_agreed", "Another match, same seats: {names} agreed; waiting for {waiting}"),
        M("log_rematch_rules", "The next match's rules, as the first player changed them: {rules}"),
        M(
            "err_new_usage",
            "new, or new with other rules (first player): e.g. new 151, new 3d rientro=no "
            "({allowed})",
        ),
        M(
            "end_void_no_stock",
            "Deal {deal} void: the stock ran out with no card to rebuild it (R10.1); no score; "
            "the next dealer deals.",
        ),
        M("err_no_new_match", "a spectator does not play the next match"),
        M("err_match_not_over", "the match is not over yet"),
        M("ready_sent", "Ready: waiting for the others."),
        M("err_not_between_deals", "no deal to close: 'ready' is for the pause between deals"),
        M("panel_scores", "Score sheet"),
        M("sheet_deal", "Deal"),
        M("sheet_void", "void"),
        M("sheet_total", "Total"),
        M("sheet_empty", "No deal has ended yet."),
        M("sheet_legend", "+penalty and total · ✔ went out · red: bust · bust at {limit}"),
        M("sheet_legend_deals", "✔ went out and won the deal · Total = deals won"),
        M("sheet_close", "Esc or F2 closes the sheet."),
        M("plan_empty", "Nothing planned. meld/attach/swap, then discard."),
        M("plan_op_meld", "{n}. meld {cards}"),
        M("plan_op_attach", "{n}. attach {cards} to meld {meld}"),
        M("plan_op_swap", "{n}. swap meld {meld}'s joker for {card}"),
        M("plan_more_steps", "… {n} steps before (undo drops)"),
        M("plan_runs", "in runs of {runs}"),
        M("plan_opening_total", "opening {total}/{needed}"),
        M("plan_ok", "play is legal: now discard"),
        M("plan_problem", "not legal yet: {reason}"),
        M("plan_joker_taken", "joker to hand (it was {face}): lay it this turn"),
        M("plan_joker", "joker = {face}"),
        M("plan_joker_choice", "joker = {face} (or {other}: write JK({other}))"),
        M("plan_unchecked", "(unchecked: rules not available)"),
        M("hint_under_opening", "under the opening ({needed}): cannot be laid now"),
        M(
            "hint_taken_unusable",
            "no opening of {needed} holds {card}: put the taken card back (return)",
        ),
        M("hint_not_now", "an opening: lay it on your turn, after drawing"),
        M("hint_none", "No meld to lay down from this hand."),
        M("hint_draw_stock", "draw from the stock (draw)"),
        M("hint_take", "take {card} from the discard pile (take)"),
        M("hint_discard", "discard {card}"),
        M("err_unknown_command", "unknown command '{word}': type help"),
        M("err_not_card", "'{word}' is not a card: write rank then suit, like 7H, 10D, QS or JK"),
        M(
            "err_bad_suit",
            "'{word}': the suit must be H, D, C or S (hearts, diamonds, clubs, spades), or ♥ ♦ ♣ ♠",
        ),
        M("err_bad_rank", "'{word}': the rank must be A, 2-10, J, Q or K"),
        M("err_declare_joker_only", "'{word}': only a joker declares a card, like JK(8H)"),
        M("err_declare_joker", "'{word}': a joker stands for a real card, not a joker"),
        M("err_meld_usage", "meld which cards? e.g. meld 7H 8H 9H"),
        M("err_attach_usage", "attach to which meld? e.g. attach 3 10H"),
        M("err_swap_usage", "swap which joker? e.g. swap 2 7H"),
        M("err_discard_usage", "discard which card? e.g. discard KS"),
        M("err_meld_number", "'{word}' is not the number of a meld on the table"),
        M("err_no_such_meld", "there is no meld {n} on the table"),
        M(
            "err_split_usage",
            "'{word}': after / come the run lengths, e.g. meld 3H 4H 5H 6H 7H 8H 9H / 4 3",
        ),
        M("err_chat_usage", "chat what? e.g. chat hello all"),
        M("err_cut_number", "the cut is a number from 1 to {max}"),
        M("err_cut_not_number", "'{word}': the cut is a number"),
        M("err_rientro_usage", "rientro yes or rientro no (also: buyback, retire)"),
        M("err_no_rientro", "no buy-back is on offer to you now"),
        M("err_too_many", "too many words after '{word}'"),
        M("err_not_in_hand", "{card} is not in your hand"),
        M("err_already_planned", "{card} is already used in the planned play"),
        M("err_spectator", "you are spectating: you cannot play"),
        M("err_nothing_to_undo", "nothing to undo"),
        M("err_no_selection", "no card selected: move with ←/→ and pick with Space"),
        M("err_not_connected", "not connected to the host"),
        M(
            "quit_confirm",
            "The match is on: a bot takes your seat. Type '{word}' again (or Ctrl-Q) to leave.",
        ),
        M(
            "stand_in_confirm",
            "A host bot takes your seat with your keys for the rest of the match, and the "
            "host can then see your hand. Type '{word}' again to hand it over.",
        ),
        M(
            "stand_in_done",
            "Your seat is the stand-in's now: the host's bot plays it and can see its hand. "
            "Ctrl-Q leaves.",
        ),
        M(
            "err_stand_in_private",
            "only a seat at a private table, in a match, is handed to a stand-in",
        ),
        M("cleared", "planned play cleared"),
        M(
            "help_text",
            "Commands (the Italian words in brackets work too):\n"
            " draw (pesca) · take (prendi)  from the stock (tallone) · the discard (pozzo)\n"
            " return (rimetti)        put the taken discard back and draw instead\n"
            " meld 7H 8H 9H (cala)    lay down a meld; JK(8H) = a joker standing for 8H\n"
            " meld 3H … 9H / 4 3      cut a long sequence into runs of 4 and 3\n"
            " attach 3 10H (attacca)  attach cards to meld 3\n"
            " swap 2 7H (scambia)     put 7H in place of the joker of meld 2\n"
            " discard KS (scarta)     discard and send the whole play\n"
            " undo/clear/sort/hint    planned step / all off · sort the hand · what to play\n"
            " chat text · quit        write to the table · leave the table (esci)\n"
            " rientro yes | no        when bust: buy back in for chips, or retire\n"
            " ready / scores / back   deal read / scores / back after away\n"
            " new [151 | 3d rientro=no]  another match (first player: with other rules)\n"
            " absent 2 bot | wait     first player: a bot for absent seat 2, or more time\n"
            "Cards: 7H 10D QS AC JK (H♥ D♦ C♣ S♠), or as shown: 7♥ 10♦ Q♠; joker: JK(8H)\n"
            "Keys: Tab goes to the hand and back; in the hand ←/→ move, Space selects and\n"
            " steps right, Enter/c melds, a attaches, d discards, p draws, t takes, u undo,\n"
            " o sorts. ↑/↓ history, PgUp/PgDn log (End: newest), F1 help, F2 scores,\n"
            " F3 all melds, F4 absent seat, F5 another match, Ctrl-Q quit.",
        ),
        M("seat_away", "away, a bot plays"),
        M("log_away_timed_out", "{name}'s turn clock ran out: a bot plays for them until back"),
        M("log_away_disconnected", "{name} lost the connection: a bot plays for them until back"),
        M("log_away_handed_over", "{name}'s seat was handed to a bot until they are back"),
        M("log_away_left", "{name} left the match: a bot plays the seat to the end"),
        M(
            "log_away_stand_in",
            "{name} handed the seat with its keys to a host bot: the host can see that hand",
        ),
        M("log_seat_back", "{name} is back and plays again"),
        M("log_played_by_host", "The host played {name}'s turn: the turn clock ran out"),
        M(
            "status_you_away",
            "A bot plays for you while you are away. Type 'back' (torno) to play again.",
        ),
        M("back_asked", "Back at the table: your seat is yours again from the next turn."),
        M("err_not_away", "You are at the table already: nobody plays for you."),
        M("help_close", "Esc or F1 closes the help."),
        M(
            "err_absent_usage",
            "absent SEAT bot | wait | free, e.g. absent 2 bot: a bot plays seat 2 until its "
            "player is back; wait gives them more time; free (before the match) frees the seat",
        ),
        M("err_absent_self", "that is your own seat: you are here"),
        M(
            "err_nobody_absent",
            "No seat to decide for: nobody is absent, or the first person at the table decides",
        ),
        M("absent_prompt", "{name} is not here: add bot (a bot plays) or wait (more time), Enter"),
        M("absence_bot_done", "A bot plays {name}'s seat until they are back."),
        M("absence_wait_done", "{name} has more time to come back."),
        M("absence_free_done", "{name}'s seat is free again."),
        M("status_absent_turn", "{name} is not connected: F4 decides (a bot, or more time)"),
        M("lobby_title", "Tables on {host}"),
        M("lobby_none", "No tables yet: create one."),
        M("lobby_row", "{name}  [{preset}]  {seats}  {phase}"),
        M("lobby_locked", "password"),
        M("lobby_private", "private cards: nobody, not even the host, sees a hand"),
        M("lobby_host_reads", "the host reads the hands of {names}"),
        M("lobby_phase_waiting", "waiting"),
        M("lobby_phase_playing", "playing"),
        M("lobby_phase_finished", "finished"),
        M(
            "lobby_keys",
            "↑/↓ choose · Enter join · s spectate · n new table · h history · l standings · "
            "r refresh · q quit",
        ),
        M("lobby_rejoin", "your seat {seat}: rejoin"),
        M(
            "lobby_rejoin_hint",
            "You still hold a seat at '{name}': Enter to rejoin · ↑/↓ other tables · q quit",
        ),
        M("lobby_field_name", "Name"),
        M("lobby_field_preset", "Rules"),
        M("lobby_field_seats", "Seats"),
        M("lobby_field_bots", "Bots"),
        M("lobby_field_password", "Password (optional)"),
        M("lobby_field_match", "Match: bust limit (101, 151 …) or deals (3d)"),
        M("lobby_field_rientro", "Rientro: buy back in after busting (yes | no)"),
        M("lobby_field_turn", "Turn clock, seconds (0: none)"),
        M("lobby_field_grace", "Seconds a lost connection waits before a bot plays"),
        M("lobby_field_pause", "Pause between deals, seconds"),
        M("lobby_field_rules", "Other rules, name=value (opening_points=40 max_run=5 …)"),
        M(
            "lobby_field_private",
            "Private cards: nobody, not even the host, sees a hand (yes | no; but its bots')",
        ),
        M("lobby_field_level", "Bots' level"),
        M("lobby_field_invited", "Invited player keys (their fingerprints)"),
        M("lobby_invited_anyone", "anyone"),
        M(
            "lobby_invited_wrong",
            "A player key's fingerprint is 32 hex digits in blocks of 4 (XXXX-XXXX-…), as "
            "scala40 identity shows it; anyone: an open table",
        ),
        M("lobby_invited_too_many", "A table invites at most {most} keys besides yours"),
        M("lobby_levels", "easy | medium | hard | expert"),
        M("lobby_password_prompt", "Table password"),
        M("lobby_error", "Error: {reason}"),
        M("preset_classic", "classic"),
        M("preset_tradizionale", "tradizionale (traditional)"),
        M("preset_semplice", "semplice (simple)"),
        M("local_table_name", "{name}'s game"),
        M("lobby_people", "At this table: {people}"),
        M("history_title", "Your matches at {host}"),
        M("history_none", "No finished match yet."),
        M("history_not_served", "This host keeps no history of its matches (an older host)."),
        M("history_row", "{date}  {preset}  {deals} deal(s)  {standing}"),
        M("history_sheet_title", "{table} · ended {date}"),
        M("history_left", "left: a loss"),
        M("history_rating", "rating {before} → {after}"),
        M("history_bot_level", "bot {level}"),
        M("history_keys", "↑/↓ choose · Enter score sheet · Esc back"),
        M("sheet_keys", "Esc back to the matches"),
        M("history_above", "↑ {n} more above · PgUp"),
        M("history_below", "↓ {n} more below · PgDn"),
        M("standings_title", "Standings at {host} (rating: mu − 3 sigma)"),
        M("standings_player", "Player"),
        M("standings_rating", "Rating"),
        M("standings_matches", "Matches"),
        M("standings_wins", "Wins"),
        M("standings_opened", "Opened"),
        M("standings_penalty", "Penalty"),
        M("standings_in_hand", "In mano"),
        M("standings_none", "Nobody is rated at this host yet."),
        M("standings_keys", "Esc back"),
        M("match_rating", "Your rating at this host: {before} → {after}"),
        M("lobby_invited_only", "invited keys only"),
        M(
            "identity_readable",
            "Your player key {path} may be read by others: make it yours alone "
            "(chmod 600 {path}) and start again.",
        ),
        M("identity_unusable", "{path} is not a player key that can be used."),
        M(
            "identity_show",
            "Your player key: {fingerprint} (shown as {short} beside your name)\nKept in {path}; "
            "it never leaves this machine unless you export it.",
        ),
        M(
            "identity_target_exists",
            "{path} exists already: choose a file that does not exist yet.",
        ),
        M(
            "identity_exported",
            "Your player key {fingerprint} is in {path} (readable by you alone). Take it to your "
            "other machine and run scala40 identity import there; then delete this file. "
            "Whoever has it plays as you.",
        ),
        M(
            "identity_would_replace",
            "This machine has another player key ({fingerprint}): its seats and names go with it. "
            "Add --replace to use the imported one instead.",
        ),
        M("identity_imported", "This machine plays with the player key {fingerprint} from now on."),
        M(
            "fingerprint_refused",
            "Refused: {host} now shows the fingerprint {new}, not {old} as the last time. It may "
            "be another machine pretending to be it. If you know why it changed (the host was "
            "set up again), join with --accept-new-fingerprint, or with its new invite.",
        ),
        M(
            "insecure_warning",
            "WARNING: no TLS (--insecure): your seat token, the table password, your hand and "
            "your seeds travel in clear; anyone on the network can read them.",
        ),
        M("connect_failed", "Cannot reach {host}: {reason}"),
        M("hosts_title", "Scala 40 hosts on the LAN"),
        M("hosts_looking", "Looking for hosts on the LAN…"),
        M(
            "hosts_none",
            "No host answered yet (still looking). A host with --no-advertise, on another "
            "network or without TLS is not listed: join it with scala40 ADDRESS or its invite.",
        ),
        M("hosts_row", "{name}  {address}  open tables: {open}"),
        M("hosts_row_fp", "   fingerprint {fp}"),
        M("hosts_keys", "↑/↓ choose · Enter open its tables · q quit"),
        M("hosts_row_posing", "{row}  ⚠ not the {name} you joined before"),
        M(
            "hosts_ask_posing",
            "⚠ This {name} proves the fingerprint {new}, but the {name} you joined before has "
            "{old}: someone on the LAN may be posing as it. Open it anyway? y/n",
        ),
        M(
            "hosts_unavailable",
            "No list of LAN hosts: {reason}. Join by the host's address or invite instead: "
            "scala40 ADDRESS",
        ),
        M(
            "net_unreachable",
            "Nobody answers at {host}: the host may be down, or out of reach. Try again when "
            "it is back.",
        ),
        M(
            "net_not_the_host",
            "This is not the host you joined: its fingerprint is {found} (expected {expected}). "
            "Nothing more is sent to it.",
        ),
        M(
            "net_not_a_host",
            "{host} is not a Scala 40 host: its certificate proves no host's identity. Nothing "
            "more is sent to it.",
        ),
        M(
            "status_link_given_up",
            "No longer connected to the host (the log says why): Ctrl-Q leaves.",
        ),
    ]
)
