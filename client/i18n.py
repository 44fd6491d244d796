"""Every word the terminal client shows, in Italian and English, and how the language is chosen.

The Italian text uses the game's own terms (smazzata, mazziere, tallone,
pozzo, apertura, calare, attaccare, jolly, chiudere …); the English text
glosses them the first time a player is likely to meet them. Messages are
``str.format`` templates: both languages of a message take the same fields
(a test holds them to it).
"""

from __future__ import annotations

import os
import string
from collections.abc import Mapping
from typing import Literal

Lang = Literal["it", "en"]
LANGS: tuple[Lang, ...] = ("it", "en")

# key -> (italiano, english)
MESSAGES: dict[str, tuple[str, str]] = {
    # --- titles and panels ------------------------------------------------------------
    "app_title": ("Scala 40", "Scala 40"),
    "panel_hand": ("La tua mano", "Your hand"),
    "panel_log": ("Cronaca", "Log"),
    "panel_chat": ("Chat", "Chat"),
    "panel_help": ("Aiuto", "Help"),
    "panel_deal_end": ("Fine della smazzata {deal}", "End of deal {deal} (smazzata)"),
    "table_title": (
        "{table} · smazzata {deal} · mazziere {dealer}",
        "{table} · deal {deal} · dealer (mazziere) {dealer}",
    ),
    "table_title_waiting": ("{table} · in attesa", "{table} · waiting"),
    "spectator": ("spettatore", "spectator"),
    "you": ("tu", "you"),
    "seat_free": ("posto libero", "free seat"),
    "bot": ("bot", "bot"),
    # --- opponents --------------------------------------------------------------------
    "cards_in_hand": ("{n} carte", "{n} cards"),
    "one_card_in_hand": ("1 carta", "1 card"),
    "opened": ("aperto", "opened"),
    "not_opened": ("non aperto", "not opened"),
    "points": ("{n} punti", "{n} pts"),
    "deals_won": ("{n} vinte", "{n} won"),
    "busted": ("sballato", "bust (sballato)"),
    "connected": ("connesso", "connected"),
    "disconnected": ("disconnesso", "disconnected"),
    "not_in_deal": ("fuori smazzata", "sits out"),
    "connection_unknown": ("? (mi riconnetto)", "? (reconnecting)"),
    "reconnecting": ("mi riconnetto…", "reconnecting…"),
    "col_player": ("giocatore", "player"),
    "col_cards": ("carte", "cards"),
    "col_opened": ("apertura", "opened"),
    "col_penalty": ("penalità/sballa a {limit}", "penalty/bust at {limit}"),
    "col_deals_won": ("smazzate vinte", "deals won"),
    # --- table ------------------------------------------------------------------------
    "no_melds": ("Nessuna combinazione sul tavolo.", "No melds on the table yet."),
    "discard_pile": ("Pozzo: {top} ({n})", "Discard pile (pozzo): {top} ({n})"),
    "discard_pile_empty": ("Pozzo: vuoto", "Discard pile (pozzo): empty"),
    "stock": ("Tallone: {n}", "Stock (tallone): {n}"),
    "discard_under": ("sotto:", "below:"),
    "pile_takes": ("presi: {takes}", "taken: {takes}"),
    "more_melds": ("… altre {n}: F3", "… {n} more: F3"),
    "panel_melds": ("Combinazioni sul tavolo", "Melds on the table"),
    "melds_close": ("Esc o F3 chiude.", "Esc or F3 closes."),
    # --- hand -------------------------------------------------------------------------
    "hand_empty": ("Nessuna carta in mano.", "No cards in hand."),
    "hand_spectator": ("Guardi la partita: nessuna mano.", "Spectating: no hand."),
    "sorted_by_suit": ("per seme", "by suit"),
    "sorted_by_rank": ("per valore", "by rank"),
    # --- status line ------------------------------------------------------------------
    "status_your_draw": (
        "Tocca a te: pesca (draw/pesca) o prendi dal pozzo (take/prendi).",
        "Your turn: draw from the stock (draw) or take the discard (take).",
    ),
    "status_your_play": (
        "Tocca a te: cala, attacca, scambia il jolly, poi scarta (discard/scarta).",
        "Your turn: meld, attach, swap a joker, then discard.",
    ),
    "status_wait_turn": ("Tocca a {name}.", "{name} to move."),
    "status_wait_commit": (
        "Smazzata {deal}: gli impegni del mescolamento equo…",
        "Deal {deal}: fair-deal commitments…",
    ),
    "status_wait_reveal": (
        "Smazzata {deal}: si rivelano i segreti del mescolamento…",
        "Deal {deal}: seeds are being revealed…",
    ),
    "status_between_deals": ("In attesa della prossima smazzata.", "Waiting for the next deal."),
    "status_waiting_players": (
        "In attesa dei giocatori (start/inizia per cominciare).",
        "Waiting for players (start to begin).",
    ),
    "status_match_over": ("Partita finita.", "The match is over."),
    "status_reconnecting": (
        "Connessione persa: mi riconnetto… (tentativo {n})",
        "Connection lost: reconnecting… (attempt {n})",
    ),
    "status_cut_prompt": (
        "Tagli tu il mazzo: un numero da 1 a {max} e Invio, o Invio a caso ({secs} s).",
        "You cut the deck: type 1 to {max} and Enter, or just Enter to cut at random ({secs} s).",
    ),
    "status_rientro_offer": (
        "SBALLATO! Rientro per {fee} fiches → totale {total} · {secs} s · rientro sì | no",
        "BUST! Buy back in (rientro) for {fee} chips → total {total} · {secs} s · rientro yes | no",
    ),
    "rientro_offer_mine": (
        "Sei sballato. Puoi rientrare per {fee} fiches (ne hai {chips}): il tuo totale diventa "
        "{total}, quello del peggiore ancora in gioco. Rispondi entro {secs} s con «rientro sì» "
        "(o «rientra») oppure «rientro no» (o «ritirati»); senza risposta ti ritiri.",
        "You are bust. You may buy back in (rientro) for {fee} chips (you have {chips}): your "
        "total becomes {total}, that of the worst-placed player still in. Answer within {secs} s "
        "with 'rientro yes' (or 'buyback') or 'rientro no' (or 'retire'); no answer retires you.",
    ),
    "rientro_offer_other": (
        "{name} può rientrare per {fee} fiches: si attende la risposta.",
        "{name} may buy back in for {fee} chips: waiting for the answer.",
    ),
    "rientro_sent_yes": (
        "Rientro chiesto: attendi la conferma dell'host.",
        "Buy-back sent: waiting for the host.",
    ),
    "rientro_sent_no": ("Ti ritiri dalla partita.", "You retire from the match."),
    "status_refused": ("Rifiutata — {reason}", "Refused — {reason}"),
    "status_error": ("Errore: {reason}", "Error: {reason}"),
    "fingerprint": ("host {fp}", "host {fp}"),
    "fingerprint_new": (
        "host {fp} (nuovo: ricordato)",
        "host {fp} (new: remembered)",
    ),
    "fingerprint_changed": (
        "ATTENZIONE: l'impronta dell'host è cambiata! era {old}, ora {new}",
        "WARNING: the host's fingerprint changed! was {old}, now {new}",
    ),
    # --- fair deal --------------------------------------------------------------------
    "fd_announced": (
        "smazzata {deal}: impegno dell'host ricevuto",
        "deal {deal}: host commitment received",
    ),
    "fd_committed": (
        "smazzata {deal}: il tuo segreto è impegnato",
        "deal {deal}: your seed is committed",
    ),
    "fd_revealed": (
        "smazzata {deal}: il tuo segreto è rivelato",
        "deal {deal}: your seed is revealed",
    ),
    "fd_in_mix": (
        "smazzata {deal}: il tuo segreto è nel mescolamento",
        "deal {deal}: your seed is in",
    ),
    "fd_verifying": ("smazzata {deal}: verifica in corso…", "deal {deal}: verifying…"),
    "fd_verified": (
        "smazzata {deal}: il tuo segreto è nel mescolamento — verificata ✔",
        "deal {deal}: your seed is in — verified ✔",
    ),
    "fd_verified_sat_out": (
        "smazzata {deal}: non l'hai giocata, verificata da terzo ✔",
        "deal {deal}: you sat it out; checked as a third party ✔",
    ),
    "fd_verified_spectator": ("smazzata {deal}: verificata ✔", "deal {deal}: verified ✔"),
    "fd_failed": (
        "SMAZZATA {deal}: VERIFICA FALLITA ✘ — {reason}",
        "DEAL {deal}: VERIFICATION FAILED ✘ — {reason}",
    ),
    "fd_abandoned": (
        "SMAZZATA {deal} ABBANDONATA DALL'HOST: segreto dell'host pubblicato, "
        "controlla il registro",
        "DEAL {deal} ABANDONED BY THE HOST: host seed published, check the record",
    ),
    "fd_left_out": (
        "ATTENZIONE: segreto di {name} escluso dal mescolamento ({why})",
        "WARNING: {name}'s seed left out of the mix ({why})",
    ),
    "fd_my_seed_left_out": (
        "ATTENZIONE: il TUO segreto è escluso dal mescolamento ({why})",
        "WARNING: YOUR seed is left out of the mix ({why})",
    ),
    "fd_commit_mismatch": (
        "ATTENZIONE: il tuo impegno non è tra quelli pubblicati: segreto non rivelato",
        "WARNING: your commitment is not among those published: seed not revealed",
    ),
    "fd_record_saved": ("registro salvato in {path}", "record saved to {path}"),
    "fd_unavailable": (
        "smazzata {deal}: verifica non disponibile ({reason})",
        "deal {deal}: verification unavailable ({reason})",
    ),
    "why_no_commitment": ("nessun impegno", "no commitment"),
    "why_no_reveal": ("nessuna rivelazione", "no reveal"),
    "why_bad_reveal": ("rivelazione errata", "bad reveal"),
    "why_unknown": ("motivo sconosciuto", "unknown reason"),
    # --- log --------------------------------------------------------------------------
    "log_match_started": (
        "La partita comincia: primo mazziere {name} (sorteggiato dall'host).",
        "The match starts: first dealer {name} (drawn by the host).",
    ),
    "log_deal_announced": (
        "Smazzata {deal}: mazziere {dealer}, taglia {cutter}.",
        "Deal {deal}: dealer {dealer}, {cutter} cuts.",
    ),
    "log_commitments": ("Impegni pubblicati: {n}.", "Commitments published: {n}."),
    "log_reveals": ("Segreti rivelati: {n}.", "Seeds revealed: {n}."),
    "log_deal_started": (
        "Carte date. Primo scarto {card}; gioca per primo {name}.",
        "Cards dealt. First discard {card}; {name} plays first.",
    ),
    "log_drew_stock": ("{name} pesca dal tallone.", "{name} draws from the stock."),
    "log_you_drew_stock": ("Peschi {card}.", "You draw {card}."),
    "log_took_discard": (
        "{name} prende {card} dal pozzo.",
        "{name} takes {card} from the discard pile.",
    ),
    "log_opened": (
        "{name} apre con {points} punti.",
        "{name} opens (apertura) with {points} points.",
    ),
    "log_new_meld": ("{name} cala {cards}.", "{name} lays down {cards}."),
    "log_attach": (
        "{name} attacca {cards} alla combinazione {meld}.",
        "{name} attaches {cards} to meld {meld}.",
    ),
    "log_swap": (
        "{name} scambia il jolly della combinazione {meld} con {card}.",
        "{name} swaps the joker of meld {meld} for {card}.",
    ),
    "log_discard": ("{name} scarta {card}.", "{name} discards {card}."),
    "log_went_out": ("{name} chiude!", "{name} goes out (chiude)!"),
    "log_discard_returned": (
        "{name} rimette {card} nel pozzo; ora pesca dal tallone.",
        "{name} puts {card} back on the discard pile; now draws from the stock.",
    ),
    "status_draw_after_return": (
        "Hai rimesso {card} nel pozzo: ora pesca dal tallone (pesca).",
        "You put {card} back on the discard pile: now draw from the stock (draw).",
    ),
    "log_chat": ("{name}: {text}", "{name}: {text}"),
    "log_stock_rebuilt": (
        "Il pozzo diventa il nuovo tallone ({n} carte).",
        "The discard pile becomes the new stock ({n} cards).",
    ),
    "log_deal_ended_out": (
        "Smazzata {deal} finita: chiude {name}.",
        "Deal {deal} over: {name} went out.",
    ),
    "log_deal_ended_in_hand": (
        "Smazzata {deal} finita: {name} chiude in mano! Punti doppi.",
        "Deal {deal} over: {name} went out in one turn (chiusura in mano)! Double points.",
    ),
    "log_deal_void": (
        "Smazzata {deal} nulla (stallo): nessun punto, stesso mazziere.",
        "Deal {deal} void (stall): no score, same dealer.",
    ),
    "log_deal_abandoned": (
        "Smazzata {deal} abbandonata dall'host.",
        "Deal {deal} abandoned by the host.",
    ),
    "log_host_seed": ("L'host rivela il suo segreto.", "The host reveals its seed."),
    "log_deal_signed": ("Registro della smazzata {deal} firmato.", "Deal {deal} record signed."),
    "log_missed_deal_verified": (
        "Smazzata {deal}, finita mentre eri via: registro verificato col tuo segreto ✔",
        "Deal {deal}, which ended while you were away: record verified with your seed ✔",
    ),
    "log_missed_deal_failed": (
        "Smazzata {deal}, finita mentre eri via: VERIFICA FALLITA ✘",
        "Deal {deal}, which ended while you were away: VERIFICATION FAILED ✘",
    ),
    "log_match_update": ("Punteggi aggiornati.", "Scores updated."),
    "log_busted": ("{name} sballa.", "{name} busts (sballa)."),
    "log_rientro_offered": (
        "{name} può rientrare per {fee} fiches (rientro).",
        "{name} may buy back in for {fee} chips (rientro).",
    ),
    "log_bought_back": (
        "{name} rientra in partita con {total} punti.",
        "{name} buys back in (rientro) with {total} points.",
    ),
    "log_retired": ("{name} si ritira dalla partita.", "{name} retires from the match."),
    "log_match_over": ("Partita finita: vince {names}!", "Match over: {names} wins!"),
    "log_seat_taken": ("{name} si siede al posto {seat}.", "{name} takes seat {seat}."),
    "log_seat_left": ("Il posto {seat} è libero.", "Seat {seat} is free."),
    "log_seat_connected": ("{name} è connesso.", "{name} is connected."),
    "log_seat_disconnected": ("{name} si è disconnesso.", "{name} disconnected."),
    "log_snapshot": ("Vista del tavolo ricevuta.", "Table view received."),
    "log_hint": ("Suggerimento: {text}", "Hint: {text}"),
    "log_refused": ("Rifiutata — {reason}", "Refused — {reason}"),
    # --- end of deal ------------------------------------------------------------------
    "end_went_out": ("{name}: chiude → {penalty}", "{name}: went out → {penalty}"),
    "end_total": ("totale {total}", "total {total}"),
    "end_continue": ("La prossima smazzata comincia da sola.", "The next deal starts by itself."),
    "end_went_out_in_hand": (
        "{name}: chiude in mano → {penalty}",
        "{name}: went out in one turn (chiusura in mano) → {penalty}",
    ),
    "end_total_of": ("totale {total}/{limit}", "total {total}/{limit}"),
    "end_deals_won": ("{n} vinte", "{n} won"),
    "why_unopened": ("non ha aperto: 100", "not opened: 100 flat"),
    "why_unopened_double": ("non ha aperto: mano ×2", "not opened: hand ×2"),
    "why_lone_ace": ("asso da solo: 1", "lone ace: 1"),
    "why_lone_ace_double": (
        "asso da solo: 1, ×2 chiusura in mano",
        "lone ace: 1, ×2 chiusura in mano",
    ),
    "why_in_hand_double": ("×2: chiusura in mano", "×2: chiusura in mano"),
    "end_press_ready": (
        "Invio (o «pronto») quando hai letto · prossima smazzata fra {secs} s · F2 punti",
        "Enter (or 'ready') when you have read this · next deal in {secs} s · F2 scores",
    ),
    "end_waiting_for": (
        "Si aspetta {names} · prossima smazzata fra {secs} s · F2 punti",
        "Waiting for {names} · next deal in {secs} s · F2 scores",
    ),
    "end_next_deal_in": (
        "Prossima smazzata fra {secs} s · F2 punti",
        "Next deal in {secs} s · F2 scores",
    ),
    "standing_row": ("{place}. {name}  {total}", "{place}. {name}  {total}"),
    "end_new_match": (
        "F2 (o «punti») mostra il foglio dei punti.",
        "F2 (or 'scores') shows the score sheet.",
    ),
    "end_new_match_local": (
        "F2 (o «punti») il foglio dei punti · n nuova partita · esci per uscire.",
        "F2 (or 'scores') the score sheet · n a new match · quit to leave.",
    ),
    "ready_sent": ("Pronto: si aspettano gli altri.", "Ready: waiting for the others."),
    "err_not_between_deals": (
        "nessuna smazzata da chiudere: «pronto» vale tra una smazzata e l'altra",
        "no deal to close: 'ready' is for the pause between deals",
    ),
    "panel_scores": ("Foglio dei punti", "Score sheet"),
    "sheet_deal": ("Sm.", "Deal"),
    "sheet_void": ("nulla", "void"),
    "sheet_total": ("Tot.", "Total"),
    "sheet_empty": ("Nessuna smazzata finita.", "No deal has ended yet."),
    "sheet_legend": (
        "+penalità e totale · ✔ ha chiuso · in rosso chi sballa · si sballa a {limit}",
        "+penalty and total · ✔ went out · red: bust · bust at {limit}",
    ),
    "sheet_legend_deals": (
        "✔ ha chiuso e vince la smazzata · Tot. = smazzate vinte",
        "✔ went out and won the deal · Total = deals won",
    ),
    "sheet_close": ("Esc o F2 chiude il foglio.", "Esc or F2 closes the sheet."),
    # --- planning ---------------------------------------------------------------------
    "plan_empty": (
        "Niente in preparazione. cala/attacca/scambia, poi scarta.",
        "Nothing planned. meld/attach/swap, then discard.",
    ),
    "plan_op_meld": ("{n}. cala {cards}", "{n}. meld {cards}"),
    "plan_op_attach": (
        "{n}. attacca {cards} alla combinazione {meld}",
        "{n}. attach {cards} to meld {meld}",
    ),
    "plan_op_swap": (
        "{n}. scambia il jolly della combinazione {meld} con {card}",
        "{n}. swap meld {meld}'s joker for {card}",
    ),
    "plan_more_steps": ("… {n} mosse prima (annulla le toglie)", "… {n} steps before (undo drops)"),
    "plan_runs": ("in scale da {runs}", "in runs of {runs}"),
    "plan_opening_total": ("apertura {total}/{needed}", "opening {total}/{needed}"),
    "plan_ok": ("giocata valida: ora scarta", "play is legal: now discard"),
    "plan_problem": ("non ancora valida: {reason}", "not legal yet: {reason}"),
    "plan_joker_taken": (
        "jolly in mano (era {face}): va calato in questo turno",
        "joker to hand (it was {face}): lay it this turn",
    ),
    "plan_joker": ("jolly = {face}", "joker = {face}"),
    "plan_joker_choice": (
        "jolly = {face} (oppure {other}: scrivi JK({other}))",
        "joker = {face} (or {other}: write JK({other}))",
    ),
    "plan_unchecked": (
        "(non verificata: regole non disponibili)",
        "(unchecked: rules not available)",
    ),
    "hint_under_opening": (
        "sotto l'apertura ({needed}): non si può calare ora",
        "under the opening ({needed}): cannot be laid now",
    ),
    "hint_taken_unusable": (
        "nessuna apertura da {needed} contiene {card}: rimetti la carta presa (rimetti)",
        "no opening of {needed} holds {card}: put the taken card back (return)",
    ),
    "hint_not_now": (
        "apertura possibile: calala al tuo turno, dopo aver pescato",
        "an opening: lay it on your turn, after drawing",
    ),
    "hint_none": (
        "Nessuna combinazione da calare con questa mano.",
        "No meld to lay down from this hand.",
    ),
    # --- command errors ---------------------------------------------------------------
    "err_unknown_command": (
        "comando sconosciuto «{word}»: scrivi aiuto",
        "unknown command '{word}': type help",
    ),
    "err_not_card": (
        "«{word}» non è una carta: scrivi valore e seme, come 7C, 10Q, QP o JK",
        "'{word}' is not a card: write rank then suit, like 7H, 10D, QS or JK",
    ),
    "err_bad_suit": (
        "«{word}»: il seme è C (cuori), Q (quadri), F (fiori) o P (picche), o ♥ ♦ ♣ ♠",
        "'{word}': the suit must be H, D, C or S (hearts, diamonds, clubs, spades), or ♥ ♦ ♣ ♠",
    ),
    "err_bad_rank": (
        "«{word}»: il valore è A, 2-10, J, Q o K",
        "'{word}': the rank must be A, 2-10, J, Q or K",
    ),
    "err_declare_joker_only": (
        "«{word}»: solo un jolly dichiara una carta, come JK(8C)",
        "'{word}': only a joker declares a card, like JK(8H)",
    ),
    "err_declare_joker": (
        "«{word}»: un jolly sta per una carta vera, non per un jolly",
        "'{word}': a joker stands for a real card, not a joker",
    ),
    "err_meld_usage": (
        "cala quali carte? es.: cala 7C 8C 9C",
        "meld which cards? e.g. meld 7H 8H 9H",
    ),
    "err_attach_usage": (
        "attacca a quale combinazione? es.: attacca 3 10C",
        "attach to which meld? e.g. attach 3 10H",
    ),
    "err_swap_usage": (
        "scambia quale jolly? es.: scambia 2 7C",
        "swap which joker? e.g. swap 2 7H",
    ),
    "err_discard_usage": (
        "scarta quale carta? es.: scarta KP",
        "discard which card? e.g. discard KS",
    ),
    "err_meld_number": (
        "«{word}» non è il numero di una combinazione sul tavolo",
        "'{word}' is not the number of a meld on the table",
    ),
    "err_no_such_meld": (
        "non c'è la combinazione {n} sul tavolo",
        "there is no meld {n} on the table",
    ),
    "err_split_usage": (
        "«{word}»: dopo / le lunghezze delle scale, es.: cala 3C 4C 5C 6C 7C 8C 9C / 4 3",
        "'{word}': after / come the run lengths, e.g. meld 3H 4H 5H 6H 7H 8H 9H / 4 3",
    ),
    "err_chat_usage": ("chat cosa? es.: chat ciao a tutti", "chat what? e.g. chat hello all"),
    "err_cut_number": (
        "il taglio è un numero da 1 a {max}",
        "the cut is a number from 1 to {max}",
    ),
    "err_cut_not_number": ("«{word}»: il taglio è un numero", "'{word}': the cut is a number"),
    "err_rientro_usage": (
        "rientro sì oppure rientro no (anche: rientra, ritirati)",
        "rientro yes or rientro no (also: buyback, retire)",
    ),
    "err_no_rientro": (
        "nessun rientro ti è offerto ora",
        "no buy-back is on offer to you now",
    ),
    "err_too_many": ("troppe parole dopo «{word}»", "too many words after '{word}'"),
    "err_not_in_hand": ("{card} non è nella tua mano", "{card} is not in your hand"),
    "err_already_planned": (
        "{card} è già usata nella giocata in preparazione",
        "{card} is already used in the planned play",
    ),
    "err_spectator": ("guardi soltanto: non puoi giocare", "you are spectating: you cannot play"),
    "err_nothing_to_undo": ("niente da annullare", "nothing to undo"),
    "err_no_selection": (
        "nessuna carta scelta: spostati con ←/→ e scegli con Spazio",
        "no card selected: move with ←/→ and pick with Space",
    ),
    "err_not_connected": ("non connesso all'host", "not connected to the host"),
    "quit_confirm": (
        "La partita è in corso: un bot prende il tuo posto. Scrivi di nuovo «{word}» "
        "(o Ctrl-Q) per uscire davvero.",
        "The match is on: a bot takes your seat. Type '{word}' again (or Ctrl-Q) to leave.",
    ),
    "cleared": ("giocata in preparazione azzerata", "planned play cleared"),
    # --- help -------------------------------------------------------------------------
    "help_text": (
        "Comandi (valgono anche le parole inglesi tra parentesi):\n"
        " pesca (draw)            pesca dal tallone\n"
        " prendi (take)           prendi la carta in cima al pozzo\n"
        " rimetti (return)        rimetti nel pozzo la carta presa e pesca\n"
        " cala 7C 8C 9C (meld)    cala una combinazione; JK(8C) = jolly per 8C\n"
        " cala 3C … 9C / 4 3      taglia una scala lunga in scale da 4 e 3\n"
        " attacca 3 10C (attach)  attacca carte alla combinazione 3\n"
        " scambia 2 7C (swap)     metti 7C al posto del jolly della combinazione 2\n"
        " scarta KP (discard)     scarta e invia tutta la giocata\n"
        " annulla / azzera        togli l'ultima mossa / tutte (undo / clear)\n"
        " ordina / suggerisci     mano per seme o valore / proponi (sort / hint)\n"
        " chat testo · esci       scrivi al tavolo · lascia il tavolo (quit)\n"
        " rientro sì | no         da sballato: rientra pagando le fiches, o ritirati\n"
        " pronto / punti          fine smazzata letta / foglio punti (ready / scores)\n"
        "Carte: valore e seme: C cuori, Q quadri, F fiori, P picche (o ♥♦♣♠), JK.\n"
        "Tasti: Tab va alla mano e torna; nella mano ←/→ scegli, Spazio seleziona,\n"
        " Invio/c cala, a attacca, d scarta, p pesca, t prendi, u annulla, o ordina.\n"
        " ↑/↓ storia, PagSu/PagGiù cronaca, F1 aiuto, F2 punti, F3 tavolo, Ctrl-Q esci.",
        "Commands (the Italian words in brackets work too):\n"
        " draw (pesca)            draw from the stock (tallone)\n"
        " take (prendi)           take the top of the discard pile (pozzo)\n"
        " return (rimetti)        put the taken discard back and draw instead\n"
        " meld 7H 8H 9H (cala)    lay down a meld; JK(8H) = a joker standing for 8H\n"
        " meld 3H … 9H / 4 3      cut a long sequence into runs of 4 and 3\n"
        " attach 3 10H (attacca)  attach cards to meld 3\n"
        " swap 2 7H (scambia)     put 7H in place of the joker of meld 2\n"
        " discard KS (scarta)     discard and send the whole play\n"
        " undo / clear            drop the last planned step / all (annulla / azzera)\n"
        " sort / hint             hand by suit or rank / a play (ordina / suggerisci)\n"
        " chat text · quit        write to the table · leave the table (esci)\n"
        " rientro yes | no        when bust: buy back in for chips, or retire\n"
        " ready / scores          end of deal read / score sheet (pronto / punti)\n"
        "Cards: rank and suit: H hearts, D diamonds, C clubs, S spades (♥♦♣♠), JK.\n"
        "Keys: Tab goes to the hand and back; in the hand ←/→ move, Space selects,\n"
        " Enter/c melds, a attaches, d discards, p draws, t takes, u undo, o sorts.\n"
        " ↑/↓ history, PgUp/PgDn log, F1 help, F2 scores, F3 all melds, Ctrl-Q quit.",
    ),
    "help_close": ("Esc o F1 chiude l'aiuto.", "Esc or F1 closes the help."),
    # --- lobby ------------------------------------------------------------------------
    "lobby_title": ("Tavoli su {host}", "Tables on {host}"),
    "lobby_none": ("Nessun tavolo: creane uno.", "No tables yet: create one."),
    "lobby_row": ("{name}  [{preset}]  {seats}  {phase}", "{name}  [{preset}]  {seats}  {phase}"),
    "lobby_locked": ("con password", "password"),
    "lobby_phase_waiting": ("in attesa", "waiting"),
    "lobby_phase_playing": ("in gioco", "playing"),
    "lobby_phase_finished": ("finita", "finished"),
    "lobby_keys": (
        "↑/↓ scegli · Invio siediti · s guarda · n nuovo tavolo · r aggiorna · q esci",
        "↑/↓ choose · Enter join · s spectate · n new table · r refresh · q quit",
    ),
    "lobby_rejoin": ("il tuo posto {seat}: riprendilo", "your seat {seat}: rejoin"),
    "lobby_rejoin_hint": (
        "Hai ancora un posto a «{name}»: Invio per riprenderlo · ↑/↓ altri tavoli · q esci",
        "You still hold a seat at '{name}': Enter to rejoin · ↑/↓ other tables · q quit",
    ),
    "lobby_field_name": ("Nome", "Name"),
    "lobby_field_preset": ("Regole", "Rules"),
    "lobby_field_seats": ("Posti", "Seats"),
    "lobby_field_bots": ("Bot", "Bots"),
    "lobby_field_password": ("Password (facoltativa)", "Password (optional)"),
    "lobby_field_level": ("Livello dei bot", "Bots' level"),
    "lobby_levels": ("facile | medio | difficile", "easy | medium | hard"),
    "lobby_password_prompt": ("Password del tavolo", "Table password"),
    "lobby_error": ("Errore: {reason}", "Error: {reason}"),
    "preset_classic": ("classica", "classic"),
    "preset_tradizionale": ("tradizionale", "tradizionale (traditional)"),
    "preset_semplice": ("semplice", "semplice (simple)"),
    # --- play / host launchers --------------------------------------------------------
    "local_table_name": ("Partita di {name}", "{name}'s game"),
    "host_join_hint": (
        "Gli altri giocatori della rete locale si uniscono con:  {command}",
        "Players on the LAN join with:  {command}",
    ),
    "connect_failed": ("Impossibile raggiungere {host}: {reason}", "Cannot reach {host}: {reason}"),
}


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def template_fields(key: str) -> tuple[set[str], set[str]]:
    """The fields of both language templates of ``key`` (for the consistency test)."""
    it, en = MESSAGES[key]
    return _fields(it), _fields(en)


class Text:
    """Messages in one language: ``text("cards_in_hand", n=3)``."""

    def __init__(self, lang: Lang) -> None:
        self.lang: Lang = lang

    def __call__(self, key: str, **fields: object) -> str:
        it, en = MESSAGES[key]
        template = it if self.lang == "it" else en
        return template.format(**fields) if fields else template


def detect_lang(choice: str | None = None, environ: Mapping[str, str] | None = None) -> Lang:
    """``--lang`` if given, else the locale (LC_ALL, LC_MESSAGES, LANG): Italian for ``it*``."""
    if choice:
        if choice not in LANGS:
            raise ValueError(f"language {choice!r}: choose it or en")
        return choice
    env = os.environ if environ is None else environ
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = env.get(var, "")
        if value:
            return "it" if value.lower().startswith("it") else "en"
    return "en"
