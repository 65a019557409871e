// The table socket's protocol (docs/protocol.md): message tags, close codes, the diff `patch`, and
// `TableSocket`, a connection that says hello, rebuilds the state from a snapshot and numbered diffs,
// asks for a resync on a gap, answers intents by id, pings, and reconnects with backoff, also when the
// server stops answering (no pong, snapshot or answer to an intent within `ANSWER_WITHIN_MS`). Told to
// `reconnect` (the server process it reached is stopping), it opens another socket first and lets the
// old one go once the new one has its snapshot and the old one has answered what was sent on it.
// Mirrors server/protocol.py (inbound) and server/tables/connection.py (outbound).

/** Client → server tags. */
export const C = Object.freeze({
  HELLO: "hello",
  ACT: "act",
  CHAT: "chat",
  RESYNC: "resync",
  PING: "ping",
});

/** Server → client tags. */
export const S = Object.freeze({
  SNAPSHOT: "snapshot",
  DIFF: "diff",
  ACK: "ack",
  REFUSED: "refused",
  PONG: "pong",
  TIMED_OUT: "timed_out",
  RECONNECT: "reconnect",
});

/** Close codes the server uses. */
export const CLOSE = Object.freeze({
  LEFT: 1000, // you left your seat
  GOING_AWAY: 1001, // the table closed, the socket was idle, or the server is going away
  POLICY: 1008, // bad hello (no such table, bad token), or flooding
  TOO_BIG: 1009,
  RESTART: 1012, // the server is restarting: reconnect with the same token
  TOO_SLOW: 1013, // reconnect and you get a snapshot
});

export const PING_EVERY_MS = 25_000;
// A server that has not answered a ping, a hello or an intent this long is taken for gone (a socket
// whose far end stopped answering is open for nothing): the socket is dropped and opened again.
export const ANSWER_WITHIN_MS = 6_000;
const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 15000];
// After a 1012 the table runs elsewhere, or will in a moment: the first try comes at once (spread over
// this many ms, so that the pages of a stopped process do not all arrive in the same instant).
const RESTART_SPREAD_MS = 250;

/**
 * Apply one diff to a state document (docs/protocol.md §3); the input is not modified.
 *  `[value]` replaces the node; `[]` removes the key; an object changes keys of an object, or
 *  elements of a list (`"3"`), cuts a list (`"#": n`) and appends to it (`"+": [...]`).
 */
export function patch(node, change) {
  if (Array.isArray(change)) return change[0];
  if (Array.isArray(node)) {
    const out = node.slice();
    for (const [k, sub] of Object.entries(change))
      if (k !== "#" && k !== "+") out[+k] = patch(out[+k], sub);
    if ("#" in change) out.length = change["#"];
    if ("+" in change) out.push(...change["+"]);
    return out;
  }
  if (node === null || typeof node !== "object") throw new Error("diff does not fit the state");
  const out = { ...node };
  for (const [k, sub] of Object.entries(change))
    if (Array.isArray(sub) && sub.length === 0) delete out[k];
    else out[k] = patch(out[k], sub);
  return out;
}

/** The socket URL for a path such as "/ws", on this page's host. */
export function socketUrl(path) {
  const url = new URL(path, window.location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.href;
}

/**
 * One table's connection. Callbacks:
 *  onState(state, serverNowMs)  after every snapshot or applied diff
 *  onStatus(status, detail)     "connecting" | "open" | "waiting" (reconnect in detail ms) | "closed"
 *  onAnswer(frame, request)     an ack or refused for an intent this client sent
 *  onRefusedHello(frame)        the hello was refused (bad token, no such table)
 *  onClockOffset(offsetMs)      server clock minus local clock, from snapshots and pongs
 * `answerWithinMs` (default `ANSWER_WITHIN_MS`): how long an answer may take before the socket is
 * dropped and opened again.
 */
export class TableSocket {
  constructor({ path, table, token, answerWithinMs = ANSWER_WITHIN_MS, ...callbacks }) {
    this.path = path;
    this.table = table;
    this.token = token || null;
    this.cb = callbacks;
    this.state = null;
    this.seq = 0;
    this.ws = null;
    this.nextId = 1;
    this.pending = new Map(); // request id → what was asked
    this.attempt = 0;
    this.stopped = false;
    this.awaitingSnapshot = true;
    this.retryTimer = null;
    this.pingTimer = null;
    this.answerWithinMs = answerWithinMs;
    this.asked = new Map(); // request id → when it was sent (ms)
    this.pingAt = null; // when the ping not yet answered was sent
    this.snapshotAt = null; // when the hello or resync whose snapshot has not come was sent
    this.watchTimer = null;
    this.next = null; // the socket being opened to replace this one (`reconnect`)
    this.old = null; // the socket it replaced, until it has answered what was sent on it
    this.oldIds = new Set(); // the requests sent on `old` still unanswered
  }

  /** Open the socket (again). */
  connect() {
    clearTimeout(this.retryTimer);
    this.stopped = false;
    this.awaitingSnapshot = true;
    this.authenticated = false; // until this socket's first snapshot
    this.status("connecting");
    let ws;
    try {
      ws = new WebSocket(socketUrl(this.path));
    } catch (err) {
      this.retry();
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (this.send(C.HELLO, { table: this.table, token: this.token })) this.expect("snapshotAt");
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.ping(), PING_EVERY_MS);
    });
    ws.addEventListener("message", (event) => this.receive(event.data, ws));
    ws.addEventListener("close", (event) => this.closed(ws, event));
  }

  /** The server process this socket reached is stopping: open another socket (the address leads to
   * another process) while this one keeps working, and switch once it has its snapshot (`adopt`). */
  replace() {
    if (this.stopped || this.next || !this.ws) return;
    let ws;
    try {
      ws = new WebSocket(socketUrl(this.path));
    } catch (err) {
      return; // the server closes the old socket in time (1012): then the page reconnects as ever
    }
    this.next = ws;
    ws.addEventListener("open", () => ws.send(JSON.stringify({ t: C.HELLO, d: { table: this.table, token: this.token } })));
    ws.addEventListener("message", (event) => this.receive(event.data, ws));
    ws.addEventListener("close", (event) => this.closed(ws, event));
  }

  /** The new socket has its snapshot: it is the socket from now on; the old one is closed once it has
   * answered what was sent on it. */
  adopt(ws) {
    this.letOldGo();
    this.old = this.ws;
    this.oldIds = new Set(this.pending.keys());
    this.ws = ws;
    this.next = null;
    this.awaitingSnapshot = true;
    this.letOldGo(false);
  }

  /** Close the replaced socket once nothing sent on it waits for an answer (or now, with `now`). */
  letOldGo(now = true) {
    if (!this.old || (!now && this.oldIds.size)) return;
    const old = this.old;
    this.old = null;
    for (const id of this.oldIds) {
      this.pending.delete(id);
      this.asked.delete(id);
    }
    this.oldIds.clear();
    try {
      old.close(1000);
    } catch {}
  }

  /** Switch to another seat token (or none, to watch) and reconnect. */
  reconnectAs(token) {
    this.token = token || null;
    this.stop();
    this.connect();
  }

  /** Close for good (no reconnect). */
  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    this.letOldGo();
    if (this.next) {
      const next = this.next;
      this.next = null;
      next.close(1000);
    }
    this.forget();
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.close(1000);
    }
  }

  status(kind, detail) {
    if (this.cb.onStatus) this.cb.onStatus(kind, detail);
  }

  send(tag, data, id) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    const frame = { t: tag };
    if (id !== undefined) frame.id = id;
    if (data !== undefined) frame.d = data;
    this.ws.send(JSON.stringify(frame));
    return true;
  }

  /** Send a request that expects an ack or refused; returns its id, or null when offline. */
  request(tag, data, what) {
    const id = this.nextId++;
    if (!this.send(tag, data, id)) return null;
    this.pending.set(id, what || { tag, data });
    this.asked.set(id, Date.now());
    this.watch();
    return id;
  }

  ping() {
    if (this.send(C.PING) && this.pingAt === null) this.expect("pingAt");
  }

  /** Note that an answer is now awaited (`what`: "pingAt" or "snapshotAt"), unless one already was. */
  expect(what) {
    if (this[what] === null) this[what] = Date.now();
    this.watch();
  }

  watch() {
    if (this.watchTimer === null)
      this.watchTimer = setInterval(() => this.checkAnswers(), Math.min(1000, this.answerWithinMs / 2));
  }

  /** Drop the socket and open another when an answer is overdue: the server stopped answering. */
  checkAnswers() {
    const oldest = Math.min(...this.asked.values(), this.pingAt ?? Infinity, this.snapshotAt ?? Infinity);
    if (Date.now() - oldest <= this.answerWithinMs) return;
    const ws = this.ws;
    this.ws = null; // its close event, whenever it comes, is an old socket's
    clearInterval(this.pingTimer);
    this.pending.clear();
    this.forget();
    if (ws) {
      try {
        ws.close(4000, "no answer");
      } catch {}
    }
    if (!this.stopped) this.retry();
  }

  /** Await no answer any more (the socket is gone). */
  forget() {
    this.asked.clear();
    this.pingAt = this.snapshotAt = null;
    clearInterval(this.watchTimer);
    this.watchTimer = null;
  }

  /** An engine action for the current decision window. */
  act(action) {
    if (!this.state) return null;
    return this.request(C.ACT, { action, window: this.state.clock.window }, { tag: C.ACT, action });
  }

  chat(text) {
    return this.request(C.CHAT, { text }, { tag: C.CHAT, text });
  }

  resync() {
    this.awaitingSnapshot = true;
    if (this.send(C.RESYNC)) this.expect("snapshotAt");
  }

  receive(raw, ws) {
    let frame;
    try {
      frame = JSON.parse(raw);
    } catch {
      return;
    }
    const d = frame.d || {};
    if (ws !== undefined && ws !== this.ws) {
      if (ws === this.next && frame.t === S.SNAPSHOT) this.adopt(ws); // then read as this socket's
      else {
        // The socket being replaced answers what was sent on it; the new one says nothing before its
        // snapshot but a refused hello (then it closes, and the old one goes on).
        if (ws === this.old) this.oldAnswer(frame);
        return;
      }
    }
    switch (frame.t) {
      case S.SNAPSHOT:
        this.snapshotAt = null;
        this.awaitingSnapshot = false;
        this.authenticated = true;
        this.attempt = 0;
        this.state = d.state;
        this.seq = d.seq;
        if (this.cb.onClockOffset) this.cb.onClockOffset(d.now - Date.now());
        this.status("open");
        this.cb.onState(this.state);
        break;
      case S.DIFF:
        this.applyDiff(d);
        // The ack of this socket's own intent rides in the diff it caused (one frame, not two);
        // it counts even when the diff itself was dropped for a resync.
        if (d.ack !== undefined) this.answer({ t: S.ACK, d: { id: d.ack } });
        break;
      case S.ACK:
      case S.REFUSED:
        this.answer(frame);
        break;
      case S.PONG:
        this.pingAt = null;
        if (this.cb.onClockOffset && typeof d.now === "number") this.cb.onClockOffset(d.now - Date.now());
        break;
      case S.TIMED_OUT:
        if (this.cb.onTimedOut && d.action) this.cb.onTimedOut(d.action);
        break;
      case S.RECONNECT:
        this.replace();
        break;
    }
  }

  /** A frame on the socket being replaced: only the answers to what was sent on it count. */
  oldAnswer(frame) {
    const d = frame.d || {};
    const id = frame.t === S.DIFF ? d.ack : frame.t === S.ACK || frame.t === S.REFUSED ? d.id : undefined;
    if (id === undefined || !this.oldIds.has(id)) return;
    this.oldIds.delete(id);
    this.answer(frame.t === S.DIFF ? { t: S.ACK, d: { id } } : frame);
    this.letOldGo(false);
  }

  applyDiff(d) {
    if (this.awaitingSnapshot) return; // a resync is on its way; it replaces everything
    if (d.seq !== this.seq + 1) {
      this.resync(); // a gap: something was missed
      return;
    }
    try {
      this.state = patch(this.state, d.ops);
    } catch {
      this.resync();
      return;
    }
    this.seq = d.seq;
    this.cb.onState(this.state);
  }

  answer(frame) {
    const d = frame.d || {};
    const asked = this.pending.get(d.id);
    this.pending.delete(d.id);
    this.asked.delete(d.id);
    if (frame.t === S.REFUSED && d.id === null) this.snapshotAt = null; // (a refused hello)
    if (frame.t === S.REFUSED && d.id === null && !this.authenticated && this.cb.onRefusedHello) {
      this.cb.onRefusedHello(d);
    } else if (this.cb.onAnswer) {
      this.cb.onAnswer(frame, asked);
    }
  }

  closed(ws, event) {
    if (ws === this.next) this.next = null; // (the old socket goes on; the server closes it in time)
    if (ws === this.old) this.letOldGo(); // what it had not answered is not awaited any more
    if (ws !== this.ws) return; // an old socket we replaced
    this.ws = null;
    clearInterval(this.pingTimer);
    this.pending.clear();
    this.forget();
    if (this.stopped) return;
    if (event.code === CLOSE.POLICY || event.code === CLOSE.LEFT) {
      this.status("closed", event.reason || "");
      return;
    }
    if (event.code === CLOSE.GOING_AWAY && /closed/.test(event.reason)) {
      this.status("closed", event.reason);
      return;
    }
    this.retry(event.code === CLOSE.RESTART);
  }

  retry(restart = false) {
    const base = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    const delay =
      restart && this.attempt === 0
        ? Math.round(Math.random() * RESTART_SPREAD_MS)
        : Math.round(base * (0.75 + Math.random() * 0.5));
    this.attempt += 1;
    this.status("waiting", delay);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }
}
