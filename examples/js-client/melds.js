// The melds on the table by number, followed from a deal's public events alone
// (docs/PROTOCOL.md "A turn", meld numbers): a new meld takes the next number, or k numbers
// when it was cut into k runs (R4.6); an attach cut into k runs keeps its meld's number for
// the lowest run and gives the other k-1 the next numbers; a swap takes none. The applied
// split of a cut meld is always in the Played event, so a run's length is its split entry.
"use strict";

// events: decoded DealEvents. Returns [{ event, sizes: Map(meld_id → cards) }] after each
// play that laid anything, and throws when a play's new_meld_ids say otherwise.
function meldNumbers(events) {
  const sizes = new Map();
  const out = [];
  events.forEach((e, k) => {
    if (!e.played || !(e.played.operations || []).length) return;
    const took = [];
    for (const op of e.played.operations) {
      if (op.new_meld) {
        const runs = (op.new_meld.split || []).length ? op.new_meld.split : [op.new_meld.cards.length];
        runs.forEach((n) => { const id = sizes.size + 1; sizes.set(id, n); took.push(id); });
      } else if (op.attach) {
        const id = op.attach.meld_id;
        if (!sizes.has(id)) throw new Error(`event ${k}: an attach to meld ${id}, not on the table`);
        const grown = sizes.get(id) + op.attach.cards.length;
        const runs = (op.attach.split || []).length ? op.attach.split : [grown];
        if (runs.reduce((a, b) => a + b, 0) !== grown) throw new Error(`event ${k}: a split of ${grown} cards into ${runs}`);
        sizes.set(id, runs[0]);
        runs.slice(1).forEach((n) => { const cut = sizes.size + 1; sizes.set(cut, n); took.push(cut); });
      } else if (op.swap_joker && !sizes.has(op.swap_joker.meld_id)) {
        throw new Error(`event ${k}: a swap in meld ${op.swap_joker.meld_id}, not on the table`);
      }
    }
    const said = (e.played.new_meld_ids || []).join(",");
    if (said !== took.join(",")) throw new Error(`event ${k}: new_meld_ids ${said}, the rule gives ${took}`);
    out.push({ event: k, sizes: new Map(sizes) });
  });
  return out;
}

module.exports = { meldNumbers };
