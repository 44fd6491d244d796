#!/usr/bin/env node
// A Scala 40 player for a host, written from protos/ and docs/ alone:
//   node play.js HOST:PORT|INVITE [--table ID] [--name NAME] [--fingerprint FP] [--insecure]
//                [--seats N] [--bots K] [--deals N] [--records DIR] [--seat-file PATH]
// Without --table it creates a table of N seats (--seats, default 2) with K host bots
// (--bots, default 0), waits for the other seats to be taken and starts the match; with
// --table it joins that table and waits for its match. It takes part in every fair-deal
// exchange with its own seed, plays every turn, verifies every deal itself
// (docs/FAIR_DEAL.md) and exits 0 at the end of the match (1 when a deal does not verify).
"use strict";

const crypto = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");
const { grpc, scala40, decodeDealEvent, refusal } = require("./proto");
const { pinnedCredentials, SERVER_NAME } = require("./tls");
const fd = require("./fairdeal");
const { verifyDeal, dealFromRecord, VerifyError } = require("./verify");
const { proposePlays, bestMelds, cardName } = require("./strategy");

// docs/PROTOCOL.md "Connection": keepalive as the host's, replies up to 4 MiB.
const CHANNEL_OPTIONS = {
  "grpc.keepalive_time_ms": 20000, "grpc.keepalive_timeout_ms": 10000,
  "grpc.keepalive_permit_without_calls": 1, "grpc.http2.max_pings_without_data": 0,
  "grpc.max_receive_message_length": 4 * 1024 * 1024,
};
const CALL_SECONDS = 10;
const BACKOFF_MS = [200, 500, 1000, 2000, 5000];
// Codes after which the client reconnects and resumes: the host is restarting, the
// connection dropped, the stream fell behind.
const RECONNECT = new Set([grpc.status.UNAVAILABLE, grpc.status.CANCELLED, grpc.status.DEADLINE_EXCEEDED,
  grpc.status.RESOURCE_EXHAUSTED, grpc.status.UNKNOWN, grpc.status.INTERNAL]);
// Codes after which a move is sent again as it was (see send).
const RESEND = new Set([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED]);
// The contract version this client was written for (GetHostInfo.contract_version).
const CONTRACT_VERSION = 6;
const TURN_EVENTS = new Set(["started", "drawn", "played", "discard_returned", "stock_rebuilt"]);
// The moves the seat's stream carries: the unary call -> SeatRequest's field (PROTOCOL.md
// "The seat's stream"); SeatAnswer's field of the same name holds the answer.
const STREAM_MOVES = { Draw: "draw", Play: "play", ReturnDiscard: "return_discard", CommitSeed: "commit_seed",
  RevealSeed: "reveal_seed", AnswerRientro: "answer_rientro", SendChat: "send_chat", DecideAbsence: "decide_absence",
  Ready: "ready", Rematch: "rematch" };

const say = (line) => console.log(line);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function parseArgs(argv) {
  const o = { seats: 2, bots: 0, name: "js player" };
  const flags = { "--table": "table", "--name": "name", "--fingerprint": "fingerprint", "--seats": "seats",
    "--bots": "bots", "--deals": "deals", "--records": "records", "--seat-file": "seatFile" };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--insecure") o.insecure = true;
    else if (flags[a]) o[flags[a]] = argv[++i];
    else if (a.startsWith("--")) throw new Error(`unknown option ${a}`);
    else o.address = a;
  }
  if (!o.address) throw new Error("usage: node play.js HOST:PORT|INVITE [--table ID] [--name NAME] [--fingerprint FP] [--insecure] [--seats N] [--bots K] [--deals N] [--records DIR] [--seat-file PATH]");
  // An invite, scala40://HOST:PORT/?fp=XXXX-…, carries the fingerprint to pin.
  let address = o.address;
  if (/^scala40:\/\//i.test(address)) {
    const url = new URL(address);  // not http: (whose port 80 would vanish as its default)
    const fps = url.searchParams.getAll("fp");
    if (new Set(fps).size > 1) throw new Error(`${address} names more than one fingerprint`);
    o.fingerprint = o.fingerprint || fps[0];
    address = url.host;
  }
  // docs/PROTOCOL.md "Invites": [IPv6] in brackets (a bare IPv6 address has no port), the
  // port 4040 when left out, the fingerprint in any case, grouped by dashes, spaces or not.
  const m = address.match(/^\[(.+)\](?::(\d+))?$/) || address.match(/^([^:]+)(?::(\d+))?$/)
    || address.match(/^([0-9a-fA-F:.]*:[0-9a-fA-F:.]*)()$/);
  if (!m) throw new Error(`${address} is not HOST, HOST:PORT or an invite`);
  o.host = m[1].toLowerCase();
  o.port = Number(m[2] || 4040);
  if (!(o.port > 0 && o.port < 65536)) throw new Error(`${address}: the port is not 1..65535`);
  if (o.fingerprint) {
    const hex = o.fingerprint.replace(/[\s:-]/g, "").toUpperCase();
    if (!/^[0-9A-F]{32}$/.test(hex)) throw new Error(`${o.fingerprint} is not a host fingerprint`);
    o.fingerprint = hex.match(/.{4}/g).join("-");
  }
  o.seats = Number(o.seats);
  o.bots = Number(o.bots);
  return o;
}

// One TableService.Seat call: its events read in order (for await), while each answer is
// handed at once to the move that waits for it, even while the reader is busy with an event
// (a move is sent from inside the handling of one). The host sends a move's events before
// its answer. When the stream ends, each move still waiting fails as UNAVAILABLE: send()
// sends it again, with its request id, and the host applies it once.
class SeatStream {
  constructor(table, token, afterSeq) {
    const metadata = new grpc.Metadata();
    metadata.set("authorization", `Bearer ${token}`);
    this.call = table.Seat(metadata);
    this.open = true;
    this.waiting = new Map();  // request_id -> {resolve, reject, timer}
    this.events = [];
    this.ended = null;  // the error it ended with, or true
    this.wake = null;
    this.call.on("data", (message) => {
      if (message.response === "answer") {
        const w = this.waiting.get(message.answer.request_id);
        if (w) { this.waiting.delete(message.answer.request_id); clearTimeout(w.timer); w.resolve(message.answer); }
      } else {
        this.events.push(message.event);
        this.kick();
      }
    });
    this.call.on("error", (error) => this.end(error));
    this.call.on("end", () => this.end(true));
    this.call.write({ subscribe: { after_seq: afterSeq } });
  }

  kick() { const wake = this.wake; this.wake = null; if (wake) wake(); }

  end(why) {
    if (!this.ended) this.ended = why;
    this.open = false;
    for (const [id, w] of this.waiting) {
      clearTimeout(w.timer);
      w.reject({ code: grpc.status.UNAVAILABLE, details: "the seat's stream ended before the answer" });
      this.waiting.delete(id);
    }
    this.kick();
  }

  async *[Symbol.asyncIterator]() {
    for (;;) {
      if (this.events.length) { yield { event: this.events.shift() }; continue; }
      if (this.ended) { if (this.ended !== true) throw this.ended; return; }
      await new Promise((resolve) => { this.wake = resolve; });
    }
  }

  // One move and its answer; a refusal as an error whose status is the unary call's.
  ask(kind, request) {
    const id = request.context.request_id;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject({ code: grpc.status.DEADLINE_EXCEEDED, details: "no answer on the seat's stream in time" });
      }, CALL_SECONDS * 1000);
      this.waiting.set(id, { timer, reject, resolve: (answer) => {
        if (answer.answer !== "refused") return resolve(answer[kind]);
        const status = answer.refused;
        reject({ code: status.code, details: status.message, status });
      } });
      this.call.write({ [kind]: request });
    });
  }

  cancel() { this.open = false; this.call.cancel(); }
}

class Player {
  constructor(options) {
    this.o = options;
    this.lastSeq = 0;
    this.exchanges = new Map();  // deal_no -> {seed, cut, commitment, commitId, revealId, committed, revealed}
    this.deal = null;            // the current deal's bytes: {dealNo, events: [Buffer], privates: [...]}
    this.verified = 0;
    this.refusals = 0;
    this.resumes = 0;
    this.matchOver = false;
  }

  async connect() {
    const { host, port } = this.o;
    const target = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
    let credentials, options = { ...CHANNEL_OPTIONS };
    if (this.o.insecure) {
      credentials = grpc.credentials.createInsecure();
    } else {
      const pinned = await pinnedCredentials(host, port, this.o.fingerprint || this.pinned);
      this.pinned = pinned.fingerprint;  // kept: a reconnect must find the same host
      credentials = pinned.credentials;
      options["grpc.ssl_target_name_override"] = SERVER_NAME;
    }
    for (const client of [this.lobby, this.table, this.rules]) if (client) client.close();
    this.lobby = new scala40.LobbyService(target, credentials, options);
    this.table = new scala40.TableService(target, credentials, options);
    this.rules = new scala40.RulesService(target, credentials, options);
    const info = await this.call(this.lobby, "GetHostInfo", {});
    const fp = fd.fingerprint(info.host_public_key);
    if (fp !== info.host_fingerprint) throw new Error("the host's fingerprint does not match its key");
    if (this.pinned && fp !== this.pinned) throw new Error(`the host signs with ${fp}, its TLS identity is ${this.pinned}`);
    if (this.hostKey && !this.hostKey.equals(info.host_public_key)) throw new Error("the host's identity changed");
    if (this.o.insecure && this.o.fingerprint && fp !== this.o.fingerprint) throw new Error(`host fingerprint ${fp}, not ${this.o.fingerprint}`);
    this.hostKey = info.host_public_key;
    // docs/PROTOCOL.md "Versions": this client follows CONTRACT_VERSION; 0 is an older host.
    const version = info.contract_version || 0;
    // The seat's stream came with contract version 6: an older host is followed the old way.
    this.seatStreamServed = version >= 6;
    this.contract = `contract version ${version || "3 or before"}${version && version < CONTRACT_VERSION ? ", older than this client's" : ""}`;
    this.fingerprint = fp;
  }

  // waitForReady: the call waits (until its deadline) for a channel that is reconnecting.
  call(client, method, request, withToken = false, waitForReady = false) {
    const metadata = new grpc.Metadata({ waitForReady });
    if (withToken) metadata.set("authorization", `Bearer ${this.token}`);
    const deadline = new Date(Date.now() + CALL_SECONDS * 1000);
    return new Promise((resolve, reject) => client[method](request, metadata, { deadline }, (err, answer) => (err ? reject(err) : resolve(answer))));
  }

  // A move (a call with a MoveContext) until the host answers it. NOT_SAVED: nothing was
  // done, the same request may go again; no answer at all (the host restarting, a lost
  // reply): the move may have been done, and the same request id makes the host apply it
  // once and give the first answer again (PROTOCOL.md "A turn"). The channel reconnects by
  // itself, to the same pinned certificate; a move sent again waits for it. A move refused
  // TOO_MANY_REQUESTS was not done either: it goes again after the pause (PROTOCOL.md
  // "Limits"). Any other refusal is the caller's.
  // A move goes on the seat's stream while one is open (the fast way), else as its call.
  async send(method, request) {
    for (let attempt = 0; ; attempt++) {
      try {
        const stream = this.seatStream;
        if (stream && stream.open && STREAM_MOVES[method]) return await stream.ask(STREAM_MOVES[method], request);
        return await this.call(this.table, method, request, true, attempt > 0);
      } catch (error) {
        const r = refusal(error);
        const slowDown = error.code === grpc.status.RESOURCE_EXHAUSTED && r.reason === "TOO_MANY_REQUESTS";
        if (!(RESEND.has(error.code) || slowDown) || attempt >= BACKOFF_MS.length) throw error;
        const why = slowDown ? "asked to slow down" : r.reason === "NOT_SAVED" ? "not saved" : `unanswered (${r.code})`;
        say(`${method} ${why}: sending it again, the same request id`);
        await sleep(BACKOFF_MS[attempt]);
      }
    }
  }

  context(lastSeen) {
    return { request_id: crypto.randomUUID(), last_seen_seq: lastSeen === undefined ? this.lastSeq : lastSeen };
  }

  // --- The lobby ------------------------------------------------------------------------

  async takeSeat() {
    if (this.o.seatFile && fs.existsSync(this.o.seatFile)) {
      // A seat this program took before (and then stopped): take it up again with its token.
      const kept = JSON.parse(fs.readFileSync(this.o.seatFile, "utf8"));
      Object.assign(this, { tableId: kept.table_id, seat: kept.seat, token: kept.token });
      say(`table ${this.tableId} seat ${this.seat} host ${this.fingerprint} (taken up again)`);
      say(`host ${this.contract}`);
      return;
    }
    let tableId = this.o.table;
    if (!tableId) {
      const options = { max_players: Math.max(this.o.seats, 2) };
      if (this.o.seats === 2) options.decks = 1;  // R1.1: one deck is for two players only
      if (this.o.deals) Object.assign(options, { match_mode: "MATCH_MODE_DEALS", deals_in_match: Number(this.o.deals) });
      const created = await this.call(this.lobby, "CreateTable", { name: "a JavaScript table", seats: this.o.seats,
        ruleset: { preset: "PRESET_CLASSIC", options }, between_deals_seconds: 1 });
      tableId = created.table_id;
      this.creator = true;
    }
    this.tableId = tableId;
    const joined = await this.call(this.lobby, "JoinTable", { table_id: tableId, player_name: this.o.name });
    this.seat = joined.seat;
    this.token = joined.seat_token;
    say(`table ${tableId} seat ${this.seat} host ${this.fingerprint}`);
    say(`host ${this.contract}`);
    if (this.o.seatFile) {
      // The token is the seat (PROTOCOL.md "Authentication"): kept, owner-only, to come back.
      fs.writeFileSync(this.o.seatFile, JSON.stringify({ table_id: tableId, seat: this.seat, token: this.token }) + "\n", { mode: 0o600 });
    }
    if (!this.creator) return;
    for (let i = 0; i < this.o.bots; i++) await this.call(this.lobby, "AddBot", { table_id: tableId, level: "BOT_LEVEL_MEDIUM" }, true);
    // Wait for the other seats (people or other programs) to be taken, then start.
    for (;;) {
      const { tables } = await this.call(this.lobby, "ListTables", {});
      const mine = tables.find((t) => t.table_id === tableId);
      if (mine.seats.every((s) => s.taken)) break;
      await sleep(200);
    }
    await this.call(this.lobby, "StartMatch", { table_id: tableId }, true);
    say("match started");
  }

  // --- The event stream -----------------------------------------------------------------

  async playToEnd() {
    let failures = 0;
    while (!this.matchOver) {
      try {
        await this.follow();
        failures = 0;
        if (!this.matchOver) say(`stream ended by the host: resuming after seq ${this.lastSeq}`);
      } catch (error) {
        if (error instanceof VerifyError || !RECONNECT.has(error.code)) throw error;
        say(`stream dropped (${grpc.status[error.code]}): resuming after seq ${this.lastSeq}`);
        await sleep(BACKOFF_MS[Math.min(failures++, BACKOFF_MS.length - 1)]);
        try { await this.connect(); } catch (e) { if (!RECONNECT.has(e.code) && e.code !== "ECONNREFUSED") throw e; }
      }
    }
  }

  // The seat's stream (PROTOCOL.md "The seat's stream"): its events, and its moves; from a
  // host older than contract version 6, SubscribeEvents, the moves as calls.
  async follow() {
    let stream;
    if (this.seatStreamServed) {
      stream = this.seatStream = new SeatStream(this.table, this.token, this.lastSeq);
    } else {
      const metadata = new grpc.Metadata();
      metadata.set("authorization", `Bearer ${this.token}`);
      stream = this.table.SubscribeEvents({ after_seq: this.lastSeq }, metadata);
      stream.on("error", () => {});  // the loop below gets the error; this keeps it from crashing before
    }
    const resumed = this.lastSeq > 0;
    try {
      if (resumed) {
        // Back after a drop: a fair-deal message may not have reached the host, and it may
        // be my move with no new event to say so.
        await this.resendExchange();
        await this.maybeMove();
      }
      let first = true;
      for await (const message of stream) {
        const event = message.event;
        if (first && resumed) {
          this.resumes++;
          say(`resumed after seq ${this.lastSeq}: ${event.event === "snapshot" ? "a snapshot" : `seq ${event.seq}`} first`);
        }
        first = false;
        await this.onEvent(event);
        this.lastSeq = Math.max(this.lastSeq, event.seq);
        if (this.matchOver) break;
      }
    } finally {
      stream.cancel();
      if (this.seatStream === stream) this.seatStream = null;
    }
  }

  async onEvent(event) {
    switch (event.event) {
      case "snapshot": return this.onSnapshot(event.snapshot, event.seq);
      case "deal": return this.onDeal(event.deal, event.seq);
      case "deal_signed": return this.onSigned(event.deal_signed);
      case "match_update": return this.onUpdate(event.match_update);
      case "match_started": say(`first dealer: seat ${event.match_started.first_dealer_seat}`); return;
      default: return;
    }
  }

  async onSnapshot(view, seq) {
    this.lastSeq = seq;
    // The deal so far, its exact bytes from its start, and my private events, each with the
    // index of the public event it came with (my_private_with_event), as the stream gives them.
    if (view.deal_events.length) {
      const events = view.deal_events.map((b) => Buffer.from(b));
      const decoded = events.map(decodeDealEvent);
      const links = view.my_private_with_event;
      if (links.length !== view.my_private_events.length || links.some((k) => k >= events.length)) {
        throw new VerifyError("chain", 0, `the snapshot links ${links.length} of my ${view.my_private_events.length} private events to its ${events.length} events`);
      }
      const privates = view.my_private_events.map((event, i) => ({ withEvent: links[i], event }));
      this.deal = { dealNo: view.deal_no, events, privates, decoded };
      say(`snapshot at seq ${seq}: deal ${view.deal_no}, ${events.length} events so far, ${privates.length} of them with my private events`);
      for (const e of decoded) await this.exchange(e, true);
    }
    if (view.phase === "TURN_PHASE_COMMIT" || view.phase === "TURN_PHASE_REVEAL") await this.resendExchange();
    await this.answerRientro(view.rientro_offers);
    if (view.between_deals) await this.ready(view.between_deals);
    await this.maybeMove();
  }

  async onDeal(envelope, seq) {
    const bytes = Buffer.from(envelope.public_event);
    const e = decodeDealEvent(bytes);
    if (e.event === "announced") this.deal = { dealNo: e.deal_no, events: [], privates: [] };
    if (!this.deal || this.deal.dealNo !== e.deal_no) throw new VerifyError("chain", 0, `deal ${e.deal_no} began before I saw its announcement`);
    this.deal.events.push(bytes);
    if (envelope.private_event) this.deal.privates.push({ withEvent: this.deal.events.length - 1, event: envelope.private_event });
    this.lastSeq = seq;
    await this.exchange(e, false);
    if (e.event === "started") say(`deal ${e.deal_no}: first discard ${cardName(e.started.first_discard)}, seat ${e.started.first_seat} plays first`);
    if (e.event === "ended") say(`deal ${e.deal_no} ended: ${e.ended.outcome}${e.ended.closer_seat !== undefined && e.ended.closer_seat !== null ? `, seat ${e.ended.closer_seat} went out` : ""}`);
    if (TURN_EVENTS.has(e.event)) await this.maybeMove();
  }

  // --- The fair-deal exchange (docs/PROTOCOL.md, FAIR_DEAL.md "Message order") ----------

  async exchange(e, replaying) {
    if (e.event === "announced") {
      const a = e.announced;
      this.announced = a;
      if (fd.cutterSeat(a.dealer_seat, a.seats_in_play) !== a.cutter_seat) throw new VerifyError("cut", 0, "the cutter is not on the dealer's right (R2.2)");
      if (!a.seats_in_play.includes(this.seat) || this.exchanges.has(e.deal_no)) return;
      if (replaying) return;  // an exchange I did not start before the snapshot: see resendExchange
      this.startExchange(e.deal_no, a);
      await this.sendCommit(e.deal_no);
    } else if (e.event === "commitments") {
      const x = this.exchanges.get(e.deal_no);
      if (!x || x.revealed) return;
      if (x.lost) { say(`deal ${e.deal_no}: my commitment was not taken; I sit this exchange out`); return; }
      const c = e.commitments;
      const seats = c.commitments.map((s) => s.seat);
      const mine = c.commitments.filter((s) => s.seat === this.seat);
      if (new Set(seats).size !== seats.length) throw new VerifyError("commitment", 1, "a seat committed twice");
      if (!Buffer.from(c.host_commitment).equals(this.announced.host_commitment)) throw new VerifyError("commitment", 1, "C_host changed since the announcement");
      if (mine.length !== 1) { say(`deal ${e.deal_no}: my commitment was not taken; I sit this exchange out`); x.revealed = true; return; }
      if (!Buffer.from(mine[0].commitment).equals(x.commitment)) throw new VerifyError("commitment", 1, "my commitment was changed");
      x.mayReveal = true;
      if (!replaying) await this.sendReveal(e.deal_no);
    }
  }

  startExchange(dealNo, a) {
    const seed = crypto.randomBytes(32);
    const cut = a.cutter_seat === this.seat ? crypto.randomInt(1, a.deck_size) : 0;
    this.exchanges.set(dealNo, { seed, cut, commitment: fd.seatCommitment(this.tableId, dealNo, this.seat, seed, cut),
      commitId: crypto.randomUUID(), revealId: crypto.randomUUID(), committed: false, revealed: false });
    if (cut) say(`deal ${dealNo}: I cut at ${cut}`);
  }

  async sendCommit(dealNo) {
    const x = this.exchanges.get(dealNo);
    try {
      await this.send("CommitSeed", { context: { request_id: x.commitId, last_seen_seq: this.lastSeq }, deal_no: dealNo, commitment: x.commitment });
      x.committed = true;
    } catch (error) {
      this.fairDealRefused("CommitSeed", error);
      x.lost = true;  // e.g. ALREADY_COMMITTED by an earlier run of this seat, whose seed is gone
    }
  }

  async sendReveal(dealNo) {
    const x = this.exchanges.get(dealNo);
    try {
      await this.send("RevealSeed", { context: { request_id: x.revealId, last_seen_seq: this.lastSeq }, deal_no: dealNo, seed: x.seed, cut: x.cut });
      x.revealed = true;
    } catch (error) { this.fairDealRefused("RevealSeed", error); }
  }

  fairDealRefused(what, error) {
    if (RECONNECT.has(error.code)) throw error;
    const r = refusal(error);
    say(`${what} refused: ${r.reason} ${r.metadata.sentence || r.message}`);
  }

  // After a drop: the same requests again, with the same request ids, counted once.
  async resendExchange() {
    if (!this.deal) return;
    const dealNo = this.deal.dealNo, x = this.exchanges.get(dealNo);
    const kinds = (this.deal.decoded || this.deal.events.map(decodeDealEvent)).map((e) => e.event);
    if (kinds.includes("reveals")) return;
    if (!x) {
      // The announcement came in a snapshot: commit now if the step is still open.
      if (kinds.includes("commitments") || !this.announced || !this.announced.seats_in_play.includes(this.seat)) return;
      this.startExchange(dealNo, this.announced);
    }
    const y = this.exchanges.get(dealNo);
    if (!kinds.includes("commitments")) await this.sendCommit(dealNo);
    else if (y.mayReveal && !y.revealed) await this.sendReveal(dealNo);
  }

  // --- The end of a deal: verify it --------------------------------------------------------

  async onSigned(signed) {
    const deal = this.deal;
    if (!deal || deal.dealNo !== signed.deal_no) throw new VerifyError("chain", 0, `deal ${signed.deal_no} signed, but I followed deal ${deal && deal.dealNo}`);
    const x = this.exchanges.get(deal.dealNo);
    const mine = {
      tableId: this.tableId, dealNo: deal.dealNo, events: deal.events, signature: Buffer.from(signed.signature),
      chainHead: Buffer.from(signed.chain_head), hostPublicKey: this.hostKey, fingerprint: this.fingerprint,
      seat: this.seat, privateEvents: deal.privates, mySeed: x && x.revealed ? x.seed : null, myCut: x ? x.cut : 0,
    };
    const result = verifyDeal(mine);
    // The record file the host serves must be this same deal, bit for bit.
    const answer = await this.call(this.table, "GetDealRecord", { deal_no: deal.dealNo }, true);
    const record = JSON.parse(Buffer.from(answer.record).toString("utf8"));
    const fromFile = dealFromRecord(record);
    if (fromFile.events.length !== deal.events.length || fromFile.events.some((b, k) => !b.equals(deal.events[k]))) {
      throw new VerifyError("chain", 0, "the record file's events are not the bytes I received");
    }
    verifyDeal({ ...fromFile, fingerprint: this.fingerprint, mySeed: mine.mySeed, myCut: mine.myCut });
    this.verified++;
    say(result.summary);
    if (this.o.records) {
      fs.mkdirSync(this.o.records, { recursive: true });
      fs.writeFileSync(path.join(this.o.records, `deal-${deal.dealNo}.json`), Buffer.from(answer.record));
      fs.writeFileSync(path.join(this.o.records, `deal-${deal.dealNo}.seed.json`), JSON.stringify({
        seat: this.seat, seed: mine.mySeed ? mine.mySeed.toString("hex") : null, cut: mine.myCut }) + "\n");
    }
  }

  async onUpdate(update) {
    const totals = update.scores.map((s) => `seat ${s.seat} ${s.total}`).join(", ");
    if (update.match_over) {
      say(`match over: winners ${update.winners.join(" ")}; ${totals}; ${this.verified} deals verified, ${this.refusals} refusals, ${this.resumes} resumes`);
      this.matchOver = true;
      return;
    }
    await this.answerRientro(update.rientro_offers);
    if (update.between_deals) await this.ready(update.between_deals);
  }

  async ready(pause) {
    if (pause.waiting_for_seats.includes(this.seat) && !pause.ready_seats.includes(this.seat)) {
      await this.send("Ready", { context: this.context() });
    }
  }

  async answerRientro(offers) {
    const offer = (offers || []).find((o) => o.seat === this.seat);
    if (!offer) return;
    say(`buying back in for ${offer.fee} chips (R11.3)`);
    await this.send("AnswerRientro", { context: this.context(), buy_back: true });
  }

  // --- A turn (docs/PROTOCOL.md "A turn") -------------------------------------------------

  async maybeMove() {
    for (let attempt = 0; attempt < 40; attempt++) {
      const { view, seq } = await this.call(this.table, "GetView", {}, true);
      const myTurn = view.turn_seat === this.seat && (view.phase === "TURN_PHASE_DRAW" || view.phase === "TURN_PHASE_PLAY");
      if (!myTurn) return;
      const done = view.phase === "TURN_PHASE_DRAW" ? await this.draw(view, seq) : await this.play(view, seq);
      if (done === "turn over") return;
    }
    say("no move found after 40 tries: waiting for the turn clock");
  }

  async draw(view, seq) {
    try {
      await this.send("Draw", { context: this.context(seq), source: "DRAW_SOURCE_STOCK" });
      return "drawn";
    } catch (error) {
      this.refused("Draw", error);
      return "again";
    }
  }

  async play(view, seq) {
    const me = view.seats.find((s) => s.info.seat === this.seat);
    const ruleset = { preset: view.table.preset, options: view.table.ruleset };
    const hand = view.my_hand;
    // A meld is laid only when the host's RulesService agrees it is one (R4).
    const candidates = bestMelds(hand).melds;
    let valid = new Set(candidates);
    if (candidates.length) {
      const check = await this.call(this.rules, "CheckMelds", { ruleset, melds: candidates.map((m) => (m.jokerAs ? { cards: m.cards, joker_as: m.jokerAs } : { cards: m.cards })) });
      valid = new Set(candidates.filter((_, i) => check.melds[i].valid));
    }
    const plays = proposePlays({ hand, opened: me.opened, tableMelds: view.melds, openingPoints: view.table.ruleset.opening_points,
      confirmed: (m) => [...valid].some((v) => v.cards.join() === m.cards.join()) });
    const barred = new Set();  // discards refused by R8.2 this turn: not offered again
    for (const p of plays.slice(0, 30)) {
      if (barred.has(p.discard)) continue;
      const request = { context: this.context(seq), operations: p.operations, discard: p.discard };
      try {
        await this.send("Play", request);
        say(`played: ${p.about}`);
        return "turn over";
      } catch (error) {
        const why = this.refused("Play", error, p.about);
        if (why === "R8.2") barred.add(p.discard);
        else if (why !== "rule") return "again";  // a stale view or another turn: read the view again
      }
    }
    return "again";
  }

  // Prints a refusal with its R-number and reason; tells the caller what kind it was.
  refused(what, error, about = "") {
    if (RECONNECT.has(error.code)) throw error;
    const r = refusal(error);
    if (r.reason === "STALE_VIEW") {  // an event I had not seen: read the table again, decide again
      say(`${what} refused, STALE_VIEW: reading the table again`);
      return "stale";
    }
    this.refusals++;
    const rule = r.metadata.rule ? `${r.metadata.rule} ` : "";
    say(`refused ${what}${about ? ` (${about})` : ""}: ${r.code} ${r.reason} ${rule}${r.metadata.sentence || r.message}`);
    if (r.reason !== "RULE_VIOLATION") return "other";
    return r.metadata.rule === "R8.2" ? "R8.2" : "rule";
  }
}

async function main() {
  let options;
  try { options = parseArgs(process.argv.slice(2)); } catch (error) { console.error(error.message); return 2; }
  const player = new Player(options);
  try {
    await player.connect();
    await player.takeSeat();
    await player.playToEnd();
    return 0;
  } catch (error) {
    if (error instanceof VerifyError) { say(`deal ${player.deal && player.deal.dealNo} ${error.message}`); return 1; }
    const r = error.code !== undefined && error.metadata ? refusal(error) : null;
    console.error(r ? `${r.code} ${r.reason}: ${r.metadata.sentence || r.message}` : `${error.message || error}`);
    return 1;
  } finally {
    for (const client of [player.lobby, player.table, player.rules]) if (client) client.close();
  }
}

if (require.main === module) main().then((code) => { process.exitCode = code; });
module.exports = { parseArgs };
