// kvscope embedded view: the messages of a host page (window.postMessage).
// The Go program decides (wasm/embed.go, viz/view/embedmsg.go): it obeys
// messages from its own origin and from the origin its link names
// (origin=…), validates every field, and answers each message it obeys.
// This glue only hands a message over with its origin, and posts each
// answer back to the window that sent the message, to that window's
// origin — never to "*". Nothing here throws.
//
//   host → view  {kvscope: 1, type: "set", key, value, id} · "play" · "pause" · {type: "step", n} · "get"
//   view → host  {kvscope: 1, type: "ready" | "figures" | "error", id, step, memory, fidelity, …}
"use strict";
(function () {
  const senders = new Map(); // message number → [window, origin]
  const maxSenders = 256;
  let seq = 0;

  window.addEventListener("message", (ev) => {
    try {
      const d = ev.data;
      // Not a kvscope message: another script's traffic, left alone.
      if (!d || typeof d !== "object" || d.kvscope !== 1) return;
      if (!window.kvscope || typeof window.kvscope.embedMessage !== "function") return; // not started yet: wait for "ready"
      if (!ev.source || typeof ev.origin !== "string") return;
      let json;
      try { json = JSON.stringify(d); } catch (e) { return; }
      if (typeof json !== "string" || json.length > 4096) return;
      seq = (seq + 1) % 1e9;
      senders.set(seq, [ev.source, ev.origin]);
      if (senders.size > maxSenders) senders.delete(senders.keys().next().value);
      window.kvscope.embedMessage(ev.origin, json, seq);
    } catch (e) { /* a message never breaks the page */ }
  });

  // The program's answers.
  window.kvscopeEmbedReply = (n, json) => {
    const s = senders.get(n);
    senders.delete(n);
    if (!s) return;
    try { s[0].postMessage(JSON.parse(json), s[1]); } catch (e) { /* the window went away */ }
  };
  window.kvscopeEmbedDrop = (n) => { senders.delete(n); };
  // "ready", once, to the page that embeds this one.
  window.kvscopeEmbedAnnounce = (json, origin) => {
    try {
      if (window.parent && window.parent !== window) window.parent.postMessage(JSON.parse(json), origin);
    } catch (e) { /* no host, or another origin than named: nothing to tell */ }
  };
})();
