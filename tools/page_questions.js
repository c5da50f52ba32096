// The questions of the static pages (tools/page_questions.py): the reader's answer looked up among the verdicts
// the notebook's own check gave at build time, shown as the notebook shows them (the diagnosis and the question,
// then the hint and the fix behind a click). Nothing is computed from the answer but its lookup, and nothing is
// sent anywhere.
(function () {
  "use strict";

  // a typed number: 0.5, 1/2, -1/5, 1e-3, inf, or a small formula as written in Python or maths: 0.5*log(6),
  // np.log(6) / 2, 2**(-1/5), sqrt(2), pi (NaN when it is none of these)
  var FUNCTIONS = { log: Math.log, ln: Math.log, log10: Math.log10, log2: Math.log2, sqrt: Math.sqrt, exp: Math.exp };
  var CONSTANTS = { pi: Math.PI, e: Math.E, inf: Infinity, infinity: Infinity, "∞": Infinity };

  function readNumber(text) {
    var t = String(text).trim().toLowerCase().replace(/\b(np|numpy|math)\./g, "").replace(/\*\*/g, "^")
      .replace(/[×·]/g, "*").replace(/−/g, "-");
    var tokens = t.match(/\d*\.?\d+(?:e[-+]?\d+)?|[a-z_][a-z0-9_]*|∞|[-+*\/^()]|\S/g) || [];
    var at = 0;
    function peek() { return tokens[at]; }
    function sum() {
      var v = product();
      while (peek() === "+" || peek() === "-") v = tokens[at++] === "+" ? v + product() : v - product();
      return v;
    }
    function product() {
      var v = unary();
      while (peek() === "*" || peek() === "/") {
        if (tokens[at++] === "*") { v = v * unary(); continue; }
        var d = unary();
        v = d === 0 ? NaN : v / d;  // as Python: no number from a division by zero
      }
      return v;
    }
    function unary() {
      if (peek() === "-") { at++; return -unary(); }
      if (peek() === "+") { at++; return unary(); }
      return power();
    }
    function power() {
      var base = atom();
      if (peek() === "^") { at++; return Math.pow(base, unary()); }
      return base;
    }
    function atom() {
      var token = tokens[at++];
      if (token === undefined) return NaN;
      if (token === "(") { var v = sum(); return tokens[at++] === ")" ? v : NaN; }
      if (/^\d*\.?\d+(e[-+]?\d+)?$/.test(token)) return Number(token);
      if (CONSTANTS.hasOwnProperty(token)) return CONSTANTS[token];
      if (FUNCTIONS.hasOwnProperty(token) && peek() === "(") return FUNCTIONS[token](atom());
      return NaN;
    }
    if (!tokens.length) return NaN;
    var value = sum();
    return at === tokens.length ? value : NaN;
  }

  // a typed number: the catalogued value it is (within the field's tolerance, no wider than the check's), else
  // the passing value of the check's own range of right answers it lies in, else nothing the page may claim
  function matchNumber(field, value) {
    var matched = -1, gap = Infinity;
    for (var i = 0; i < field.options.length; i++) {
      var p = readNumber(field.options[i]);
      var tol = (field.tolerance || 0) + (field.relative || 0) * Math.abs(p);
      if (p === value) return { index: i, exact: true };
      if (Math.abs(p - value) <= tol && Math.abs(p - value) < gap) { matched = i; gap = Math.abs(p - value); }
    }
    if (matched >= 0) return { index: matched, exact: false };
    var ranges = field.integer && Math.round(value) !== value ? [] : field.right || [];
    for (var r = 0; r < ranges.length; r++) {
      if (value < ranges[r][0] || value > ranges[r][1]) continue;
      var best = -1;
      for (var j = 0; j < field.options.length; j++) {
        var q = readNumber(field.options[j]);
        if (q >= ranges[r][0] && q <= ranges[r][1] && (best < 0 || Math.abs(q - value) <
          Math.abs(readNumber(field.options[best]) - value))) best = j;
      }
      if (best >= 0) return { index: best, exact: false };
    }
    return null;
  }

  function el(tag, cls, html) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (html !== undefined) node.innerHTML = html;
    return node;
  }

  function escapeText(text) {
    var d = document.createElement("div");
    d.textContent = text;
    return d.innerHTML;
  }

  function show(box, record, notes, words) {
    box.innerHTML = "";
    var right = record.passed || record.left;
    box.classList.toggle("pq-right", !!right);
    box.classList.toggle("pq-wrong", !right);
    notes.forEach(function (note) { box.appendChild(el("p", "pq-note", escapeText(note))); });
    box.appendChild(el("p", "pq-status", "<strong>" + escapeText(record.exercise + ": " + record.status) + "</strong>"));
    var list = el("ul", "pq-messages");
    record.messages.forEach(function (m) { list.appendChild(el("li", "", m)); });
    box.appendChild(list);
    [["hint", record.hint], ["fix", record.fix]].forEach(function (step) {
      if (!step[1] || right) return;  // nothing further to reveal after a right answer
      var details = el("details", "pq-" + step[0]);
      details.appendChild(el("summary", "", escapeText(words[step[0]])));
      details.appendChild(el("div", "", step[1]));
      box.appendChild(details);
    });
    box.focus();
  }

  function problem(box, text) {
    box.innerHTML = "";
    box.classList.remove("pq-right", "pq-wrong");
    box.appendChild(el("p", "pq-problem", escapeText(text)));
    box.focus();
  }

  // one field's answer: {keys: candidate keys, nearest first; shown: the value each stands for; matched} or {problem}
  function fieldKeys(form, field, index, words) {
    var kind = field.kind;
    if (kind === "choice" || kind === "positions") {
      var boxes = form.querySelectorAll('[data-field="' + index + '"] input');
      var chosen = [];
      for (var i = 0; i < boxes.length; i++) if (boxes[i].checked) chosen.push(field.options[i]);
      if (!chosen.length && kind === "choice") return { problem: words.choose };
      return { keys: [chosen.join(kind === "positions" ? "," : "")], matched: true };
    }
    var text = form.querySelector('[data-field="' + index + '"] input').value;
    var value = readNumber(text);
    if (isNaN(value)) return { problem: words.unreadable };
    var found = matchNumber(field, value);
    if (!found) return { unknown: text.trim() };
    var shown = String(Number(readNumber(field.options[found.index]).toPrecision(6)));
    var inRange = (field.right || []).some(function (r) { return value >= r[0] && value <= r[1]; });
    return {
      keys: [field.keys[found.index]], typed: text.trim(), right: field.right ? inRange : undefined,
      note: found.exact ? null : words.within.replace(/\{typed\}/g, text.trim()).replace(/\{value\}/g, shown)
    };
  }

  function lookup(q, field, keys, i) {
    return q.mode === "table" ? q.answers[JSON.stringify(keys)] : q.answers[field.name][keys[i]];
  }

  function answer(form) {
    var data = JSON.parse(form.querySelector(".pq-data").textContent);
    var q = data.q, words = data.words, box = form.querySelector(".pq-feedback");
    var got = [];
    for (var i = 0; i < q.fields.length; i++) {
      var one = fieldKeys(form, q.fields[i], i, words);
      if (one.problem) { problem(box, one.problem); return; }
      got.push(one);
    }
    var notes = got.filter(function (g) { return g.note; }).map(function (g) { return g.note; });
    if (q.solution) notes.unshift(words.solution);
    // numbers judged together (04's learning rate and epochs): only their catalogued combinations are judged
    var joint = q.fields.some(function (f) { return f.joint; });
    if (joint && got.some(function (g) { return g.note || g.unknown !== undefined; })) {
      box.innerHTML = "";
      box.classList.remove("pq-right", "pq-wrong");
      box.appendChild(el("p", "pq-status", "<strong>" + escapeText(words.undecidedStatus) + "</strong>"));
      got.forEach(function (g) {
        if (g.note || g.unknown !== undefined) {
          box.appendChild(el("p", "", escapeText(words.undecided.replace("{typed}", g.unknown !== undefined ? g.unknown : g.typed))));
        }
      });
      box.focus();
      return;
    }
    var unknown = got.filter(function (g) { return g.unknown !== undefined; });
    var all = q.mode === "table" ? Object.keys(q.answers).map(function (k) { return q.answers[k]; }) :
      Object.keys(q.answers[q.fields[0].name]).map(function (k) { return q.answers[q.fields[0].name][k]; });
    if (unknown.length) {  // no verdict of another value: the check's "not yet", and what the page cannot say
      var failed = all.filter(function (r) { return !r.passed && r.attempted; })[0] || all[0];
      show(box, { exercise: failed.exercise, status: failed.status, passed: false, hint: "", fix: "",
        messages: got.map(function (g, i) {  // the other numbers: right or not, by the check's own range
          var name = q.fields[i].variable;
          if (g.unknown !== undefined) return escapeText(words.unknown.replace("{typed}", g.unknown));
          if (g.right === undefined) return "";
          return escapeText((g.right ? words.fieldRight : words.fieldWrong).replace("{name}", name)
            .replace("{typed}", g.typed));
        }).filter(Boolean) },
        notes, words);
      return;
    }
    var keys = got.map(function (g) { return g.keys[0]; });
    if (q.mode === "table") {
      var record = q.answers[JSON.stringify(keys)];
      if (record && record.left) {
        record = { exercise: record.exercise, status: words.leftStatus, left: true,
          messages: [escapeText(words.left.replace("{names}", q.left.join(", ")))], hint: "", fix: "" };
      }
      if (record) show(box, record, notes, words);
      return;
    }
    // one verdict per argument, the others right: the wrong ones' messages, in order
    var records = q.fields.map(function (field, i) { return q.answers[field.name][keys[i]]; });
    var wrong = records.filter(function (r) { return !r.passed; });
    if (!wrong.length) { show(box, records[0], notes, words); return; }
    var messages = [];
    wrong.forEach(function (r) { messages = messages.concat(r.messages); });
    show(box, Object.assign({}, wrong[0], { messages: messages }), notes, words);
  }

  // the notebook's cells out of the tab order (nbconvert makes each one a stop; their links and controls stay
  // stops), except a cell that scrolls with nothing focusable inside (a keyboard needs to reach it to scroll it)
  function untab() {
    var stops = document.querySelectorAll('.jp-Cell [tabindex="0"], .jp-Cell[tabindex="0"]');
    function scrolls(node) {
      return node.scrollWidth > node.clientWidth + 1 || node.scrollHeight > node.clientHeight + 1;
    }
    for (var i = 0; i < stops.length; i++) {
      var node = stops[i];
      var focusable = node.querySelector("a[href], button, input, select, textarea, summary, [tabindex='0']");
      if (!focusable && (scrolls(node) || Array.prototype.some.call(node.querySelectorAll("pre, table"), scrolls))) {
        continue;
      }
      node.removeAttribute("tabindex");
    }
  }

  function start() {
    untab();
    var forms = document.querySelectorAll("form.page-question");
    for (var i = 0; i < forms.length; i++) {
      forms[i].addEventListener("submit", function (event) {
        event.preventDefault();
        answer(event.currentTarget);
      });
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
