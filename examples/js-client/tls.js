// TLS with the host's fingerprint pinned (docs/PROTOCOL.md "TLS and pinning"): fetch the
// certificate, check the Ed25519 binding in its extension, trust exactly that certificate.
"use strict";

const tls = require("node:tls");
const crypto = require("node:crypto");
const { grpc } = require("./proto");
const { fingerprint } = require("./fairdeal");

// The extension's OID, DER-encoded; its value follows as an OCTET STRING of 96 bytes, after
// a BOOLEAN for "critical" if a host ever set one.
const OID = Buffer.from("06146982bb90b1bdf8f5f2b7f9b385f9aed9b5bbe065", "hex");
const TAG = Buffer.from("scala40/tls-binding/v1");
const ED25519_SPKI = Buffer.from("302a300506032b6570032100", "hex");
const SERVER_NAME = "scala40-host";

function fetchCertificate(host, port) {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host, port, servername: SERVER_NAME, rejectUnauthorized: false,
      ALPNProtocols: ["h2"] }, () => {
      const der = socket.getPeerCertificate(true).raw; socket.end(); resolve(der);
    });
    socket.setTimeout(10000, () => socket.destroy(new Error("no TLS answer in 10 s")));
    socket.on("error", reject);
  });
}

function boundFingerprint(der) {
  let i = der.indexOf(OID);
  if (i < 0) throw new Error("not a Scala 40 host's certificate");
  i += OID.length;
  if (der[i] === 0x01) i += 3;
  if (der[i] !== 0x04 || der[i + 1] !== 96) throw new Error("a malformed binding");
  const identity = der.subarray(i + 2, i + 34), signature = der.subarray(i + 34, i + 98);
  const spki = new crypto.X509Certificate(der).publicKey.export({ type: "spki", format: "der" });
  const key = crypto.createPublicKey({ key: Buffer.concat([ED25519_SPKI, identity]), format: "der", type: "spki" });
  if (!crypto.verify(null, Buffer.concat([TAG, spki]), key, signature)) {
    throw new Error("the certificate is not signed by the identity it names");
  }
  return fingerprint(identity);
}

// Credentials trusting only the host's own certificate, and the fingerprint found. With no
// pin, the first fingerprint seen is trusted (for this run) and returned to be kept.
async function pinnedCredentials(host, port, pinned) {
  const der = await fetchCertificate(host, port);
  const found = boundFingerprint(der);
  if (pinned && found !== pinned) throw new Error(`host fingerprint ${found}, not ${pinned}: refusing to connect`);
  const pem = Buffer.from(new crypto.X509Certificate(der).toString());
  return { credentials: grpc.credentials.createSsl(pem), fingerprint: found };
}

module.exports = { pinnedCredentials, boundFingerprint, SERVER_NAME };
