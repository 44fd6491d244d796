// Checks this client's fair deal against the project's known answers,
// tests/vectors/fair_deal_v1.json (docs/FAIR_DEAL.md "Test vectors"). Exits 1 on the first
// disagreement, naming it.
"use strict";

const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const crypto = require("node:crypto");
const fd = require("./fairdeal");
const { verifyDeal, dealFromRecord } = require("./verify");
const { meldNumbers } = require("./melds");

const FILE = process.argv[2] || path.resolve(__dirname, "..", "..", "tests", "vectors", "fair_deal_v1.json");
const vectors = JSON.parse(fs.readFileSync(FILE, "utf8"));
const bytes = (h) => Buffer.from(h, "hex");
const hex = (b) => Buffer.from(b).toString("hex");
let checked = 0;

function check(name, fn) {
  try { fn(); checked++; } catch (error) {
    console.error(`FAILED ${name}: ${error.message}`);
    process.exit(1);
  }
}

for (const v of vectors.deals) {
  check(v.name, () => {
    const g = v.input;
    assert.equal(fd.cutterSeat(g.dealer, g.seats_in_play), v.cutter, "cutter");
    assert.equal(hex(fd.hostCommitment(g.table_id, g.deal_no, bytes(g.host_seed))), v.host_commitment, "C_host");
    const reveals = [];
    for (const s of g.seats) {
      assert.equal(hex(fd.seatCommitment(g.table_id, g.deal_no, s.seat, bytes(s.seed), s.cut)), s.commitment, `C_${s.seat}`);
      if (s.in_mix) reveals.push({ seat: s.seat, seed: bytes(s.seed), cut: s.cut });
    }
    const d = fd.deriveDeal({ hostSeed: bytes(g.host_seed), tableId: g.table_id, dealNo: g.deal_no,
      dealer: g.dealer, cutter: v.cutter, seatsInPlay: g.seats_in_play, deckSize: g.deck_size, reveals });
    assert.equal(hex(d.mixKey), v.mix_key, "mix key");
    const stream = new fd.Stream(d.mixKey);
    assert.deepEqual(v.stream_words.map(() => stream.nextWord()), v.stream_words, "stream words");
    assert.deepEqual(d.shuffled, v.shuffled, "shuffle");
    assert.deepEqual([d.cut, d.cutChosen], [v.cut, v.cut_chosen], "cut");
    assert.deepEqual(d.deck, v.deck, "deck");
    assert.deepEqual(d.hands, v.hands, "hands, in dealing order");
    assert.equal(d.firstDiscard, v.first_discard, "first discard");
    assert.deepEqual(d.stock, v.stock, "stock");
    const r = v.rebuild;
    assert.equal(hex(fd.rebuildKey(d.mixKey, r.rebuild_no)), r.rebuild_key, "rebuild key");
    assert.deepEqual(fd.rebuildStock(d.mixKey, r.rebuild_no, r.discard_pile), r.stock, "rebuilt stock");
  });
}

for (const v of vectors.recorded_deals || []) {
  check(v.name, () => {
    const deal = dealFromRecord(v.record);
    const heads = [fd.chainStart(deal.tableId, deal.dealNo)];
    for (const e of deal.events) heads.push(fd.chainStep(heads[heads.length - 1], e));
    assert.deepEqual(heads.map(hex), v.chain_heads, "chain heads");
    assert.equal(hex(heads[heads.length - 1]), v.record.chain_head, "chain head");
    // The deal derived from the record's own public events, step by step.
    const { decodeDealEvent, decodePrivateEvent } = require("./proto");
    const events = deal.events.map(decodeDealEvent);
    const ann = events[0].announced;
    assert.equal(hex(ann.host_commitment), v.host_commitment, "C_host");
    const d = fd.deriveDeal({ hostSeed: events[events.length - 1].host_seed_revealed.host_seed,
      tableId: deal.tableId, dealNo: deal.dealNo, dealer: ann.dealer_seat, cutter: ann.cutter_seat,
      seatsInPlay: ann.seats_in_play, deckSize: ann.deck_size, reveals: events.find((e) => e.reveals).reveals.reveals });
    assert.equal(hex(d.mixKey), v.mix_key, "mix key");
    assert.deepEqual(d.shuffled, v.shuffled, "shuffle");
    assert.deepEqual([d.cut, d.cutChosen], [v.cut, v.cut_chosen], "cut");
    assert.deepEqual(d.deck, v.deck, "deck");
    assert.deepEqual(d.hands, v.hands, "hands, in dealing order");
    assert.deepEqual([d.firstDiscard, d.stock], [v.first_discard, v.stock], "first discard and stock");
    const privates = v.record.private.events.map((p) => decodePrivateEvent(Buffer.from(p.event, "base64")));
    assert.deepEqual(privates.find((p) => p.hand_dealt).hand_dealt.cards, v.hand_dealt, "hand dealt");
    assert.deepEqual(d.hands.find((h) => h.seat === v.private_seat).cards, v.hand_dealt, "my hand is the deck's");
    const mine = privates.filter((p) => p.stock_card_drawn).map((p) => p.stock_card_drawn.card);
    assert.deepEqual(mine, v.stock_draws.filter((x) => x.seat === v.private_seat).map((x) => x.card), "own stock draws");
    const result = verifyDeal({ ...deal, fingerprint: v.record.host_fingerprint });
    assert.equal(result.rebuilds, v.rebuilds.length, "stock rebuilds");
    // The meld numbers, cut runs included, as PROTOCOL.md "A turn" says to follow them.
    const numbered = meldNumbers(events).map((m) => ({ event: m.event, sizes: Object.fromEntries(m.sizes) }));
    const expected = (v.melds_after || []).map((m) => ({ event: m.event,
      sizes: Object.fromEntries(m.melds.map((x) => [x.meld_id, x.cards.length])) }));
    assert.deepEqual(numbered, expected, "meld numbers after each play");
    // A changed event byte, or another seat's hand, must not verify.
    const tampered = deal.events.map((e) => Buffer.from(e));
    tampered[5][tampered[5].length - 1] ^= 1;
    assert.throws(() => verifyDeal({ ...deal, events: tampered }), /FAILED signature/);
    const mixedUp = { ...deal, seat: 1 - deal.seat };
    assert.throws(() => verifyDeal(mixedUp), /FAILED deal/);
    if (!v.rebuilds.length) return;
    // A stock card I was sent that is not the one the derived stock (or rebuilt stock) holds.
    const { encodePrivateEvent } = require("./proto");
    const lastDraw = deal.privateEvents.length - 1;
    const drawn = decodePrivateEvent(deal.privateEvents[lastDraw].bytes);
    assert.ok(drawn.stock_card_drawn, "the last private event is a stock draw");
    const other = { ...drawn, stock_card_drawn: { card: (drawn.stock_card_drawn.card + 1) % 54 } };
    const wrongCard = deal.privateEvents.map((p, i) => (i === lastDraw ? { ...p, bytes: encodePrivateEvent(other) } : p));
    assert.throws(() => verifyDeal({ ...deal, privateEvents: wrongCard }), /FAILED draw/);
    assert.ok(deal.privateEvents[lastDraw].withEvent > v.rebuilds[0].event, "that draw is from the rebuilt stock");
    for (const rb of v.rebuilds) {
      const key = bytes(v.mix_key);
      assert.equal(hex(fd.rebuildKey(key, rb.rebuild_no)), rb.rebuild_key, "rebuild key");
      assert.deepEqual(fd.rebuildStock(key, rb.rebuild_no, rb.discard_pile), rb.stock, "rebuilt stock");
    }
  });
}

check("signed chain", () => {
  const c = vectors.signed_chain;
  const events = c.events.map(bytes);
  const heads = [fd.chainStart(c.table_id, c.deal_no)];
  for (const e of events) heads.push(fd.chainStep(heads[heads.length - 1], e));
  assert.deepEqual(heads.map(hex), c.heads, "chain heads");
  const last = heads[heads.length - 1];
  assert.equal(hex(fd.recordMessage(c.table_id, c.deal_no, last)), c.signed_message, "signed message");
  assert.equal(fd.fingerprint(bytes(c.public_key)), c.fingerprint, "fingerprint");
  // Sign with the RFC 8032 seed: Ed25519 is deterministic, so this is a known answer too.
  const pkcs8 = Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), bytes(c.ed25519_private_key)]);
  const privateKey = crypto.createPrivateKey({ key: pkcs8, format: "der", type: "pkcs8" });
  assert.equal(hex(crypto.createPublicKey(privateKey).export({ format: "der", type: "spki" }).subarray(12)), c.public_key, "public key");
  assert.equal(hex(crypto.sign(null, bytes(c.signed_message), privateKey)), c.signature, "signature");
  assert.ok(fd.verifyRecordSignature(bytes(c.public_key), c.table_id, c.deal_no, last, bytes(c.signature)), "signature verifies");
});

assert.equal(fd.fingerprint(Buffer.alloc(32)), "6668-7AAD-F862-BD77-6C8F-C18B-8E9F-8E20");
// The TLS binding's known answers (tests/vectors/tls_binding_v1.json, or the second argument):
// this client's own pinning accepts the bound certificate and refuses the others.
const TLS_FILE = process.argv[3] || path.resolve(__dirname, "..", "..", "tests", "vectors", "tls_binding_v1.json");
const { boundFingerprint } = require("./tls");
const tlsVectors = JSON.parse(fs.readFileSync(TLS_FILE, "utf8"));
assert.equal(tlsVectors.format, 1, "tls_binding_v1.json format");
for (const v of tlsVectors.cases) {
  check(`TLS: ${v.name}`, () => {
    let found = null;
    try { found = boundFingerprint(bytes(v.certificate_der)); } catch (error) { found = null; }
    assert.equal(found !== null && found === v.pinned_fingerprint, v.accepted, v.why);
    if (found !== null) assert.equal(found, v.named_fingerprint, "the identity the binding names");
  });
}

console.log(`vectors ok: ${checked} cases of ${path.basename(FILE)} and ${path.basename(TLS_FILE)}`);
