// The fair deal of docs/FAIR_DEAL.md, version 1, with Node's own crypto: commitments, the
// mix key and its stream, the shuffle and cut, the deal, rebuilt stocks, the hash chain,
// the record signature and the fingerprint.
"use strict";

const crypto = require("node:crypto");

const TAG = "scala40/fair-deal/v1/";
const ED25519_SPKI = Buffer.from("302a300506032b6570032100", "hex");

const ascii = (text) => Buffer.from(text, "ascii");
const be16 = (n) => { const b = Buffer.alloc(2); b.writeUInt16BE(n); return b; };
const be32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32BE(n); return b; };
const be64 = (n) => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(n)); return b; };
// lp(x) = be32(len(x)) || x; table ids are UTF-8 ("Settled points: Strings").
const lp = (x) => { const b = Buffer.isBuffer(x) ? x : Buffer.from(x, "utf8"); return Buffer.concat([be32(b.length), b]); };
const H = (...parts) => crypto.createHash("sha256").update(Buffer.concat(parts)).digest();
const HMAC = (key, ...parts) => crypto.createHmac("sha256", key).update(Buffer.concat(parts)).digest();

function hostCommitment(tableId, dealNo, hostSeed) {
  return H(ascii(TAG + "host"), lp(tableId), be32(dealNo), hostSeed);
}

function seatCommitment(tableId, dealNo, seat, seed, cut) {
  return H(ascii(TAG + "seat"), lp(tableId), be32(dealNo), be32(seat), seed, be16(cut));
}

// reveals: [{seat, seed, cut}] of the seats in the mix; n: the number of seats in play.
function mixKey(hostSeed, tableId, dealNo, n, reveals) {
  const parts = [ascii(TAG + "mix"), lp(tableId), be32(dealNo), be32(n)];
  for (const r of [...reveals].sort((a, b) => a.seat - b.seat)) {
    parts.push(be32(r.seat), r.seed, be16(r.cut));
  }
  return HMAC(hostSeed, ...parts);
}

// The random stream of a key, read as be32 words; uniform(b) by rejection.
class Stream {
  constructor(key) { this.key = key; this.block = 0; this.buffer = Buffer.alloc(0); this.offset = 0; }
  nextWord() {
    if (this.offset + 4 > this.buffer.length) {
      this.buffer = HMAC(this.key, ascii(TAG + "stream"), be64(this.block++));
      this.offset = 0;
    }
    const word = this.buffer.readUInt32BE(this.offset);
    this.offset += 4;
    return word;
  }
  uniform(b) {
    const limit = 2 ** 32 - (2 ** 32 % b);
    for (;;) {
      const w = this.nextWord();
      if (w < limit) return w % b;
    }
  }
}

function shuffle(cards, stream) {
  const deck = [...cards];
  for (let i = deck.length - 1; i >= 1; i--) {
    const j = stream.uniform(i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

const cutDeck = (deck, c) => [...deck.slice(c), ...deck.slice(0, c)];

// The cutter is the last seat in play before the dealer, the first player the first after.
function cutterSeat(dealer, seatsInPlay) {
  const seats = [...seatsInPlay].sort((a, b) => a - b);
  const before = seats.filter((s) => s < dealer);
  return before.length ? before[before.length - 1] : seats[seats.length - 1];
}

function dealOrder(dealer, seatsInPlay) {
  const seats = [...seatsInPlay].sort((a, b) => a - b);
  const after = seats.filter((s) => s > dealer), rest = seats.filter((s) => s <= dealer);
  return [...after, ...rest];
}

// hands: [{seat, cards}] in dealing order (the first seat after the dealer first).
function dealCards(deck, dealer, seatsInPlay) {
  const order = dealOrder(dealer, seatsInPlay), n = order.length;
  const hands = order.map((seat) => ({ seat, cards: [] }));
  for (let k = 0; k < 13 * n; k++) hands[k % n].cards.push(deck[k]);
  return { hands, firstDiscard: deck[13 * n], stock: deck.slice(13 * n + 1) };
}

// Everything that follows from the seeds: the deck before and after the cut, and the deal.
function deriveDeal({ hostSeed, tableId, dealNo, dealer, cutter, seatsInPlay, deckSize, reveals }) {
  const key = mixKey(hostSeed, tableId, dealNo, seatsInPlay.length, reveals);
  const stream = new Stream(key);
  const shuffled = shuffle([...Array(deckSize).keys()], stream);
  const cutterReveal = reveals.find((r) => r.seat === cutter);
  const cutChosen = cutterReveal !== undefined;
  const c = cutChosen ? cutterReveal.cut : 1 + stream.uniform(deckSize - 1);
  const deck = cutDeck(shuffled, c);
  return { mixKey: key, shuffled, cut: c, cutChosen, deck, ...dealCards(deck, dealer, seatsInPlay) };
}

const rebuildKey = (key, r) => HMAC(key, ascii(TAG + "rebuild"), be32(r));

// The r-th rebuilt stock from the discard pile (bottom first); its top card stays out.
function rebuildStock(key, r, discardPile) {
  const cards = discardPile.slice(0, -1).sort((a, b) => a - b);
  const stream = new Stream(rebuildKey(key, r));
  const shuffled = shuffle(cards, stream);
  if (shuffled.length < 2) return shuffled;
  return cutDeck(shuffled, 1 + stream.uniform(shuffled.length - 1));
}

const chainStart = (tableId, dealNo) => H(ascii(TAG + "log"), lp(tableId), be32(dealNo));
const chainStep = (head, eventBytes) =>
  H(Buffer.from([1]), head, H(Buffer.from([0]), eventBytes));
const chainHead = (tableId, dealNo, events) => events.reduce(chainStep, chainStart(tableId, dealNo));

const recordMessage = (tableId, dealNo, head) =>
  Buffer.concat([ascii(TAG + "record"), lp(tableId), be32(dealNo), head]);

function ed25519Key(raw) {
  return crypto.createPublicKey({ key: Buffer.concat([ED25519_SPKI, raw]), format: "der", type: "spki" });
}

function verifyRecordSignature(publicKey, tableId, dealNo, head, signature) {
  return crypto.verify(null, recordMessage(tableId, dealNo, head), ed25519Key(publicKey), signature);
}

function fingerprint(publicKey) {
  const hex = H(publicKey).toString("hex").toUpperCase();
  return hex.slice(0, 32).match(/.{4}/g).join("-");
}

module.exports = {
  hostCommitment, seatCommitment, mixKey, Stream, shuffle, cutDeck, cutterSeat, dealOrder,
  dealCards, deriveDeal, rebuildKey, rebuildStock, chainStart, chainStep, chainHead,
  recordMessage, verifyRecordSignature, ed25519Key, fingerprint,
};
