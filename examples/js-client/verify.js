// Verifies one deal from its public event bytes (and one seat's private events, seed and cut)
// as docs/FAIR_DEAL.md "What a verifier checks" says: the chain and signature, the
// commitments, the mix, the deck, cut and deal, every draw, every rebuilt stock, and every
// card laid, discarded or shown at the end followed from hand to table.
"use strict";

const fd = require("./fairdeal");
const { decodeDealEvent, decodePrivateEvent } = require("./proto");

class VerifyError extends Error {
  constructor(check, event, reason) {
    super(`FAILED ${check} at event ${event}: ${reason}`);
    this.check = check;
    this.event = event;
  }
}

const hex = (b) => Buffer.from(b).toString("hex");
const isJoker = (card) => card % 54 >= 52;
const sameCards = (a, b) => JSON.stringify([...a].sort((x, y) => x - y)) === JSON.stringify([...b].sort((x, y) => x - y));
const ORDER = { announced: 0, commitments: 1, reveals: 2, started: 3 };

// A record file (FAIR_DEAL.md "Record file") as the input verifyDeal takes.
function dealFromRecord(record) {
  const b64 = (text) => Buffer.from(text, "base64");
  return {
    tableId: record.table_id, dealNo: record.deal_no, events: record.events.map(b64),
    signature: Buffer.from(record.signature, "hex"),
    hostPublicKey: Buffer.from(record.host_public_key, "hex"),
    seat: record.private ? record.private.seat : null,
    privateEvents: record.private
      ? record.private.events.map((p) => ({ withEvent: p.with_event, bytes: b64(p.event) })) : [],
  };
}

// deal: {tableId, dealNo, events: [Buffer], signature, hostPublicKey, seat, privateEvents:
// [{withEvent, bytes}], mySeed?, myCut?, fingerprint?}. Returns a summary; throws VerifyError.
function verifyDeal(deal) {
  const { tableId, dealNo, events } = deal;
  const fail = (check, k, reason) => { throw new VerifyError(check, k, reason); };

  // The chain over the exact bytes, and the host's signature over its head.
  const head = fd.chainHead(tableId, dealNo, events);
  if (deal.fingerprint && fd.fingerprint(deal.hostPublicKey) !== deal.fingerprint) {
    fail("signature", 0, `the record is signed by ${fd.fingerprint(deal.hostPublicKey)}, not ${deal.fingerprint}`);
  }
  if (!fd.verifyRecordSignature(deal.hostPublicKey, tableId, dealNo, head, deal.signature)) {
    fail("signature", events.length - 1, "the signature does not match the chain head");
  }
  if (deal.chainHead && !head.equals(deal.chainHead)) {
    fail("chain", events.length - 1, `chain head ${hex(head)}, the host signed ${hex(deal.chainHead)}`);
  }

  const decoded = events.map((bytes, k) => {
    let e;
    try { e = decodeDealEvent(bytes); } catch (err) { fail("chain", k, `not a DealEvent: ${err.message}`); }
    if (e.table_id !== tableId || e.deal_no !== dealNo) fail("chain", k, "an event of another deal");
    return e;
  });
  let step = -1;
  decoded.forEach((e, k) => {
    const at = ORDER[e.event] !== undefined ? ORDER[e.event] : e.event === "host_seed_revealed" ? 6 : e.event === "ended" ? 5 : 4;
    if (at < step || (at === step && at !== 4) || (k === 0 && at !== 0)) fail("chain", k, `${e.event} out of order`);
    if (at === 4 && step < 3) fail("chain", k, `${e.event} before the deal started`);
    step = at;
  });
  const find = (kind) => decoded.findIndex((e) => e.event === kind);
  const kSeed = find("host_seed_revealed");
  if (kSeed !== events.length - 1) fail("commitment", events.length - 1, "the host's seed is not revealed last");

  // Commitments.
  const ann = decoded[0].announced;
  const hostSeed = decoded[kSeed].host_seed_revealed.host_seed;
  if (!fd.hostCommitment(tableId, dealNo, hostSeed).equals(ann.host_commitment)) {
    fail("commitment", kSeed, "s_host does not match C_host");
  }
  const seats = ann.seats_in_play, n = seats.length, size = ann.deck_size;
  if (fd.cutterSeat(ann.dealer_seat, seats) !== ann.cutter_seat) fail("cut", 0, "the cutter is not on the dealer's right");
  if (!((size === 108) || (size === 54 && n === 2))) fail("deck", 0, `${size} cards for ${n} seats (R1.1)`);
  const kCom = find("commitments"), kRev = find("reveals"), kStart = find("started");
  if (kCom < 0) return { dealNo, abandoned: true, summary: `deal ${dealNo} abandoned before the commitments` };
  const com = decoded[kCom].commitments;
  if (!Buffer.from(com.host_commitment).equals(ann.host_commitment)) fail("commitment", kCom, "C_host changed");
  const committed = new Map();
  for (const c of com.commitments) {
    if (committed.has(c.seat) || !seats.includes(c.seat)) fail("commitment", kCom, `seat ${c.seat} committed twice or is not in play`);
    committed.set(c.seat, c);
  }
  if (kRev < 0) return { dealNo, abandoned: true, summary: `deal ${dealNo} abandoned before the reveals` };
  const rev = decoded[kRev].reveals;
  const inMix = new Set();
  for (const r of rev.reveals) {
    const c = committed.get(r.seat);
    if (!c) fail("mix", kRev, `seat ${r.seat} revealed without a commitment`);
    if (!fd.seatCommitment(tableId, dealNo, r.seat, r.seed, r.cut).equals(c.commitment)) {
      fail("commitment", kRev, `seat ${r.seat}'s reveal does not match its commitment`);
    }
    const cutOk = r.seat === ann.cutter_seat ? r.cut >= 1 && r.cut <= size - 1 : r.cut === 0;
    if (!cutOk) fail("cut", kRev, `seat ${r.seat} revealed the cut ${r.cut}`);
    inMix.add(r.seat);
  }
  const leftOut = new Map(rev.left_out.map((l) => [l.seat, l.reason]));
  for (const s of seats) {
    if (inMix.has(s) === leftOut.has(s)) fail("mix", kRev, `seat ${s} is not exactly once in the mix or left out`);
  }
  const notes = [];
  if (deal.mySeed) {
    const mine = rev.reveals.find((r) => r.seat === deal.seat);
    if (mine) {
      if (!Buffer.from(mine.seed).equals(deal.mySeed) || mine.cut !== deal.myCut) fail("mix", kRev, "my own seed or cut is not the one in the mix");
    } else {
      notes.push(`my seat was left out (${leftOut.get(deal.seat)})`);
    }
  }
  if (kStart < 0) return { dealNo, abandoned: true, summary: `deal ${dealNo} abandoned before the deal` };

  // The deck, cut and deal.
  const d = fd.deriveDeal({ hostSeed, tableId, dealNo, dealer: ann.dealer_seat, cutter: ann.cutter_seat,
    seatsInPlay: seats, deckSize: size, reveals: rev.reveals });
  const started = decoded[kStart].started;
  if (started.first_discard !== d.firstDiscard) fail("deal", kStart, "the first discard is not the deck's");
  if (started.stock_count !== d.stock.length) fail("deal", kStart, "the stock count is not the deck's");
  if (started.first_seat !== d.hands[0].seat) fail("deal", kStart, "the first player is not the dealer's left");
  const privates = deal.privateEvents.map((p) => ({ withEvent: p.withEvent, event: p.event || decodePrivateEvent(p.bytes) }));
  const privateAt = new Map(privates.map((p) => [p.withEvent, p.event]));
  if (deal.seat !== null && deal.seat !== undefined && seats.includes(deal.seat)) {
    const dealt = privateAt.get(kStart);
    const expected = d.hands.find((h) => h.seat === deal.seat).cards;
    if (!dealt || dealt.event !== "hand_dealt") fail("deal", kStart, "my hand did not come with the deal's start");
    if (JSON.stringify(dealt.hand_dealt.cards) !== JSON.stringify(expected)) fail("deal", kStart, "my hand is not the one the deck deals me");
  }

  // The play: the stock, the discard pile (bottom first) and every hand, event by event.
  const hands = new Map(d.hands.map((h) => [h.seat, [...h.cards]]));
  let stock = [...d.stock];
  let pile = [d.firstDiscard];
  const onTable = new Set();
  let rebuilds = 0, myDraws = 0;
  const take = (seat, card, k, what) => {
    const hand = hands.get(seat), i = hand.indexOf(card);
    if (i < 0) fail("replay", k, `seat ${seat} ${what} card ${card}, which it does not hold`);
    hand.splice(i, 1);
  };
  for (let k = kStart + 1; k < decoded.length; k++) {
    const e = decoded[k];
    if (e.event === "drawn") {
      const { seat, source } = e.drawn;
      if (source === "DRAW_SOURCE_STOCK") {
        if (!stock.length) fail("draw", k, "a draw from an empty stock");
        const card = stock.shift();
        hands.get(seat).push(card);
        const mine = privateAt.get(k);
        if (seat === deal.seat) {
          if (!mine || mine.stock_card_drawn.card !== card) fail("draw", k, `I drew ${mine && mine.stock_card_drawn.card}, the stock's top is ${card}`);
          myDraws++;
        }
      } else {
        if (e.drawn.card !== pile[pile.length - 1]) fail("draw", k, "the card taken is not the top of the discard pile");
        hands.get(seat).push(pile.pop());
      }
    } else if (e.event === "discard_returned") {
      take(e.discard_returned.seat, e.discard_returned.card, k, "returned");
      pile.push(e.discard_returned.card);
    } else if (e.event === "played") {
      const p = e.played;
      let freed = 0;  // jokers taken from the table this play, to be laid again (R7.2)
      const lay = (card) => {
        const hand = hands.get(p.seat);
        if (hand.includes(card)) take(p.seat, card, k, "laid");
        else if (isJoker(card) && freed > 0 && onTable.has(card)) freed--;
        else fail("replay", k, `seat ${p.seat} laid card ${card}, which it does not hold`);
        onTable.add(card);
      };
      for (const op of p.operations) {
        if (op.new_meld) op.new_meld.cards.forEach(lay);
        else if (op.attach) op.attach.cards.forEach(lay);
        else if (op.swap_joker) { take(p.seat, op.swap_joker.card, k, "swapped in"); onTable.add(op.swap_joker.card); freed++; }
      }
      if (freed) fail("replay", k, "a joker taken from the table was not laid again (R7.2)");
      if (p.discard !== undefined && p.discard !== null) { take(p.seat, p.discard, k, "discarded"); pile.push(p.discard); }
    } else if (e.event === "stock_rebuilt") {
      const r = e.stock_rebuilt;
      if (stock.length) fail("rebuild", k, "a rebuild while the stock still holds cards");
      if (r.rebuild_no !== ++rebuilds) fail("rebuild", k, `rebuild ${r.rebuild_no}, expected ${rebuilds}`);
      stock = fd.rebuildStock(d.mixKey, r.rebuild_no, pile);
      pile = pile.slice(-1);
      if (r.stock_count !== stock.length) fail("rebuild", k, "the rebuilt stock has the wrong size");
    } else if (e.event === "ended") {
      for (const shown of e.ended.hands) {
        if (!sameCards(shown.cards, hands.get(shown.seat) || [])) fail("deal", k, `seat ${shown.seat}'s hand shown is not the one it holds`);
      }
    }
  }
  const ended = decoded.find((e) => e.event === "ended");
  const mixNote = [...leftOut].map(([s, why]) => `seat ${s} left out (${why})`).join(", ") || "nobody left out";
  return {
    dealNo, abandoned: false, rebuilds,
    summary: `deal ${dealNo} verified: ${events.length} events, cut ${d.cut} (${d.cutChosen ? "chosen" : "derived"}), `
      + `${mixNote}, ${rebuilds} stock rebuilds, ${myDraws} own stock draws, `
      + `${ended ? ended.ended.outcome : "no end"}${notes.length ? "; " + notes.join("; ") : ""}`,
  };
}

module.exports = { verifyDeal, dealFromRecord, VerifyError };
