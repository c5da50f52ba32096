// The explorers' one front end: a figure per position of the controls, kept once shown.
//
// Both places use this same code and the same block (controls, picture, manifest; frames.py's
// explorer_html): the static pages, where each frame is a file the explorer drew in Python ahead of
// time, and the notebook (the FrameView widget, through anywidget), where the kernel draws a frame the
// first time it is wanted. A position shown once is shown again from here, without asking anyone; in the
// notebook the neighbours of the control being moved are asked for ahead, one at a time, while the
// kernel has nothing else to do. Frames kept here stay within the manifest's budget (bytes), the
// oldest dropped first.

function liveExplorer(root, manifest, source) {
  "use strict";
  const state = manifest.controls.map((control) => control.current);
  const kept = new Map(); // key "i,j,..." -> {img, bytes}; Map keeps insertion order: oldest first
  let keptBytes = 0;
  let shown = root.querySelector("img.live-figure");
  let wanted = state.join(",");
  let lastMoved = 0;

  function describe(key) {
    const at = key.split(",").map(Number);
    return manifest.class + ": " + manifest.controls
      .map((control, i) => control.label + " = " + control.labels[at[i]]).join(", ");
  }

  function keep(key, img, bytes) {
    if (kept.has(key)) return;
    kept.set(key, { img, bytes });
    keptBytes += bytes;
    for (const [old, frame] of kept) { // the oldest first, never the one on screen
      if (keptBytes <= manifest.budget) break;
      if (frame.img === shown) continue;
      kept.delete(old);
      keptBytes -= frame.bytes;
      if (frame.img.src.startsWith("blob:")) URL.revokeObjectURL(frame.img.src);
    }
    root.dataset.kept = kept.size;
  }

  function swap(key) {
    const frame = kept.get(key);
    if (!frame || wanted !== key || shown === frame.img) return;
    frame.img.alt = describe(key);
    frame.img.className = shown.className;
    shown.replaceWith(frame.img);
    shown = frame.img;
    root.dataset.shown = key;
  }

  // a frame arrived (from the kernel or a file): keep it, and show it if it is the one wanted
  function arrived(key, img, bytes) {
    const ready = () => { keep(key, img, bytes); swap(key); root.dataset.arrived = +(root.dataset.arrived || 0) + 1; ahead(); };
    if (img.complete && img.naturalWidth) ready();
    else img.decode().then(ready, ready);
  }

  // the positions to draw ahead: the moved control's neighbours (nearest first), then the others'
  function* upcoming() {
    const order = [lastMoved, ...manifest.controls.map((_, i) => i).filter((i) => i !== lastMoved)];
    for (const i of order) {
      const size = manifest.controls[i].labels.length;
      for (let d = 1; d < size; d++) {
        for (const j of [state[i] + d, state[i] - d]) {
          if (j < 0 || j >= size) continue;
          const probe = state.slice();
          probe[i] = j;
          yield probe.join(",");
        }
      }
    }
  }

  // Each frame is asked for ahead once per move of the reader, and only while those frames fill at most half
  // the budget: frames drawn ahead never push each other out, and an idle kernel is left alone when done.
  let drawnAhead = new Set();
  function ahead() {
    if (!source.idle()) return;
    const average = kept.size > 1 ? keptBytes / (kept.size - 1) : 20000;
    if ((drawnAhead.size + 1) * average > manifest.budget / 2) return;
    for (const key of upcoming()) {
      if (!kept.has(key) && !drawnAhead.has(key) && source.has(key)) {
        drawnAhead.add(key);
        source.fetch(key, false);
        return;
      }
    }
  }

  function show(moved) {
    if (moved !== undefined) lastMoved = moved;
    drawnAhead = new Set();
    const key = state.join(",");
    if (!kept.has(key) && !source.has(key)) return; // no frame for this position (a page's thinned grid)
    wanted = key;
    root.dataset.frame = key;
    if (kept.has(key)) swap(key); // drawn before: at once, no message to anyone
    else source.fetch(key, true);
    ahead();
    source.moved(state);
  }

  // an option without a frame from where the reader is (the pages' frame_plan) is disabled, not silently wrong
  function availability() {
    root.querySelectorAll("[data-of]").forEach((element) => {
      const probe = state.slice();
      probe[+element.dataset.of] = +element.dataset.option;
      element.disabled = !source.has(probe.join(","));
    });
  }

  function setTo(indices) { // the controls moved from elsewhere (the kernel, explorer.set(...))
    indices.forEach((value, i) => {
      state[i] = value;
      root.querySelectorAll('[data-control="' + i + '"]').forEach((element) => {
        if (element.tagName === "SELECT") element.selectedIndex = value;
        else if (element.type === "radio") element.checked = +element.value === value;
        else element.value = value;
      });
      const readout = root.querySelector('output[data-readout="' + i + '"]');
      if (readout) readout.textContent = manifest.controls[i].labels[value];
    });
    availability();
    show();
  }

  root.querySelectorAll("[data-control]").forEach((element) => {
    const i = +element.dataset.control;
    const readout = root.querySelector('output[data-readout="' + i + '"]');
    const change = () => {
      if (element.type === "radio" && !element.checked) return;
      state[i] = element.tagName === "SELECT" ? element.selectedIndex : +element.value;
      if (readout) readout.textContent = manifest.controls[i].labels[state[i]];
      availability();
      show(i);
    };
    element.addEventListener(element.type === "range" ? "input" : "change", change);
  });
  keep(wanted, shown, 0);
  root.dataset.shown = wanted;
  availability();
  root.classList.add("live-ready");
  return { arrived, ahead, setTo, kept };
}

// The static pages: every frame is a file named by its hash (manifest.frames), loaded when the explorer
// comes near the screen or is first touched.
function pageSource(root, manifest, live) {
  const folder = root.dataset.frames;
  const asked = new Set();
  return {
    has: (key) => key in manifest.frames,
    idle: () => true,
    moved: () => {},
    fetch(key) {
      if (asked.has(key)) return;
      asked.add(key);
      const img = new Image(manifest.width, manifest.height);
      img.addEventListener("load", () => { root.dataset.loaded = +(root.dataset.loaded || 0) + 1; }, { once: true });
      img.src = folder + manifest.frames[key] + ".png";
      live().arrived(key, img, manifest.bytes || 20000);
    },
  };
}

function startPage(root) {
  const manifest = JSON.parse(root.querySelector("script.live-manifest").textContent);
  let live = null;
  const source = pageSource(root, manifest, () => live);
  live = liveExplorer(root, manifest, source);
  const preload = () => Object.keys(manifest.frames).forEach((key) => source.fetch(key));
  root.addEventListener("pointerdown", preload, { once: true });
  root.addEventListener("focusin", preload, { once: true });
  const watch = () => { // after the page has loaded (its first load stays small): when it comes near the screen
    if (!("IntersectionObserver" in window)) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) {
        observer.disconnect();
        preload();
      }
    }, { rootMargin: "600px" });
    observer.observe(root);
  };
  if (document.readyState === "complete") watch();
  else window.addEventListener("load", watch, { once: true });
}

// The notebook (anywidget's render): the kernel draws a frame when asked ({frame: key}) and answers with
// {frame: key} and the PNG as a binary buffer. At most one frame drawn ahead is asked for at a time, so a
// frame the reader wants waits for one frame at most. The position is told to the kernel once the hand rests.
function render({ model, el }) {
  el.innerHTML = model.get("html");
  const root = el.querySelector(".live-explorer");
  const manifest = JSON.parse(root.querySelector("script.live-manifest").textContent);
  const pending = new Set(); // frames asked for and not yet arrived
  let rest = null;
  let live = null;
  const source = {
    has: () => true,
    idle: () => pending.size === 0,
    fetch(key) {
      if (pending.has(key)) return;
      pending.add(key);
      model.send({ frame: key });
    },
    moved(state) {
      clearTimeout(rest);
      rest = setTimeout(() => { model.set("index", state.slice()); model.save_changes(); }, 300);
    },
  };
  const onMessage = (message, buffers) => {
    if (!message || message.frame === undefined || !pending.has(message.frame)) return;
    pending.delete(message.frame);
    const data = buffers[0].buffer ? buffers[0] : new Uint8Array(buffers[0]);
    const img = new Image(manifest.width, manifest.height);
    img.src = URL.createObjectURL(new Blob([data], { type: "image/png" }));
    live.arrived(message.frame, img, data.byteLength);
  };
  model.on("msg:custom", onMessage);
  const onIndex = () => live.setTo(model.get("index"));
  model.on("change:index", onIndex);
  live = liveExplorer(root, manifest, source);
  root.dataset.path = "browser";
  // the controls' keys (arrows, Home, End, space) are theirs, not the notebook's shortcuts
  root.setAttribute("data-lm-suppress-shortcuts", "true");
  root.addEventListener("keydown", (event) => event.stopPropagation());
  model.set("front_end", "browser");
  model.save_changes();
  live.ahead();
  return () => {
    model.off("msg:custom", onMessage);
    model.off("change:index", onIndex);
    live.kept.forEach((frame) => { if (frame.img.src.startsWith("blob:")) URL.revokeObjectURL(frame.img.src); });
  };
}

if (typeof document !== "undefined" && document.currentScript) { // a classic <script>: the static pages
  const start = () => document.querySelectorAll(".live-explorer").forEach(startPage);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
}
