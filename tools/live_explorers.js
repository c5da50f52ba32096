// Live explorers in the static pages: no kernel, no network. Each explorer's controls pick one of the
// frames the explorer drew in Python (tools/explorer_frames.py) and this script shows it. Frames are
// separate files, loaded when the explorer comes near the screen or is first touched, then kept decoded.
(function () {
  "use strict";

  function setup(root) {
    const manifest = JSON.parse(root.querySelector("script.live-manifest").textContent);
    const folder = root.dataset.frames; // the frames' folder, relative to the page
    const state = manifest.controls.map((control) => control.current);
    const images = new Map(); // frame hash -> its Image, loaded once
    let shown = root.querySelector("img.live-figure");
    let wanted = root.dataset.frame;
    let loaded = 0; // frames loaded so far (root.dataset.loaded, for the tests)

    function image(hash) {
      if (!images.has(hash)) {
        const img = new Image(manifest.width, manifest.height);
        img.className = shown.className;
        img.addEventListener("load", () => { root.dataset.loaded = ++loaded; }, { once: true });
        img.src = folder + hash + ".png";
        img.decode().catch(() => {}); // decode ahead, so that showing it later costs nothing
        images.set(hash, img);
      }
      return images.get(hash);
    }

    function preload() {
      new Set(Object.values(manifest.frames)).forEach(image);
    }

    function describe() {
      return manifest.class + ": " + manifest.controls
        .map((control, i) => control.label + " = " + control.labels[state[i]]).join(", ");
    }

    function show() {
      const hash = manifest.frames[state.join(",")];
      if (!hash) return;
      wanted = hash;
      root.dataset.frame = hash;
      const img = image(hash);
      const swap = () => {
        if (wanted !== hash || shown === img) return; // the reader has moved on, or it is on screen already
        img.alt = describe();
        shown.replaceWith(img);
        shown = img;
        root.dataset.shown = hash;
      };
      if (img.complete && img.naturalWidth) swap();
      else img.addEventListener("load", swap, { once: true });
    }

    // an option without a frame from where the reader is (see frame_plan) is disabled, not silently wrong
    function availability() {
      root.querySelectorAll("[data-of]").forEach((element) => {
        const probe = state.slice();
        probe[+element.dataset.of] = +element.dataset.option;
        element.disabled = !(probe.join(",") in manifest.frames);
      });
    }

    root.querySelectorAll("[data-control]").forEach((element) => {
      const i = +element.dataset.control;
      const readout = root.querySelector('output[data-readout="' + i + '"]');
      const change = () => {
        if (element.type === "radio" && !element.checked) return;
        state[i] = element.tagName === "SELECT" ? element.selectedIndex : +element.value;
        if (readout) readout.textContent = manifest.controls[i].labels[state[i]];
        availability();
        show();
      };
      element.addEventListener(element.type === "range" ? "input" : "change", change);
    });
    root.addEventListener("pointerdown", preload, { once: true });
    root.addEventListener("focusin", preload, { once: true });
    // after the page has loaded (so that its first load stays small): preload when it comes near the screen
    const watch = () => {
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
    availability();
    root.classList.add("live-ready");
  }

  function start() {
    document.querySelectorAll(".live-explorer").forEach(setup);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
