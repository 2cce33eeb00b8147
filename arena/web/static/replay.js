// The replay's stepper: every step of the hand is already on the page (the server drew
// them); this shows one at a time without a page load. Without it the links still work.
(() => {
  const steps = [...document.querySelectorAll(".replay section.step")];
  if (!steps.length) return;
  const timeline = [...document.querySelectorAll(".timeline a[data-step]")];

  function show(i) {
    steps.forEach((s, k) => { s.hidden = k !== i; });
    timeline.forEach((a) => a.classList.toggle("current", Number(a.dataset.step) === i));
    const url = new URL(window.location.href);
    url.searchParams.set("hand", document.querySelector(".replay").dataset.hand);
    url.searchParams.set("step", i);
    window.history.replaceState(null, "", url);
  }

  document.addEventListener("click", (e) => {
    const link = e.target.closest("a[data-step]");
    if (!link || e.metaKey || e.ctrlKey || e.shiftKey) return;
    e.preventDefault();
    show(Number(link.dataset.step));
  });

  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.metaKey || e.ctrlKey) return;
    const visible = steps.find((s) => !s.hidden);
    const which = { ArrowRight: "a.next", ArrowLeft: "a.prev" }[e.key];
    const link = which && visible && visible.querySelector(which);
    if (link) link.click();
  });
})();
