// The live pages (docs/web.md, "Live"): each element with data-live follows the stream
// of server-sent events at that address. Its kind says what an event does:
//   table    a match's table, drawn by the server, put in place; when the match is
//            recorded the page loads again and is its replay
//   playing  the list of the matches playing now, put in place
//   page     something on the page changed (a match of the run or the pool was
//            recorded): the page is fetched again, at most once a second, and its main
//            part put in place
// The browser's EventSource reconnects by itself; each event is whole, so nothing is
// lost by missing some. window.arenaLive keeps, for each table shown, its sequence
// number and how long after the action it was drawn, and the element's data-shown how
// many were (for the browser tests).
(() => {
  window.arenaLive = [];
  const since = new Map();
  document.querySelectorAll("[data-live]").forEach((el) => follow(el));

  function follow(el) {
    const source = new EventSource(el.dataset.live);
    const kind = el.dataset.liveKind;
    if (kind === "table") {
      source.addEventListener("table", (e) => {
        const data = JSON.parse(e.data);
        if (!data.html) return;
        el.innerHTML = '<section class="step">' + data.html + "</section>";
        window.arenaLive.push({ seq: data.seq, hand: data.hand, lag: Date.now() / 1000 - data.at });
        el.dataset.seq = data.seq;
        el.dataset.shown = window.arenaLive.length;
      });
      source.addEventListener("recorded", () => {
        source.close();
        window.location.reload();
      });
    } else if (kind === "playing") {
      source.addEventListener("playing", (e) => {
        el.innerHTML = JSON.parse(e.data).html;
      });
    } else if (kind === "page") {
      source.addEventListener("changed", () => redraw(el.dataset.live, source));
    }
  }

  async function redraw(key, source) {
    const last = since.get(key) || 0;
    const wait = Math.max(0, last + 1000 - Date.now());
    if (since.get(key + ":pending")) return;
    since.set(key + ":pending", true);
    await new Promise((r) => setTimeout(r, wait));
    since.set(key, Date.now());
    since.delete(key + ":pending");
    const response = await fetch(window.location.href, { headers: { Accept: "text/html" } });
    if (!response.ok) return;
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    const fresh = page.querySelector("main");
    if (!fresh) return;
    document.querySelector("main").replaceWith(fresh);
    const kept = [...fresh.querySelectorAll("[data-live]")].filter((el) => el.dataset.live === key);
    if (!kept.length) source.close(); // the run has ended: nothing more to follow
    fresh.querySelectorAll("[data-live]").forEach((el) => {
      if (el.dataset.live !== key) follow(el);
    });
  }
})();
