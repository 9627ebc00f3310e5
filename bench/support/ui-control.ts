// bench:ui's control cases: what a frame costs on this machine without Lathe's renderer, measured
// with the same frame marks and trace as the streamed turns (page-side scripts, as strings: the
// bench is type-checked for Node, without the DOM's types).
// - IDLE_CONTROL: the open session page, nothing changing, for `ms`: Chromium's floor per frame
//   (the frame-mark loop itself, the compositor's frames).
// - SYNTHETIC_CONTROL: the cheapest renderer of the same visible stream, over the page: a panel
//   that gets ~2,000 words per second (" wN", a new paragraph every 50, as the fake model sends
//   them), kept scrolled to its end, and, from the second to the fourth fifth of the run, four
//   16-line terminal boxes each getting a coloured line every 5 ms (the bench's bash command).
//   Timers only collect the data; the DOM is changed once per frame, in one animation-frame
//   callback (append text, add/remove rows, one scroll to the end). No parsing, no React, no
//   virtualization, no xterm: the floor of Chromium's own per-frame cost (style, layout, paint,
//   compositing) for this much change on this machine.
// Each resolves when its run is over.

export const IDLE_CONTROL = (ms: number) => `new Promise((resolve) => setTimeout(resolve, ${ms}))`;

export const SYNTHETIC_CONTROL = (ms: number) => `new Promise((resolve) => {
  const panel = document.createElement("div");
  panel.style.cssText = "position:fixed;inset:0;z-index:99;background:#fff;display:flex;flex-direction:column;font:14px sans-serif";
  const text = document.createElement("div");
  text.style.cssText = "flex:1;overflow:auto;padding:8px";
  const terms = document.createElement("div");
  terms.style.cssText = "display:grid;grid-template-columns:1fr 1fr;gap:4px;padding:4px";
  panel.append(text, terms);
  document.body.append(panel);
  const boxes = [0, 1, 2, 3].map(() => {
    const pre = document.createElement("pre");
    pre.style.cssText = "margin:0;height:18em;overflow:hidden;background:#111214;color:#ddd;font:13px monospace";
    terms.append(pre);
    return { pre, lines: [] };
  });
  let word = 0;
  let words = "";
  let paragraph = null;
  let line = 0;
  const t0 = performance.now();
  const textTimer = setInterval(() => {
    for (let i = 0; i < 40; i++, word++) words += word % 50 === 49 ? " word\\n\\n" : " w" + word;
  }, 20);
  const bashTimer = setInterval(() => {
    const t = performance.now() - t0;
    if (t < ${ms} / 5 || t > (${ms} * 4) / 5) return;
    line++;
    for (const box of boxes) box.lines.push(line);
  }, 5);
  const frame = () => {
    if (words) {
      const parts = words.split("\\n\\n");
      words = "";
      parts.forEach((part, i) => {
        if (i > 0 || !paragraph) {
          paragraph = document.createElement("p");
          text.append(paragraph);
        }
        if (part) paragraph.append(part);
      });
      text.scrollTop = text.scrollHeight;
    }
    for (const box of boxes) {
      for (const n of box.lines.splice(0)) {
        const row = document.createElement("div");
        const colour = document.createElement("span");
        colour.style.color = "hsl(" + (n % 7) * 50 + " 70% 60%)";
        colour.textContent = "line " + n + " of the build ";
        row.append(colour, "[" + "#".repeat(n % 30) + "]");
        box.pre.append(row);
      }
      while (box.pre.childElementCount > 16) box.pre.firstElementChild.remove();
    }
    if (performance.now() - t0 < ${ms}) requestAnimationFrame(frame);
    else {
      clearInterval(textTimer);
      clearInterval(bashTimer);
      panel.remove();
      resolve();
    }
  };
  requestAnimationFrame(frame);
})`;
