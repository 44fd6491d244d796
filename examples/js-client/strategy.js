// A simple way to play a turn (docs/RULES.md): draw from the stock; lay the melds the hand
// holds (to open, only when they reach the opening points, R5.1); once opened, attach what
// fits (R6); discard the costliest card that helps no meld. It proposes plays in order of
// preference, so that a refused one is followed by the next.
"use strict";

const SUITS = ["SUIT_HEARTS", "SUIT_DIAMONDS", "SUIT_CLUBS", "SUIT_SPADES"];
const isJoker = (c) => c % 54 >= 52;
const suitOf = (c) => Math.floor((c % 54) / 13);
const rankOf = (c) => ((c % 54) % 13) + 1;
const NAMES = { 1: "A", 11: "J", 12: "Q", 13: "K" };
const cardName = (c) => (isJoker(c) ? "JK" : `${NAMES[rankOf(c)] || rankOf(c)}${"HDCS"[suitOf(c)]}`);
// R1.4 / R9.4: what a card costs left in hand.
const handValue = (c) => (isJoker(c) ? 25 : rankOf(c) === 1 ? 11 : Math.min(rankOf(c), 10));
// What a rank is worth in a meld; 14 is the ace above the king.
const meldValue = (rank) => (rank === 1 ? 1 : rank === 14 ? 11 : Math.min(rank, 10));
const face = (rank, suit) => ({ rank: rank === 14 ? 1 : rank, suit: SUITS[suit] });

// Every meld the cards hold: groups (R4.2) and sequences (R4.1) of real cards, and with one
// joker (R4.3, R4.4) a pair made a group of three or two near cards made a sequence.
function candidateMelds(hand) {
  const real = hand.filter((c) => !isJoker(c)), jokers = hand.filter(isJoker);
  const out = [];
  for (let rank = 1; rank <= 13; rank++) {
    const bySuit = new Map();
    for (const c of real) if (rankOf(c) === rank && !bySuit.has(suitOf(c))) bySuit.set(suitOf(c), c);
    const cards = [...bySuit.values()], points = meldValue(rank === 1 ? 14 : rank);
    if (cards.length >= 3) out.push({ cards, points: points * cards.length });
    if (cards.length === 2 && jokers.length) {
      const missing = [0, 1, 2, 3].find((s) => !bySuit.has(s));
      out.push({ cards: [...cards, jokers[0]], jokerAs: face(rank, missing), points: points * 3 });
    }
  }
  for (let suit = 0; suit < 4; suit++) {
    const at = new Map();  // rank (1..14) -> a card of that rank
    for (const c of real) {
      if (suitOf(c) !== suit) continue;
      if (!at.has(rankOf(c))) at.set(rankOf(c), c);
      if (rankOf(c) === 1 && !at.has(14)) at.set(14, c);
    }
    for (let low = 1; low <= 12; low++) {
      for (let high = low + 2; high <= 14 && at.has(high) && [...Array(high - low + 1).keys()].every((i) => at.has(low + i)); high++) {
        const ranks = [...Array(high - low + 1).keys()].map((i) => low + i);
        const cards = ranks.map((r) => at.get(r));
        if (new Set(cards).size === cards.length) out.push({ cards, points: ranks.reduce((s, r) => s + meldValue(r), 0) });
      }
      if (!jokers.length || !at.has(low)) continue;
      if (at.has(low + 1)) {  // low, low+1 and the joker above (or below, at the top)
        const up = low + 2 <= 14;
        const r = up ? low + 2 : low - 1;
        const cards = up ? [at.get(low), at.get(low + 1), jokers[0]] : [jokers[0], at.get(low), at.get(low + 1)];
        if (r >= 1 && !at.has(r)) out.push({ cards, jokerAs: face(r, suit), points: meldValue(low) + meldValue(low + 1) + meldValue(r) });
      }
      if (low + 2 <= 14 && at.has(low + 2) && !at.has(low + 1)) {
        out.push({ cards: [at.get(low), jokers[0], at.get(low + 2)], jokerAs: face(low + 1, suit),
          points: meldValue(low) + meldValue(low + 1) + meldValue(low + 2) });
      }
    }
  }
  return out;
}

// Disjoint melds with the most points (a small search over the candidates, biggest first).
function bestMelds(hand) {
  const candidates = candidateMelds(hand).sort((a, b) => b.points - a.points).slice(0, 24);
  let best = { melds: [], points: 0 };
  const search = (i, used, chosen, points) => {
    if (points > best.points) best = { melds: [...chosen], points };
    for (let j = i; j < candidates.length; j++) {
      const m = candidates[j];
      if (m.cards.some((c) => used.has(c))) continue;
      m.cards.forEach((c) => used.add(c));
      chosen.push(m);
      search(j + 1, used, chosen, points + m.points);
      chosen.pop();
      m.cards.forEach((c) => used.delete(c));
    }
  };
  search(0, new Set(), [], 0);
  return best;
}

// The ranks a table meld covers, from its cards in order and its joker's declaration.
function meldShape(meld) {
  const rankAt = (c, i) => {
    if (isJoker(c)) { const f = meld.joker.stands_for; return f.rank === 1 && i > 0 ? 14 : f.rank; }
    return rankOf(c) === 1 && i > 0 ? 14 : rankOf(c);
  };
  const real = meld.cards.filter((c) => !isJoker(c));
  if (meld.kind === "MELD_KIND_GROUP") {
    const suits = new Set(real.map(suitOf));
    if (meld.joker) suits.add(SUITS.indexOf(meld.joker.stands_for.suit));
    return { group: true, rank: rankOf(real[0]), suits, size: meld.cards.length };
  }
  const ranks = meld.cards.map(rankAt);
  return { group: false, suit: suitOf(real[0]), low: ranks[0], high: ranks[ranks.length - 1], size: meld.cards.length };
}

// Whether a real card extends a table meld and stays valid (R6.1).
function fits(meld, card) {
  if (isJoker(card)) return false;
  const m = meldShape(meld);
  if (m.group) return m.size < 4 && rankOf(card) === m.rank && !m.suits.has(suitOf(card));
  if (suitOf(card) !== m.suit || m.size >= 14) return false;
  const r = rankOf(card);
  return (m.low > 1 && r === m.low - 1) || (m.high < 14 && (r === m.high + 1 || (r === 1 && m.high === 13)));
}

// How much a card helps the hand: part of a pair, or a neighbour in its suit.
function usefulness(card, hand) {
  if (isJoker(card)) return 100;
  let score = 0;
  for (const c of hand) {
    if (c === card || isJoker(c)) continue;
    if (rankOf(c) === rankOf(card) && suitOf(c) !== suitOf(card)) score += 3;
    if (suitOf(c) === suitOf(card) && Math.abs(rankOf(c) - rankOf(card)) <= 2) score += 2;
  }
  return score;
}

function discardOrder(hand) {
  return [...hand].sort((a, b) => usefulness(a, hand) - usefulness(b, hand) || handValue(b) - handValue(a));
}

const newMeld = (m) => ({ new_meld: m.jokerAs ? { cards: m.cards, joker_as: m.jokerAs } : { cards: m.cards } });

// Plays to try in order, each {operations, discard, about}: first the best one, then the same
// with other discards, then fewer melds, then a discard alone.
function proposePlays({ hand, opened, tableMelds, openingPoints, confirmed }) {
  const plays = [];
  let { melds } = bestMelds(hand);
  melds = melds.filter(confirmed || (() => true));
  let total = melds.reduce((s, m) => s + m.points, 0);
  if (!opened && total < openingPoints) { melds = []; total = 0; }
  const after = (ms) => { const used = new Set(ms.flatMap((m) => m.cards)); return hand.filter((c) => !used.has(c)); };
  // Keep a card to discard: drop the smallest meld when the melds would take every card.
  while (melds.length && after(melds).length === 0) melds = melds.slice(0, -1);
  if (!opened && melds.reduce((s, m) => s + m.points, 0) < openingPoints) melds = [];
  const attaches = [];
  let rest = after(melds);
  if (opened) {
    for (const meld of tableMelds) {
      const grown = { ...meld, cards: [...meld.cards] };
      for (let again = true; again;) {
        again = false;
        const c = rest.find((x) => rest.length > 1 && fits(grown, x));
        if (c === undefined) continue;
        attaches.push({ attach: { meld_id: meld.meld_id, cards: [c] } });
        const m = meldShape(grown);
        grown.cards = !m.group && rankOf(c) === m.low - 1 ? [c, ...grown.cards] : [...grown.cards, c];
        rest = rest.filter((x) => x !== c);
        again = true;
      }
    }
  }
  const ops = [...melds.map(newMeld), ...attaches];
  const say = (o) => o.map((op) => op.new_meld ? `meld ${op.new_meld.cards.map(cardName).join(" ")}` : `attach ${op.attach.cards.map(cardName)} to ${op.attach.meld_id}`);
  for (const d of discardOrder(rest)) plays.push({ operations: ops, discard: d, about: [...say(ops), `discard ${cardName(d)}`].join(", ") });
  if (ops.length) {
    for (const d of discardOrder(hand)) plays.push({ operations: [], discard: d, about: `discard ${cardName(d)}` });
  }
  return plays;
}

module.exports = { proposePlays, bestMelds, candidateMelds, fits, cardName, isJoker };
