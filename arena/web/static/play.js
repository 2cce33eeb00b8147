// Playing a bot yourself: the page asks the server for what your seat sees (each answer
// waits, bounded, for the next change), draws it as the replay's table does, and offers
// exactly the legal actions the referee sent, as buttons.
(() => {
  const root = document.getElementById("play");
  if (!root) return;
  const id = encodeURIComponent(root.dataset.match);
  const part = (name) => root.querySelector(`[data-testid="${name}"]`);
  const SUITS = { C: "♣", H: "♥", S: "♠", D: "♦" };
  let shown = { version: -1 };
  let clock = null;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function card(c, covered, small) {
    const size = small ? " small" : "";
    if (!c) {
      const back = el("span", `card back${size}${covered ? " covered" : ""}`);
      back.title = covered ? "a covered card" : "a card";
      return back;
    }
    const suit = c.slice(-1);
    const face = el("span", `card ${"HD".includes(suit) ? "red" : "black"}${size}${covered ? " covered" : ""}`);
    face.title = c;
    face.append(el("span", "rank", c.slice(0, -1)), el("span", "suit", `${SUITS[suit]}︎`));
    return face;
  }

  function name(s, seat) {
    const who = s.seats[seat] || `seat ${seat}`;
    return seat === s.seat ? `${who} (you)` : who;
  }

  function actionButton(text) {
    const b = el("button");
    b.type = "button";
    b.dataset.action = text;
    const words = text.split(" ");
    if (words[0] === "play" && words[1] !== "slot") {
      b.className = "card-action";
      b.append(el("span", "", words[2] === "covered" ? "cover" : "play"), card(words[1], false, true));
    } else {
      b.textContent = text;
    }
    b.addEventListener("click", () => act(text));
    return b;
  }

  function render(s) {
    if (s.version < shown.version) return;
    if (s.version > shown.version) showError("");
    shown = s;
    const v = s.view;
    part("team0").textContent = s.seats.length ? name(s, 0) : "";
    part("team1").textContent = s.seats.length ? name(s, 1) : "";
    const score = (s.result && s.result.score) || (v && v.score) || [0, 0];
    part("score").textContent = `${score[0]}–${score[1]}`;
    part("stake").textContent = v ? v.stake : 1;
    const pending = part("pending");
    pending.hidden = !(v && v.pending) || s.phase === "over";
    if (v && v.pending) pending.textContent = `${name(s, v.requester)} asks ${v.pending}`;
    part("vira").replaceChildren(v && v.vira ? card(v.vira, false, true) : el("span", "muted", "none"));
    const round = (r, label) => {
      const row = el("div", "round");
      row.append(el("span", "label", label));
      r.plays.forEach((p) => { const c = el("span", "play"); c.append(card(p.card, p.covered, true)); row.append(c); });
      row.append(el("span", "muted", r.winner === null ? "tie" : name(s, r.winner)));
      return row;
    };
    part("rounds").replaceChildren(...(v ? v.rounds : []).map((r, i) => round(r, `Round ${i + 1}`)));
    const last = s.last_hand;  // how the latest hand ended, as the seat was told
    const box = part("last-hand");
    box.hidden = !last;
    if (last) {
      const won = last.points[0] === last.points[1] ? "no points" : `${name(s, last.points[0] > last.points[1] ? 0 : 1)} +${Math.max(...last.points)}`;
      box.replaceChildren(el("span", "label", `Hand ${last.number + 1}: ${won}${last.reason ? ` (${last.reason})` : ""}`),
        ...last.rounds.map((r, i) => round(r, `${i + 1}`)));
    }
    const table = (v ? v.table : []).map((p) => {
      const f = el("figure", "play");
      f.append(card(p.card, p.covered), el("figcaption", `team${p.seat % 2}`, name(s, p.seat)));
      return f;
    });
    part("table").replaceChildren(...(table.length ? table : [el("span", "muted", v ? `round ${v.rounds.length + 1}` : "")]));
    part("hand").replaceChildren(...(v ? v.cards.map((c) => card(c)) : []));
    part("actions").replaceChildren(...s.legal.map(actionButton));
    part("note").textContent = note(s);
    part("note").classList.toggle("over", s.phase === "over");
    startClock(s);
  }

  function note(s) {
    if (s.phase === "over") {
      const r = s.result;
      const score = r ? ` ${r.score[0]}–${r.score[1]}` : "";
      return `The match is over: ${s.note}${score}. Its replay is on its match page.`;
    }
    if (s.your_turn) return `Your turn.${s.note ? " " + s.note : ""}`;
    if (s.phase === "playing") return `${s.sent ? `You: ${s.sent}. ` : ""}Waiting for ${s.opponent}…${s.note ? " " + s.note : ""}`;
    return s.note;
  }

  function startClock(s) {
    if (clock) clearInterval(clock);
    const out = part("clock");
    if (s.left_ms === null) { out.textContent = "–"; return; }
    const until = Date.now() + s.left_ms;
    const bank = s.time_bank_ms || 0;
    const tick = () => {  // the decision's own time first, then the bank it draws on
      const left = Math.max(0, until - Date.now());
      const own = Math.ceil((left - bank) / 1000);
      out.textContent = own > 0 ? `${own} s + ${Math.round(bank / 1000)} s bank` : `${Math.ceil(left / 1000)} s of bank`;
      if (left === 0) {  // the referee decides for the seat now; its next view will tell
        part("actions").replaceChildren();
        part("note").textContent = "Your time ran out: the referee decided for you.";
        clearInterval(clock);
      }
    };
    tick();
    clock = setInterval(tick, 1000);
  }

  function showError(message) {
    const e = part("error");
    e.hidden = !message;
    e.textContent = message || "";
  }

  async function act(text) {
    part("actions").querySelectorAll("button").forEach((b) => { b.disabled = true; });
    const body = new URLSearchParams({ request: String(shown.request_id), action: text });
    try {
      const r = await fetch(`/api/play/${id}`, { method: "POST", body });
      const data = await r.json();
      if (!r.ok) { showError(data.error); render({ ...shown, version: shown.version }); return; }
      showError("");
      render(data);
    } catch (e) {
      showError("the server could not be reached; try again");
      render({ ...shown });
    }
  }

  async function poll() {
    let wait = 1000;
    for (;;) {
      const after = shown.version >= 0 ? `?after=${shown.version}` : "";
      try {
        const r = await fetch(`/api/play/${id}${after}`);
        const data = await r.json();
        if (r.status === 403 || r.status === 404 || r.status === 401) { showError(data.error); return; }
        if (r.ok) {
          render(data);
          wait = 1000;
          if (data.phase === "over") return;
          continue;
        }
        showError(data.error);
      } catch (e) {
        showError("the server could not be reached; trying again");
      }
      await new Promise((done) => setTimeout(done, wait));
      wait = Math.min(wait * 2, 10000);
    }
  }

  poll();
})();
