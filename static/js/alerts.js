// Telling a player that the game waits for them (your turn, a claim you can make, your win): a short
// tone made with WebAudio (no sound file is fetched), the tab's title flashing, and, if the player
// allowed it, a browser notification while the tab is hidden. The sound can be muted; the choice is
// remembered. Calls ("Pung!") and wins are announced over the caller's side of the table.

import { el } from "./render.js";
import { loadMuted, saveMuted } from "./local.js";

let audio = null;
let baseTitle = document.title;
let flashing = null; // the interval that flashes the title, while an alert is on
let alerted = null; // the key of the decision alerted for

/** The page's title when no alert flashes. */
export function setBaseTitle(title) {
  baseTitle = title;
  if (!flashing) document.title = title;
}

function tone(urgent) {
  if (loadMuted()) return;
  try {
    audio = audio || new AudioContext();
    const now = audio.currentTime;
    const notes = urgent ? [880, 1175] : [660];
    notes.forEach((freq, i) => {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = "sine";
      osc.frequency.value = freq;
      const start = now + i * 0.14;
      gain.gain.setValueAtTime(0.0001, start);
      gain.gain.exponentialRampToValueAtTime(0.18, start + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + 0.22);
      osc.connect(gain).connect(audio.destination);
      osc.start(start);
      osc.stop(start + 0.25);
    });
  } catch {
    /* no audio here: the title and the page still say it */
  }
}

/** Alert once for the decision ``key``: ``text`` flashes in the title (and is notified if hidden). */
export function alertFor(key, text, { urgent = false } = {}) {
  if (key === alerted) return;
  alerted = key;
  tone(urgent);
  clearInterval(flashing);
  let on = false;
  const flash = () => {
    on = !on;
    document.title = on ? `● ${text}` : baseTitle;
  };
  flash();
  flashing = setInterval(flash, 1000);
  if (document.hidden && "Notification" in window && Notification.permission === "granted") {
    try {
      const note = new Notification("Sparrow Mahjong", { body: text, tag: "sparrow-turn" });
      note.onclick = () => window.focus();
    } catch {
      /* notifications need a secure page on some browsers */
    }
  }
}

/** The decision was answered or has gone: stop flashing. */
export function clearAlert() {
  alerted = null;
  clearInterval(flashing);
  flashing = null;
  document.title = baseTitle;
}

/** The sound switch and the "notify me" button in ``box``. */
export function alertControls(box) {
  const sound = el("label", "check");
  const box1 = document.createElement("input");
  box1.type = "checkbox";
  box1.id = "sound";
  box1.checked = !loadMuted();
  box1.addEventListener("change", () => saveMuted(!box1.checked));
  sound.append(box1, " Sound");
  box.append(sound);
  if ("Notification" in window && Notification.permission === "default") {
    const ask = el("button", "ghost small", "Notify me when hidden");
    ask.type = "button";
    ask.addEventListener("click", async () => {
      try {
        await Notification.requestPermission();
      } finally {
        ask.remove();
      }
    });
    box.append(ask);
  }
}

/** "Pung!", "Mah-Jong!"… shown over ``panel`` (a seat's place on the board) for a moment. */
export function announce(layer, position, text, kind = "") {
  const bubble = el("div", `call-bubble pos-${position} ${kind}`.trim(), text);
  bubble.setAttribute("role", "status");
  layer.append(bubble);
  setTimeout(() => bubble.remove(), 1800);
  return bubble;
}
